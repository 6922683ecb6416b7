"""The store's one codec: typed values to JSON text and back, through ``pydantic.TypeAdapter``.

Briefs, digests and full-text documents are stored as JSON so a rerun can resume and the
web UI can show them. Nothing outside ``store/`` serialises or parses them. Tuples come
back as tuples and dates as dates, exactly as they went in; an unreadable body is a
``StoreError`` naming what it was.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import TypeAdapter, ValidationError

from paperbrief.errors import StoreError
from paperbrief.models import Digest, Document, PaperBrief, PaperReading

T = TypeVar("T")

# The values kept as JSON bodies; built once (an adapter is immutable and costly to build).
_ADAPTERS: dict[type, TypeAdapter[Any]] = {
    kind: TypeAdapter(kind) for kind in (Digest, PaperBrief, Document, PaperReading)
}


def _adapter(kind: type) -> TypeAdapter[Any]:
    try:
        return _ADAPTERS[kind]
    except KeyError:
        raise TypeError(f"the store keeps no {kind.__name__} as JSON") from None


def encode(value: Digest | PaperBrief | Document | PaperReading) -> str:
    """JSON text of a stored value."""
    return _adapter(type(value)).dump_json(value).decode("utf-8")


def decode(kind: type[T], text: str | bytes) -> T:
    """The value of type ``kind`` that ``encode`` wrote (older bodies with fewer fields too)."""
    try:
        value: T = _adapter(kind).validate_json(text)
    except ValidationError as error:
        raise StoreError(
            f"a stored {kind.__name__} is unreadable: {error.error_count()} problem(s),"
            f" first: {error.errors()[0]['msg']}",
            "rerun with --force to write it again, or point PAPERBRIEF_HOME at a fresh folder",
        ) from error
    return value
