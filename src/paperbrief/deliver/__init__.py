"""Deliver stage: blog folder, e-mail, chat webhooks and an Atom feed.

``deliver_digest`` is what the pipeline calls after the digest files are on disk;
``deliver_stored`` backs ``paperbrief send``. Each channel sends each digest once.
"""

from paperbrief.deliver.dispatch import (
    DeliveryResult,
    configured_channels,
    deliver_digest,
    deliver_stored,
)

__all__ = ["DeliveryResult", "configured_channels", "deliver_digest", "deliver_stored"]
