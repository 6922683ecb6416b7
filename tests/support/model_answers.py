"""A day written through the real LLM path with the shared model answers (tests, benchmarks).

Two real papers (tests/fixtures/fulltext), the strong model's honest deep reads of them
(tests/fixtures/model-answers, copied from ../shared), and a hand-written day synthesis in
the same style, served by the loopback OpenAI-compatible server to the real writer.
"""

from __future__ import annotations

import json
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

from paperbrief.fulltext import read_local_file
from paperbrief.llm import LLMClient
from paperbrief.models import DayFacts, Digest, Document, Paper, ScoredPaper
from paperbrief.profile import LLMSettings, Profile, load_profile
from paperbrief.store import Store
from paperbrief.write import LLMWriter, OfflineWriter
from paperbrief.write.llm_writer import write_day_llm
from tests.support import EXAMPLE_PROFILE, FIXTURES
from tests.support.llm_day import paper_of
from tests.support.openai_server import OpenAIServer, Reply

ANSWERS = FIXTURES / "model-answers"
PAPERS = {
    "2501.11120": FIXTURES / "fulltext" / "arxiv_html_2501.11120v1.html",
    "2304.02623": FIXTURES / "fulltext" / "arxiv_pdf_2304.02623v1.pdf",
}
# A made-up field-experiment paper (hand-written page and answer; see the README there).
SYNTHETIC = {"2605.99001": FIXTURES / "fulltext" / "synthetic_field_experiment.html"}
ANSWER_FILES = {
    "2501.11120": "brief-2501.11120.json",
    "2304.02623": "brief-2304.02623.json",
    "2605.99001": "brief-synthetic-field-experiment.json",
}
DAY_FILES = {
    ("2501.11120", "2304.02623"): "day-2501.11120+2304.02623.json",
    ("2605.99001",): "day-synthetic-field-experiment.json",
}
STARS = {"2501.11120": 2, "2304.02623": 1, "2605.99001": 3}
LINES = {
    "2501.11120": "基准与评测方法学",
    "2304.02623": "OpenHarmony 与新生语言工具链",
    "2605.99001": "Agent 边际价值实证",
}
DIGEST_DATE = date(2026, 5, 23)
LISTING_DAY = date(2026, 5, 22)
PAPERS_CONSIDERED = 480


def cited_answers(
    papers: tuple[str, ...] = tuple(PAPERS),
) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """The deep reads with the citations the writer prompt asks for, and the day synthesis
    citing them (``*.cited.json``: the shared answers with their units added)."""
    return {paper: answer(paper) for paper in papers}, day_answer(papers)


def _cited(name: str) -> Path:
    """The answer with the citations the writer prompt asks for (``*.cited.json``)."""
    cited = ANSWERS / name.replace(".json", ".cited.json")
    return cited if cited.exists() else ANSWERS / name


def answer(paper_id: str) -> dict[str, Any]:
    return json.loads(_cited(ANSWER_FILES[paper_id]).read_text(encoding="utf-8"))


def day_answer(papers: tuple[str, ...] = tuple(PAPERS)) -> dict[str, Any]:
    return json.loads(_cited(DAY_FILES[papers]).read_text(encoding="utf-8"))


def documents(papers: dict[str, Path] = PAPERS) -> dict[str, Document]:
    return {paper_id: read_paper_file(path) for paper_id, path in papers.items()}


@cache
def read_paper_file(path: Path) -> Document:
    """A fixture paper read once per process (a Document is a frozen value): the tests and
    benchmarks here write, render and verify from it, and ten of them ask for the same
    files, each PDF costing a bounded reader child (the reading itself is
    tests/test_fulltext_*.py's to prove)."""
    return read_local_file(path)


def profile() -> Profile:
    return load_profile(EXAMPLE_PROFILE)


def picks(docs: dict[str, Document]) -> list[tuple[ScoredPaper, Document]]:
    jobs = []
    for rank, (paper_id, document) in enumerate(docs.items(), 1):
        paper = Paper(
            id=paper_id,
            title=document.title,
            authors=document.authors or ("(authors not in the PDF)",),
            abstract=document.abstract,
            categories=("cs.CL", "cs.AI"),
            primary_category="cs.CL",
            version=1,
        )
        scored = ScoredPaper(paper, 1.0 / rank, STARS[paper_id], LINES[paper_id], rank=rank)
        jobs.append((scored, document))
    return jobs


def route(
    briefs: dict[str, dict[str, Any]] | None = None,
    day: dict[str, Any] | None = None,
    papers: tuple[str, ...] = tuple(PAPERS),
):
    """Each deep read gets its paper's answer; the synthesis gets the day answer."""
    prepared = briefs or {paper_id: answer(paper_id) for paper_id in papers}
    synthesis = day or day_answer(papers)

    def reply(body: dict[str, Any]) -> Reply:
        key = paper_of(body)
        content = synthesis if key == "day" else prepared.get(key)
        if content is None:
            return Reply(status=500, body=b'{"error": "unexpected request"}')
        return Reply(content=json.dumps(content, ensure_ascii=False))

    return reply


def write_llm_day(
    server: OpenAIServer,
    store: Store,
    *,
    strict: bool = False,
    docs: dict[str, Document] | None = None,
) -> tuple[Digest, dict[str, Document]]:
    """The day through the pipeline's LLM writer + write_day_llm against ``server``."""
    docs = docs or documents()
    settings = LLMSettings(model="strong-model", max_retries=0, backoff_base=0)
    client = LLMClient(settings, store.llm, api_key=None, day=str(DIGEST_DATE), base_url=server.url)
    reader = profile()
    writer = LLMWriter(client, OfflineWriter())
    briefs = [done.brief for done in writer.write_briefs(picks(docs), reader)]
    digest = write_day_llm(
        client,
        briefs,
        reader,
        DayFacts(DIGEST_DATE, LISTING_DAY, PAPERS_CONSIDERED),
        documents=docs,
        strict=strict,
    )
    return digest, docs


def known() -> list[str]:
    from paperbrief.prompts import describe_profile

    return [describe_profile(profile())]


def save(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


OFFLINE_PAPERS = {
    **PAPERS,
    "2501.10120": FIXTURES / "fulltext" / "arxiv_pdf_2501.10120v1.pdf",
    **SYNTHETIC,
}


def offline_day(papers: dict[str, Path] = OFFLINE_PAPERS) -> tuple[Digest, dict[str, Document]]:
    """The offline writer's digest of real full texts (what an online run without an LLM
    publishes): each pick read from its fixture file."""
    from paperbrief.write.offline import write_brief_offline, write_day_offline

    docs = documents(papers)
    reader = profile()
    briefs = []
    for rank, (paper_id, document) in enumerate(docs.items(), 1):
        paper = Paper(
            id=paper_id,
            title=document.title,
            authors=document.authors,
            abstract=document.abstract,
            categories=("cs.CL",),
            primary_category="cs.CL",
        )
        line = LINES.get(paper_id, reader.research_lines[0].name)
        scored = ScoredPaper(paper, 1.0 / rank, STARS.get(paper_id, 3), line, rank=rank)
        briefs.append(write_brief_offline(scored, document, reader))
    digest = write_day_offline(
        briefs,
        reader,
        DayFacts(DIGEST_DATE, LISTING_DAY, PAPERS_CONSIDERED),
        docs,
    )
    return digest, docs
