"""The paper read once (issue 22): a full text's reading is written once for every reader of
the home and kept per paper version, model and language; each reader pays only their own
part, written from the reading and their profile, and the verifier checks the joined brief.
Real papers (HTML and PDF), a strong model's answers split into the two halves
(tests/fixtures/model-answers/{reading,reader}-*.json), a loopback OpenAI-compatible
endpoint, real SQLite."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from paperbrief.llm import LLMClient
from paperbrief.models import DayFacts
from paperbrief.profile import LLMSettings, parse_profile
from paperbrief.store import open_store
from paperbrief.write import LLMWriter, OfflineWriter
from paperbrief.write.llm_writer import write_day_llm
from paperbrief.write.shared_read import reader_messages, reading_text
from paperbrief.write.verify import verify_digest
from tests.support import EXAMPLE_PROFILE, model_answers
from tests.support.llm_day import paper_of
from tests.support.openai_server import OpenAIServer, Reply

ANSWERS = model_answers.ANSWERS
PAPERS = ("2501.11120", "2304.02623")
pytestmark = pytest.mark.slow


def _half(kind: str, paper_id: str) -> dict[str, Any]:
    return json.loads((ANSWERS / f"{kind}-{paper_id}.json").read_text(encoding="utf-8"))


def _kind(body: dict[str, Any]) -> str:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    if "<picks>" in user:
        return "day"
    return "reading" if user.startswith("Write the reading of ONE paper") else "reader"


def _route(body: dict[str, Any]) -> Reply:
    kind, paper = _kind(body), paper_of(body)
    if kind == "day":
        return Reply(content=json.dumps(model_answers.day_answer(PAPERS), ensure_ascii=False))
    return Reply(content=json.dumps(_half(kind, paper), ensure_ascii=False))


def _second_reader():
    text = EXAMPLE_PROFILE.read_text(encoding="utf-8")
    return parse_profile(text.replace('name = "AI4SE PhD student"', 'name = "Lab mate"'))


def _write_day(server: OpenAIServer, store, profile, docs):
    settings = LLMSettings(model="strong-model", max_retries=0, backoff_base=0)
    client = LLMClient(settings, store.llm, api_key=None, day="2026-05-23", base_url=server.url)
    writer = LLMWriter(client, OfflineWriter(), store.readings)
    written = list(writer.write_briefs(model_answers.picks(docs), profile))
    assert all(w.fallback is None for w in written)
    briefs = [w.brief for w in written]
    facts = DayFacts(model_answers.DIGEST_DATE, model_answers.LISTING_DAY, 480)
    return write_day_llm(client, briefs, profile, facts, documents=docs)


@pytest.fixture(scope="module")
def two_readers(tmp_path_factory):
    docs = model_answers.documents()
    first, second = model_answers.profile(), _second_reader()
    folder = tmp_path_factory.mktemp("lab")
    with open_store(folder / "pb.db") as home, OpenAIServer(_route) as server:
        digests = []
        requests = []
        for profile in (first, second):
            before = len(server.requests)
            view = home.for_reader(profile.key)
            digests.append(_write_day(server, view, profile, docs))
            requests.append(server.requests[before:])
        readings = home.readings.count()
        calls = {p.key: home.for_reader(p.key).llm.calls() for p in (first, second)}
    return docs, (first, second), digests, requests, readings, calls


def test_the_second_reader_pays_only_their_own_part(two_readers):
    _, (first, second), _, requests, readings, calls = two_readers
    assert sorted(_kind(r) for r in requests[0]) == [
        "day",
        "reader",
        "reader",
        "reading",
        "reading",
    ]
    assert sorted(_kind(r) for r in requests[1]) == ["day", "reader", "reader"]
    assert readings == 2  # one per paper, kept for both readers

    def prompt(key: str, role: str) -> int:
        return sum(c.prompt_tokens for c in calls[key] if c.role == role)

    shared_first = prompt(first.key, "writer-reading") + prompt(first.key, "writer-reader")
    shared_second = prompt(second.key, "writer-reading") + prompt(second.key, "writer-reader")
    assert prompt(second.key, "writer-reading") == 0
    assert shared_second <= 0.25 * shared_first, (shared_second, shared_first)


def test_the_reading_prompt_names_no_reader_and_the_readers_prompt_no_full_text(two_readers):
    docs, (first, _), _, requests, _, _ = two_readers
    for body in requests[0]:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        if _kind(body) == "reading":
            assert "<reader_profile>" not in user
            assert not any(line.name in user for line in first.research_lines)
            assert "HomeCheck" not in user  # the reader's asset
        elif _kind(body) == "reader":
            assert "<reader_profile>" in user and 'part="reading"' in user
            paragraphs = [p for s in docs[paper_of(body)].sections for p in s.paragraphs]
            sent = [p for p in paragraphs if len(p) > 200 and p[:120] in user]
            assert not sent  # the reading and the abstract, never the paper's body again


def test_both_readers_digests_are_traced_to_the_papers(two_readers):
    docs, _, digests, _, _, _ = two_readers
    for digest in digests:
        report = verify_digest(digest, docs, model_answers.known())
        assert report.ok, [(c.section, c.text, c.findings) for c in report.untraced][:3]
        assert report.claims >= 30
    mine, theirs = digests
    assert [b.tldr for b in mine.briefs] == [b.tldr for b in theirs.briefs]  # one reading
    assert all(b.implications and b.implications.experiment for b in theirs.briefs)


def test_a_reading_is_kept_per_language_and_read_again_when_the_text_changes(tmp_path: Path):
    docs = model_answers.documents()
    english = parse_profile(
        EXAMPLE_PROFILE.read_text(encoding="utf-8").replace('language = "zh"', 'language = "en"', 1)
    )
    with open_store(tmp_path / "pb.db") as home, OpenAIServer(_route) as server:
        _write_day(server, home.for_reader("zh"), model_answers.profile(), docs)
        _write_day(server, home.for_reader("en"), english, docs)
        kinds = [_kind(r) for r in server.requests]
        assert kinds.count("reading") == 4  # zh and en each read both papers
        assert home.readings.count() == 4


def test_the_readers_part_sees_the_readings_citations(two_readers):
    docs, (first, _), digests, _, _, _ = two_readers
    brief = digests[0].briefs[0]
    from paperbrief.write.llm_writer import reading_plan

    plan = reading_plan(docs[brief.paper.id], first.llm)
    from paperbrief.models import PaperReading

    reading = PaperReading(
        paper_id=brief.paper.id, tldr=brief.tldr, result_notes=brief.result_notes,
        results=brief.results,
    )  # fmt: skip
    (_, user) = reader_messages(brief.scored, reading, plan, "the whole main body", first, "zh")
    assert "[T2.r2.c2" in reading_text(reading) and "[T2.r2.c2" in user["content"]
    assert "[E1]" in user["content"]  # the abstract with its unit ids


def test_the_split_answers_are_derived_from_the_strong_models_answers(tmp_path: Path):
    """The two halves are the one-call answers cut apart by the script, nothing added."""
    import subprocess
    import sys

    from tests.support import ROOT

    script = ANSWERS / "derive_split_answers.py"
    assert "EDITS" in script.read_text(encoding="utf-8")  # every cut is listed there
    subprocess.run([sys.executable, str(script), str(ROOT), str(tmp_path)], check=True,
                   capture_output=True)  # fmt: skip
    derived = sorted(p.name for p in tmp_path.glob("*.json"))
    assert len(derived) == 6
    for name in derived:
        assert (tmp_path / name).read_bytes() == (ANSWERS / name).read_bytes(), name
    reading = json.loads((ANSWERS / "reading-2501.11120.json").read_text(encoding="utf-8"))
    assert "我们" not in json.dumps(reading, ensure_ascii=False)
    assert not {"reason", "technique", "experiment", "trend"} & set(reading)
