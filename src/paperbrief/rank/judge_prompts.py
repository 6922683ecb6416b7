"""The judge's prompts: the shared reader prefix, the per-paper message and the screen
message, exactly as the product sends them.

Every request of a day opens with the same system message (``prompts/judge_reader.md``: the
reader as ``judge_profile`` shows them, the taste block, the scale, safety; then the task and
the answer's schema), so providers serve it from their prefix cache; but the day's budget
counts it in every request, and the head the judge can read is the budget over that size
(``rank.screen.choose_head``). So it is kept compact: ``benchmarks/judge_requests.py sizes``
prints its parts in tokens (about 1.9k of a 2.25k per-paper request for the example reader
with full feedback, against 3.1k of 3.5k before issue 19).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from paperbrief import prompts
from paperbrief.llm.repair import with_schema
from paperbrief.models import Paper
from paperbrief.profile import Profile
from paperbrief.text import split_sentences

# Of a line's first ``prompts.KEY_PHRASES`` key phrases (as many as ``describe_profile``
# shows), those its description does not spell, at most NEW_PHRASES: the profile stands in
# every judge and screen request of the day.
NEW_PHRASES = 5


def _compact(schema: object, definitions: dict[str, Any]) -> object:
    """``schema`` without pydantic's generated ``title`` strings (no field is named so) and
    with its ``$ref``s to ``definitions`` written out in place (ours do not recurse)."""
    if isinstance(schema, dict):
        reference = schema.get("$ref")
        if isinstance(reference, str) and reference.startswith("#/$defs/"):
            return _compact(definitions[reference.removeprefix("#/$defs/")], definitions)
        return {
            k: _compact(v, definitions)
            for k, v in schema.items()
            if k != "$defs" and not (k == "title" and isinstance(v, str))
        }
    if isinstance(schema, list):
        return [_compact(v, definitions) for v in schema]
    return schema


class Answer(BaseModel):
    """An answer model whose JSON Schema, which the client appends to every request
    (``sent``), carries the structure and bounds only, written out in place: what each field
    means is said once, in the task's prompt file, and every word here is paid for in every
    request."""

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        full = super().model_json_schema(*args, **kwargs)
        schema = _compact(full, full.get("$defs", {}))
        assert isinstance(schema, dict)
        return schema


class JudgeVerdict(Answer):
    key: str
    relevance: int = Field(ge=0, le=100)
    stars: int = Field(ge=1, le=5)
    line: str = ""
    reason: str = Field(max_length=400)
    must_read: bool = False
    instructions: bool = False


class JudgeAnswer(Answer):
    papers: list[JudgeVerdict]


class ScreenVerdict(Answer):
    key: str
    relevance: int = Field(ge=0, le=100)


class ScreenAnswer(Answer):
    papers: list[ScreenVerdict]


def _folded(text: str) -> str:
    return " ".join(re.sub(r"[-_/]", " ", text).casefold().split())


def judge_profile(profile: Profile) -> str:
    """The reader as the judge's prefix shows them: ``prompts.describe_profile`` made
    compact, since this text is paid for in every request of the day. Each line keeps its
    name and label (``line_named`` reads them back), its description and the key phrases
    its description does not already spell (hyphens and case aside; Chinese key phrases
    only for a line without English ones: the papers are in English). Assets and avoided
    topics on one line each."""
    out = [f"Reader: {profile.name}", "Research lines (strongest first):"]
    for number, line in enumerate(profile.research_lines, 1):
        description = " ".join(line.description.split())
        seen = _folded(description)
        phrases = (line.keywords or line.keywords_zh)[: prompts.KEY_PHRASES]
        extra = [k for k in phrases if _folded(k) not in seen][:NEW_PHRASES]
        also = f" Also: {', '.join(extra)}." if extra else ""
        out.append(
            f"Line {number} — {line.name}{prompts.priority_note(line.weight)}: {description}{also}"
        )
    if profile.assets:
        assets = [f"{a.name} ({a.kind}): {' '.join(a.description.split())}" for a in profile.assets]
        out.append("Assets: " + "; ".join(a.rstrip(".") for a in assets) + ".")
    if profile.avoid:
        out.append(prompts.avoided_topics(profile))
    return "\n".join(out)


def reader_prefix(profile: Profile, taste: str) -> str:
    return prompts.load("judge_reader").substitute(profile=judge_profile(profile), taste=taste)


def judge_system(profile: Profile, taste: str) -> str:
    task = prompts.load("judge").substitute(language=prompts.LANGUAGE_NAMES[profile.language])
    return reader_prefix(profile, taste) + task


def screen_system(profile: Profile, taste: str) -> str:
    return reader_prefix(profile, taste) + prompts.load("screen").template


def _untrusted(text: str) -> str:
    return " ".join(prompts.defuse(text).split())


def judge_message(papers: Sequence[Paper], keys: Sequence[str]) -> str:
    """The user message of a full reading: each paper's title, categories and abstract."""
    blocks = [
        f'<paper key="{key}">\nTitle: {_untrusted(p.title)}\n'
        f"Categories: {', '.join(p.categories)}\n"
        f"Abstract: {_untrusted(p.abstract)}\n</paper>"
        for key, p in zip(keys, papers, strict=True)
    ]
    head = (
        f"Rate this paper (key {keys[0]})."
        if len(keys) == 1
        else (f"Rate these papers ({len(keys)}, keys {keys[0]}..{keys[-1]}).")
    )
    return head + "\n\n" + "\n\n".join(blocks)


