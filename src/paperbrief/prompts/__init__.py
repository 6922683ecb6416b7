"""Prompts: the prompt files beside this module, and what every prompt needs.

* ``load(name)``: ``prompts/<name>.md`` as a ``string.Template`` (prompts are files, not
  string literals in code);
* ``defuse(text)``: untrusted text (titles, abstracts, full text, captions, anything derived
  from them) made safe to place between our ``<paper>`` / ``<picks>`` delimiters;
* ``describe_profile(profile)``: the reader as the judge and the writers see them;
* ``line_named(answer, profile)``: the research line a model's answer names, as
  ``describe_profile`` showed it;
* ``LANGUAGE_NAMES`` / ``LANGUAGE_STYLE``: how prompts name the digest's language.
"""

from __future__ import annotations

import re
from importlib import resources
from string import Template

from paperbrief.profile import Profile

_DELIMITER = re.compile(r"<\s*/?\s*(paper|picks)", re.IGNORECASE)
# How prompts name each of the digest's languages (profile.LANGUAGES), and its house style.
LANGUAGE_NAMES = {"zh": "Chinese (简体中文)", "en": "English"}
LANGUAGE_STYLE = {
    "zh": "用中文写作，英文术语（模型名、benchmark、指标、方法名）保留英文原文；"
    "把读者的研究组称为“我们”。超出原文的推断标一次“推断：”（整段都是推断时只在段首标一次）。",
    "en": "Address the reader's group as 'we'. Mark an extrapolation once with"
    " 'Extrapolation:' (once at the start when a whole section is one).",
}


KEY_PHRASES = 8  # a line's key phrases a prompt shows


def load(name: str) -> Template:
    """A prompt file of the package (``paperbrief/prompts/<name>.md``)."""
    text = (resources.files("paperbrief") / "prompts" / f"{name}.md").read_text(encoding="utf-8")
    return Template(text)


def defuse(text: str) -> str:
    """Untrusted text that cannot open or close our delimiting tags: no spelling of
    ``<paper``, ``</paper``, ``<picks`` or ``</picks`` (any case, any spacing) survives."""
    return _DELIMITER.sub(lambda match: "‹" + match.group(0)[1:], text)


def priority_note(weight: float) -> str:
    """The note after a line's name in every prompt that shows the reader (``line_named``
    strips it from a model's answer)."""
    if weight > 1.0:
        return " [high priority]"
    if weight < 1.0:
        return " [lower priority]"
    return ""


_LINE_LABEL = re.compile(r"^\s*line\s*(\d+)\s*(?:[—–:-]+\s*)?", re.IGNORECASE)
_LINE_NOTE = re.compile(r"\s*\[(?:high|lower) priority\]\s*$", re.IGNORECASE)


def line_named(answer: str, profile: Profile) -> str | None:
    """The profile's line an answer names, or "" for an empty answer (no line), or None
    when it names none of them. A model copies what ``describe_profile`` showed it, so
    "基准与评测方法学", "Line 5 — 基准与评测方法学", "Line 5", "基准与评测方法学 [high
    priority]" and "5" all name line 5; a label and a name that disagree name nothing."""
    text = " ".join(answer.split())
    if not text:
        return ""
    names = [line.name for line in profile.research_lines]
    folded = {" ".join(name.split()).casefold(): name for name in names}
    if text.casefold() in folded:  # the exact name first: a line may be called "Line 2"
        return folded[text.casefold()]
    label = _LINE_LABEL.match(text)
    if label:
        number, rest = int(label.group(1)), text[label.end() :]
    elif text.isdigit():
        number, rest = int(text), ""
    else:
        number, rest = None, text
    rest = _LINE_NOTE.sub("", rest).strip(" \"'“”")
    named = folded.get(rest.casefold()) if rest else None
    if number is None:
        return named
    by_number = names[number - 1] if 1 <= number <= len(names) else None
    return by_number if not rest or named == by_number else None


def describe_profile(profile: Profile) -> str:
    """The reader profile as compact text for prompts: lines (strongest first, with their
    key phrases), assets, and what to avoid (with the cases where it is still fine)."""
    lines = [f"Reader: {profile.name}", "Research lines (strongest first):"]
    for number, line in enumerate(profile.research_lines, 1):
        keywords = ", ".join([*line.keywords[:KEY_PHRASES], *line.keywords_zh[:4]])
        lines.append(
            f"Line {number} — {line.name}{priority_note(line.weight)}:"
            f" {' '.join(line.description.split())} (keywords: {keywords})"
        )
    if profile.assets:
        lines.append("Assets the reader has:")
        lines.extend(f"- {a.name} ({a.kind}): {a.description}" for a in profile.assets)
    if profile.avoid:
        lines.append(avoided_topics(profile))
    return "\n".join(lines)


def avoided_topics(profile: Profile) -> str:
    """The reader's avoided topics as every prompt that shows the reader says them, each
    with the cases where it is still fine."""
    avoided = [
        topic.topic + (f" (fine when: {', '.join(topic.unless)})" if topic.unless else "")
        for topic in profile.avoid
    ]
    return "Less interested in: " + "; ".join(avoided)
