"""Every string of a digest without control characters, before it is rendered.

Paper text and model answers are untrusted, and a Markdown or HTML escape does not remove
a terminal escape, a C1 control or a bidi override: shown raw, they can recolour a
terminal that prints the post, or make a title read backwards in the page. Both renderers
(and the web UI's paper page) start from ``readable`` values (``text.controls``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from paperbrief.text.controls import without_controls

T = TypeVar("T")


def readable(value: T) -> T:
    """``value`` (a digest, a brief, any frozen dataclass, tuple, list or dict of them) with
    every string cleaned of control characters; values without any come back as they are."""
    return _clean(value)  # type: ignore[no-any-return]


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return without_controls(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {}
        for field in dataclasses.fields(value):
            if not field.init:
                continue
            old = getattr(value, field.name)
            new = _clean(old)
            if new is not old:
                changes[field.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, tuple | list):
        items = [_clean(item) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return type(value)(items) if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        cleaned = {_clean(key): _clean(item) for key, item in value.items()}
        return value if cleaned == value else cleaned
    return value
