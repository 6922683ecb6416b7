"""The profile editor's fields: the common settings as form fields beside the raw TOML.

Each field names one profile key (``FIELDS``). The page shows the value the TOML text has
(the profile's default when the text does not set it) and, hidden, the value it was shown
with; on save, a field the reader changed (its value differs from the one it was shown
with, so an edit of the same key in the textarea is not undone by an untouched field) is
written into the text — its line replaced, or added to its table, comments and everything
else kept — and the text is then validated and checked against the locks like
any other edit (``web.security.changed_protected``), so the fields can no more lift a
budget or change a locked key than the textarea can. A field whose key is locked is shown
read-only; a ceiling (the daily cost budget) may only be lowered.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from paperbrief.profile import LANGUAGES, Profile, ceiling_settings, protected_settings

Kind = Literal["text", "number", "choice", "list"]


@dataclass(frozen=True)
class FormField:
    key: str  # dotted profile key
    kind: Kind
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    step: str = "1"

    @property
    def name(self) -> str:
        return "field." + self.key

    @property
    def shown_name(self) -> str:
        """The hidden input holding the value the field was shown with."""
        return "shown." + self.key


FIELDS: tuple[FormField, ...] = (
    FormField("name", "text"),
    FormField("language", "choice", choices=LANGUAGES),
    FormField("timezone", "text"),
    FormField("categories", "list"),
    FormField("secondary_categories", "list"),
    FormField("picks_per_day", "number", minimum=1, maximum=10),
    FormField("min_stars", "number", minimum=1, maximum=5),
    FormField("output.title", "text"),
    FormField("delivery.email.subject", "text"),
    FormField("llm.daily_cost_budget", "number", minimum=0, step="0.1"),
)
LOCKED = frozenset(protected_settings()) - ceiling_settings()
CEILINGS = ceiling_settings()


@dataclass(frozen=True)
class ShownField:
    """One field as the page shows it."""

    field: FormField
    value: str
    locked: bool
    maximum: float | None


def _default(key: str) -> Any:
    model: Any = Profile
    value: Any = None
    for part in key.split("."):
        info = model.model_fields[part]
        value = info.get_default(call_default_factory=True)
        model = info.annotation
    return value


def _lookup(data: Mapping[str, Any], key: str) -> Any:
    node: Any = data
    for part in key.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _shown(value: Any, kind: Kind) -> str:
    if value is None:
        return ""
    if kind == "list":
        return ", ".join(str(item) for item in value) if isinstance(value, list) else ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value)) if kind == "number" else str(value)
    return str(value)


def _parsed(text: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return {}


def shown_fields(text: str, baseline: str) -> list[ShownField]:
    """The fields with the values of ``text``; a ceiling's highest value is ``baseline``'s."""
    data, base = _parsed(text), _parsed(baseline)
    fields = []
    for field in FIELDS:
        value = _lookup(data, field.key)
        shown = _shown(_default(field.key) if value is None else value, field.kind)
        maximum = field.maximum
        if field.key in CEILINGS:
            limit = _lookup(base, field.key)
            limit = _default(field.key) if limit is None else limit
            maximum = float(limit) if isinstance(limit, int | float) and limit > 0 else None
        fields.append(ShownField(field, shown, field.key in LOCKED, maximum))
    return fields


def _literal(field: FormField, raw: str) -> str | None:
    """The TOML literal for a submitted value (None: not a value of this kind)."""
    raw = raw.strip()
    if field.kind == "number":
        try:
            number = float(raw)
        except ValueError:
            return None
        return str(int(number)) if number.is_integer() and field.step == "1" else repr(number)
    if field.kind == "list":
        items = [item.strip() for item in re.split(r"[,\n，]", raw) if item.strip()]
        return json.dumps(items, ensure_ascii=False)
    return json.dumps(raw, ensure_ascii=False)  # a JSON string is a TOML basic string


_HEADER = re.compile(r"^\s*\[+\s*([^\]]+?)\s*\]+\s*(#.*)?$")


def set_key(text: str, key: str, literal: str) -> str:
    """``text`` with ``key = literal`` set: its line (a multi-line array included) replaced,
    or the key added at the end of its table, the table added when missing."""
    *tables, name = key.split(".")
    table = ".".join(tables)
    lines = text.split("\n")
    headers = [
        (number, found.group(1).strip(), line.lstrip().startswith("[["))
        for number, line in enumerate(lines)
        if (found := _HEADER.match(line))
    ]
    if table == "":
        start, end = 0, headers[0][0] if headers else len(lines)
    else:
        place = next(
            (i for i, (_, header, array) in enumerate(headers) if header == table and not array),
            None,
        )
        if place is None:
            return text.rstrip("\n") + f"\n\n[{table}]\n{name} = {literal}\n"
        start = headers[place][0] + 1
        end = headers[place + 1][0] if place + 1 < len(headers) else len(lines)
    assignment = re.compile(rf"^\s*{re.escape(name)}\s*=")
    for number in range(start, end):
        if assignment.match(lines[number]):
            last = number
            depth = lines[number].count("[") - lines[number].count("]")
            while depth > 0 and last + 1 < end:
                last += 1
                depth += lines[last].count("[") - lines[last].count("]")
            lines[number : last + 1] = [f"{name} = {literal}"]
            return "\n".join(lines)
    insert = end
    while insert > start and not lines[insert - 1].strip():
        insert -= 1
    lines.insert(insert, f"{name} = {literal}")
    return "\n".join(lines)


def apply_fields(text: str, form: Mapping[str, str]) -> tuple[str, list[str]]:
    """``text`` with every field the reader changed (its value is not the one it was shown
    with) written in; also the keys whose new value was not a value of the field's kind
    (left as they were)."""
    bad = []
    for field in FIELDS:
        if field.name not in form or field.key in LOCKED:
            continue
        submitted = str(form[field.name])
        if submitted.strip() == str(form.get(field.shown_name, "")).strip():
            continue
        literal = _literal(field, submitted)
        if literal is None:
            bad.append(field.key)
            continue
        text = set_key(text, field.key, literal)
    return text, bad
