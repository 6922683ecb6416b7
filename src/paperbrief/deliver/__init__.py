"""Deliver stage: blog folder, e-mail, chat webhooks and an Atom feed.

``deliver_digest(stored, profile, journal, archive)`` is the stage: the pipeline's last step
(after the files are on disk) and what ``paperbrief send`` calls. Each channel sends each
digest once; the journal (``store.deliveries``) says which already did.
"""

from paperbrief.deliver.dispatch import (
    DeliveryJournal,
    DeliveryResult,
    DigestArchive,
    configured_channels,
    deliver_digest,
)

__all__ = [
    "DeliveryJournal",
    "DeliveryResult",
    "DigestArchive",
    "configured_channels",
    "deliver_digest",
]
