"""The profile editor's fields: the common settings as form fields beside the raw TOML.

Each field names one profile key (``FIELDS``). The page shows the value the TOML text has
(the profile's default when the text does not set it) and, hidden, the value it was shown
with; on save, a field the reader changed (its value differs from the one it was shown
with, so an edit of the same key in the textarea is not undone by an untouched field) is
written into the text — its line replaced, or added to its table, comments and everything
else kept — and the text is then validated and checked against the locks like
any other edit (``web.security.changed_protected``), so the fields can no more lift a
budget or change a locked key than the textarea can. A field whose key is locked is shown
read-only; a ceiling (the daily cost budget) may only be lowered. Each research line has
its own group (``line_fields``): name, description, key phrases, weight.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from paperbrief.profile import (
    LANGUAGES,
    Profile,
    ResearchLine,
    ceiling_settings,
    protected_settings,
)

Kind = Literal["text", "number", "choice", "list", "long"]


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
# Each research line's fields, named ``research_lines.<n>.<key>`` (n from 0, in file order).
LINE_FIELDS: tuple[FormField, ...] = (
    FormField("name", "text"),
    FormField("description", "long"),
    FormField("keywords", "list"),
    FormField("keywords_zh", "list"),
    FormField("weight", "number", minimum=0, maximum=5, step="0.1"),
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
    if key.startswith("research_lines."):
        info = ResearchLine.model_fields[key.rsplit(".", 1)[1]]
        return None if info.is_required() else info.get_default(call_default_factory=True)
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
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
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


@dataclass(frozen=True)
class LineFields:
    """One research line's fields as the page shows them."""

    number: int
    name: str
    fields: list[ShownField]


def line_fields(text: str) -> list[LineFields]:
    """A group of fields per research line of ``text`` (in file order)."""
    lines = _parsed(text).get("research_lines")
    groups = []
    for number, line in enumerate(lines if isinstance(lines, list) else []):
        shown = []
        for field in LINE_FIELDS:
            key = f"research_lines.{number}.{field.key}"
            value = line.get(field.key) if isinstance(line, dict) else None
            value = _default(key) if value is None else value
            keyed = FormField(
                key, field.kind, field.choices, field.minimum, field.maximum, field.step
            )
            shown.append(ShownField(keyed, _shown(value, field.kind), False, field.maximum))
        name = line.get("name") if isinstance(line, dict) else None
        groups.append(LineFields(number, str(name or number + 1), shown))
    return groups


def _line_field(key: str) -> FormField | None:
    """The field of a research line a form key names (None: not one)."""
    parts = key.split(".")
    if len(parts) != 3 or parts[0] != "research_lines" or not parts[1].isdigit():
        return None
    field = next((f for f in LINE_FIELDS if f.key == parts[2]), None)
    if field is None:
        return None
    return FormField(key, field.kind, field.choices, field.minimum, field.maximum, field.step)


def _literal(field: FormField, raw: str) -> str | None:
    """The TOML literal for a submitted value (None: not a value of this kind)."""
    if field.kind == "long":  # a JSON string is a TOML basic string; line breaks escaped
        return json.dumps(raw.replace("\r\n", "\n").strip(), ensure_ascii=False)
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
    """``text`` with ``key = literal`` set: its line (a multi-line array or string included)
    replaced, or the key added at the end of its table, the table added when missing. In
    ``research_lines.<n>.<key>`` the table is the n-th ``[[research_lines]]``."""
    *tables, name = key.split(".")
    index = int(tables.pop()) if tables and tables[-1].isdigit() else None
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
        places = [
            i
            for i, (_, header, array) in enumerate(headers)
            if header == table and array == (index is not None)
        ]
        if index is not None and index >= len(places):
            return text  # no such table: nothing to set
        place = places[index or 0] if places else None
        if place is None:
            return text.rstrip("\n") + f"\n\n[{table}]\n{name} = {literal}\n"
        start = headers[place][0] + 1
        end = headers[place + 1][0] if place + 1 < len(headers) else len(lines)
    assignment = re.compile(rf"^\s*{re.escape(name)}\s*=\s*(.*)$")
    for number in range(start, end):
        if (found := assignment.match(lines[number])) is None:
            continue
        last = _value_end(lines, number, end, found.group(1))
        lines[number : last + 1] = [f"{name} = {literal}"]
        return "\n".join(lines)
    insert = end
    while insert > start and not lines[insert - 1].strip():
        insert -= 1
    lines.insert(insert, f"{name} = {literal}")
    return "\n".join(lines)


def _value_end(lines: list[str], number: int, end: int, value: str) -> int:
    """The last line of the value that starts on line ``number`` (a multi-line array, or a
    multi-line string in triple quotes)."""
    quote = value[:3] if value.startswith(('"""', "'''")) else ""
    if quote:
        if value.count(quote) >= 2:
            return number
        last = number
        while last + 1 < end:
            last += 1
            if quote in lines[last]:
                return last
        return last
    last = number
    depth = lines[number].count("[") - lines[number].count("]")
    while depth > 0 and last + 1 < end:
        last += 1
        depth += lines[last].count("[") - lines[last].count("]")
    return last


def apply_fields(text: str, form: Mapping[str, str]) -> tuple[str, list[str]]:
    """``text`` with every field the reader changed (its value is not the one it was shown
    with) written in, the research lines' fields too; also the keys whose new value was not
    a value of the field's kind (left as they were)."""
    bad = []
    lines = [f for key in form if key.startswith("field.") and (f := _line_field(key[6:]))]
    for field in (*FIELDS, *lines):
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