_CONTRIBUTION = re.compile(
    r"\b(we|our|this (paper|work|study)|in this (paper|work)|here)\b", re.IGNORECASE
)
GIST_WORDS = 35


def gist(paper: Paper) -> str:
    """The abstract's first sentence that says what the authors did (else its first
    sentence), cut to ``GIST_WORDS`` words."""
    sentences = split_sentences(" ".join(paper.abstract.split()))
    if not sentences:
        return ""
    chosen = next((s for s in sentences if _CONTRIBUTION.search(s)), sentences[0])
    words = chosen.split()
    return " ".join(words[:GIST_WORDS]) + (" …" if len(words) > GIST_WORDS else "")


def screen_message(papers: Sequence[Paper], keys: Sequence[str]) -> str:
    blocks = [
        f'<paper key="{key}">\nTitle: {_untrusted(p.title)}\nGist: {_untrusted(gist(p))}\n</paper>'
        for key, p in zip(keys, papers, strict=True)
    ]
    return f"Screen these papers ({len(keys)}, keys {keys[0]}..{keys[-1]}).\n\n" + "\n\n".join(
        blocks
    )


def judge_messages(
    profile: Profile, taste: str, papers: Sequence[Paper], keys: Sequence[str]
) -> list[dict[str, str]]:
    """A full reading's messages as the judge hands them to the LLM client (which appends
    the answer's JSON Schema to the system message: ``sent``)."""
    return [
        {"role": "system", "content": judge_system(profile, taste)},
        {"role": "user", "content": judge_message(papers, keys)},
    ]


def screen_messages(
    profile: Profile, taste: str, papers: Sequence[Paper], keys: Sequence[str]
) -> list[dict[str, str]]:
    """A screen's messages as the judge hands them to the LLM client."""
    return [
        {"role": "system", "content": screen_system(profile, taste)},
        {"role": "user", "content": screen_message(papers, keys)},
    ]


def sent(messages: list[dict[str, str]], schema: type[BaseModel]) -> list[dict[str, str]]:
    """Exactly what goes to the provider: the messages with the schema the client appends."""
    return with_schema(messages, schema)


class AddressAnswer(Answer):
    sentences: list[str] = Field(default_factory=list, max_length=6)


def address_messages(paper: Paper) -> list[dict[str, str]]:
    """The steering check's question about one risen paper (``prompts/reader_addresses.md``:
    which of its sentences speak to whoever rates it?), asked without the reader prefix."""
    block = (
        f"<paper>\nTitle: {_untrusted(paper.title)}\n"
        f"Abstract: {_untrusted(paper.abstract)}\n</paper>"
    )
    return [
        {"role": "system", "content": prompts.load("reader_addresses").substitute()},
        {"role": "user", "content": block},
    ]
