"""Deliver stage: blog folder, e-mail, chat webhooks and an Atom feed.

``deliver_digest(stored, profile, journal, archive)`` is the stage: the pipeline's last step
(after the files are on disk) and what ``paperbrief send`` calls. The journal
(``store.deliveries``) is written before and after every send, so each channel sends each
digest once where the receiver allows it and at most once otherwise, and says which
(``dispatch.py``); ``pending.retry_earlier_days`` sends earlier days' failed channels again.
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
