"""The blog post and the page under hostile values (issue 21, tests/faults.md): a front
matter planted to end early and open a script, written by PyYAML and read back by it; and
terminal escapes, C1 controls and bidi overrides in the model's fields, which never reach
the Markdown or the HTML raw. The post is read back by a real YAML parser and a real
CommonMark renderer (markdown-it-py)."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import date

import yaml
from markdown_it import MarkdownIt

from paperbrief.models import Digest
from paperbrief.profile import parse_profile
from paperbrief.render import render_html, render_markdown
from paperbrief.store import codec
from tests.support import FIXTURES

DELIVER = FIXTURES / "deliver"
HOSTILE = "\x1b]0;pwned\x07\x1b[31mred\x9b2J\u202eCleared\u2066"
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _sample() -> tuple[object, Digest]:
    profile = parse_profile((DELIVER / "profile.toml").read_text(encoding="utf-8"))
    digest = codec.decode(Digest, (DELIVER / "digest-2026-05-22.json").read_text("utf-8"))
    return profile, digest


def _front_matter(markdown: str) -> tuple[str, str]:
    assert markdown.startswith("---\n")
    block, _, body = markdown[4:].partition("\n---\n")
    return block, body


def test_a_front_matter_value_cannot_end_the_block_or_open_a_script():
    """`extra_front_matter` whose `date` carried `\\n---\\n<script>…` ended the post's front
    matter early and a raw script line became blog HTML. `profile check` refuses it now;
    planted past the check (as a bug would let one through), the renderer still holds."""
    profile, digest = _sample()
    planted = {
        "date": "2026-05-22\n---\n<script>steal()</script>",
        "cover: x\n---\n<b>": "y",
        "series": "a\r\nb",
    }
    output = profile.output.model_copy(update={"extra_front_matter": planted})
    profile = profile.model_copy(update={"output": output})
    digest = replace(digest, title="Day\n---\n<script>t()</script>")
    markdown = render_markdown(digest, profile)
    block, body = _front_matter(markdown)
    assert "\n---\n" not in "\n" + block + "\n"  # one block, closed where it should be
    assert "<script" not in block and "<b>" not in block
    data = yaml.safe_load(block)
    assert data["date"] == planted["date"]  # the value kept exactly, as data
    assert data["cover: x\n---\n<b>"] == "y" and data["series"] == "a\r\nb"
    assert data["title"] == "Day\n---\n<script>t()</script>"
    html = MarkdownIt("commonmark").render(body)
    assert "<script" not in html


def test_the_front_matter_reads_as_before_for_an_honest_profile():
    profile, digest = _sample()
    block, _ = _front_matter(render_markdown(digest, profile))
    assert "\ndate: 2026-05-22\n" in "\n" + block + "\n"  # a YAML date, unquoted
    data = yaml.safe_load(block)
    assert data["date"] == date(2026, 5, 22) and data["title"] == digest.title
    assert data["tags"] == list(profile.output.tags)


def test_controls_in_the_models_fields_never_reach_the_post_or_the_page():
    profile, digest = _sample()
    first = replace(
        digest.briefs[0],
        tldr="TLDR " + HOSTILE,
        reason="Reason " + HOSTILE,
        limitations=("Limit " + HOSTILE,),
    )
    digest = replace(
        digest,
        summary="Summary " + HOSTILE,
        theme="Theme " + HOSTILE,
        closing="Closing " + HOSTILE,
        briefs=(first, *digest.briefs[1:]),
    )
    markdown, html = render_markdown(digest, profile), render_html(digest, profile)
    for output in (markdown, html):
        assert not CONTROLS.search(output), CONTROLS.findall(output)
        assert "Cleared" in output and "TLDR" in output  # the words stay, inert
