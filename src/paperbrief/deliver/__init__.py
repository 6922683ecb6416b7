"""Deliver stage: blog folder, e-mail, chat webhooks and an Atom feed.

``deliver_stored`` is what `paperbrief run` (after the files are on disk) and
``paperbrief send`` call; ``deliver_digest`` delivers an in-memory digest (library use).
Each channel sends each digest once.
"""

from paperbrief.deliver.dispatch import (
    DeliveryResult,
    configured_channels,
    deliver_digest,
    deliver_stored,
)

__all__ = ["DeliveryResult", "configured_channels", "deliver_digest", "deliver_stored"]
