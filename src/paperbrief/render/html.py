"""Render a Digest as a standalone HTML page (also the e-mail body and the web UI's page).

Rendered from the Digest itself through a Jinja2 template with autoescaping, so every piece
of paper text is escaped; only http(s) URLs are emitted as links or images. What the model
writes passes through ``rich.py`` (paragraphs, lists, ``<strong>``, ``<code>``, nothing else).
"""

from __future__ import annotations

import functools

from jinja2 import Environment, PackageLoader, select_autoescape

from paperbrief.labels import labels_for, stars_text
from paperbrief.models import OFFLINE_WRITER, Digest
from paperbrief.profile import Profile
from paperbrief.render.clean import readable
from paperbrief.render.links import annotate
from paperbrief.render.markdown import compact, front_matter
from paperbrief.render.rich import html_blocks, html_inline, html_item, plain


def _safe_url(url: str) -> str:
    return url if url.startswith(("https://", "http://")) else ""


@functools.cache
def _environment() -> Environment:
    """The digest's template environment, made once per process (as Jinja intends: its
    templates are compiled once); it is never changed after it is made."""
    environment = Environment(
        loader=PackageLoader("paperbrief", "render/templates"),
        autoescape=select_autoescape(["html", "j2"], default=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["stars"] = stars_text
    environment.filters["safe_url"] = _safe_url
    environment.filters["rich"] = html_blocks
    environment.filters["rich_inline"] = html_inline
    environment.filters["rich_item"] = html_item
    environment.filters["plain"] = plain
    environment.filters["compact"] = compact
    return environment


def render_html(digest: Digest, profile: Profile) -> str:
    """A complete, self-contained HTML document (inline CSS, no scripts)."""
    template = _environment().get_template("digest.html.j2")
    digest = readable(digest)
    return template.render(
        digest=annotate(digest),
        labels=labels_for(digest.language),
        offline_writer=OFFLINE_WRITER,
        meta=front_matter(digest, profile),
    )
