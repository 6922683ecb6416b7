"""The honest digests the verifier is measured on (tests/test_planted_errors.py and
benchmarks/verify_bench.py): written by paperbrief itself, through the LLM path with the
shared model answers and through the offline writer."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from paperbrief.models import Document
from paperbrief.render import render_markdown
from paperbrief.store import open_store
from tests.support import model_answers
from tests.support.openai_server import OpenAIServer


@dataclass(frozen=True)
class HonestDigest:
    name: str
    markdown: str
    documents: dict[str, Document]


def llm_digests() -> list[HonestDigest]:
    """The shared answers' day (two real papers) and the field-experiment day, each written
    by the LLM writer + write_day_llm against a loopback endpoint, rendered."""
    days = [
        ("llm: shared answers (2501.11120 + 2304.02623)", model_answers.PAPERS),
        ("llm: field experiment (hand-written answer)", model_answers.SYNTHETIC),
    ]
    out = []
    for name, papers in days:
        route = model_answers.route(papers=tuple(papers))
        with (
            tempfile.TemporaryDirectory() as home,
            open_store(Path(home) / "db") as store,
            OpenAIServer(route) as server,
        ):
            docs = model_answers.documents(papers)
            digest, docs = model_answers.write_llm_day(server, store, docs=docs)
        out.append(HonestDigest(name, render_markdown(digest, model_answers.profile()), docs))
    return out


def offline_fulltext_digest() -> HonestDigest:
    digest, docs = model_answers.offline_day()
    markdown = render_markdown(digest, model_answers.profile())
    return HonestDigest("offline: full text of 4 fixture papers", markdown, docs)


def abstract_documents(markdown_digest_papers: dict[str, tuple[str, str]]) -> dict[str, Document]:
    """Documents of the stored abstracts (what `paperbrief verify` uses for an offline run)."""
    return {
        paper_id: Document(paper_id, title, (), abstract, source="abstract")
        for paper_id, (title, abstract) in markdown_digest_papers.items()
    }


def dense_digest(base: str, size: int) -> str:
    """``base`` grown to ``size`` bytes with number-dense result notes: copies of its own
    cited result-note lines (real numbers with their citation links, so they are traced
    there) — the shape that made the old verifier quadratic."""
    lines = base.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("**结果解读**")) + 2
    notes = []
    for line in lines[at:]:
        if not line.startswith("- "):
            break
        if "[↗](" in line:
            notes.append(line[2:])
    extra: list[str] = []
    index = 0
    while len(base.encode()) + sum(len(e.encode()) + 1 for e in extra) < size:
        extra.append(f"- 对比：{notes[index % len(notes)]}")
        index += 1
    return "\n".join(lines[:at] + extra + lines[at:])
