"""Checks the profile model runs on its values: arXiv's taxonomy, the tz database, the
templates (rendered once here, so a typo is caught by `profile check`, not by the
morning's run)."""

from __future__ import annotations

import difflib
import re
import string
import zoneinfo
from functools import cache
from importlib import resources
from urllib.parse import urlsplit


@cache
def time_zones() -> frozenset[str]:
    """The tz database's zone names (the system's, else the ``tzdata`` package's)."""
    return frozenset(zoneinfo.available_timezones())


@cache
def arxiv_categories() -> frozenset[str]:
    """arXiv's subject classes and archives (``data/arxiv-categories.txt``)."""
    text = (resources.files("paperbrief") / "data" / "arxiv-categories.txt").read_text("utf-8")
    return frozenset(
        line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
    )


def check_category(category: str) -> str:
    """``category`` if arXiv has it; otherwise ValueError with a case hint or the closest."""
    known = arxiv_categories()
    if category in known:
        return category
    by_case = {name.casefold(): name for name in known}
    if category.casefold() in by_case:
        raise ValueError(
            f"{category!r}: arXiv categories are case-sensitive; write"
            f" {by_case[category.casefold()]!r}"
        )
    close = difflib.get_close_matches(category, sorted(known), n=2)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise ValueError(
        f"{category!r} is not an arXiv category (see arxiv.org/category_taxonomy){hint}"
    )


def check_template(template: str, *, file_name: bool = False) -> str:
    """``template`` if it renders with ``{date}`` alone (and, for a file name, stays one
    plain name); raises ValueError saying what is wrong. Rendered once here, so a typo
    such as ``{day}`` or ``{0}`` is caught by `profile check`, not by the morning's run."""
    try:
        fields = list(string.Formatter().parse(template))
    except ValueError as error:
        raise ValueError(
            f"{template!r} is not a valid template ({error}); write braces as {{{{ and }}}}"
        ) from None
    for _, name, spec, conversion in fields:
        if name is None:
            continue
        if name != "date" or spec or conversion:
            raise ValueError(
                f"{template!r}: only {{date}} may be used (found {{{name}}});"
                " write a literal brace as {{ or }}"
            )
    rendered = template.format(date="2026-01-01")
    if file_name and (
        not rendered.strip()
        or "/" in rendered
        or "\\" in rendered
        or rendered in (".", "..")
        or rendered.startswith("..")
        or "\0" in rendered
    ):
        raise ValueError(
            f"{template!r} must be a plain file name (no folders, no '..'):"
            " it is always written inside its configured folder"
        )
    return template


# Characters that end a header line or steer a terminal: C0 (tab included), DEL, C1 and
# the Unicode line and paragraph separators. A header-bound setting (a subject, a title,
# an address) holds none of them: a line break in one either fails the send or adds a
# header of the writer's choosing.
_BREAKING = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
LINK_SCHEMES = ("https", "http")


def check_single_line(value: str) -> str:
    """``value`` if it has no line break or control character; else ValueError."""
    found = _BREAKING.search(value)
    if found:
        raise ValueError(
            f"must be one line of text: {value[:60]!r} holds {found.group()!r}"
            " (a line break or control character)"
        )
    return value


def check_link(template: str) -> str:
    """An empty link or an absolute URL of ``LINK_SCHEMES`` with a host, ``{date}`` its only
    field; anything else raises ValueError (a link goes into every e-mail, post and feed)."""
    if not template:
        return template
    check_single_line(template)
    check_template(template)
    parts = urlsplit(template.format(date="2026-01-01"))
    if parts.scheme.lower() not in LINK_SCHEMES or not parts.hostname:
        raise ValueError(
            f"{template[:80]!r} is not an http(s) address; write e.g."
            " 'https://blog.example/{date}/'"
        )
    if parts.username is not None or parts.password is not None or " " in template:
        raise ValueError(f"{template[:80]!r}: a link may hold no user name, password or space")
    return template


FRONT_MATTER_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")


def check_front_matter_key(key: str, reserved: frozenset[str]) -> str:
    """A key the blog's YAML reads as a plain name, and not one the digest writes itself."""
    if not FRONT_MATTER_KEY.fullmatch(key):
        raise ValueError(
            f"front-matter key {key[:40]!r}: use letters, digits, '-' and '_', starting with"
            " a letter"
        )
    if key in reserved:
        raise ValueError(
            f"front-matter key {key!r} is written by the digest itself; set it with its own"
            " [output] setting"
        )
    return key
