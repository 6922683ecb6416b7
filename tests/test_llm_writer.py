"""The LLM writer end to end against a real OpenAI-compatible server on 127.0.0.1: the
``LLMWriter`` strategy the pipeline runs (its one deep-read pool, its fallbacks) and the
day's synthesis."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from paperbrief.fulltext import read_local_file
from paperbrief.fulltext.roles import roled_sections
from paperbrief.labels import labels_for
from paperbrief.llm import LLMClient
from paperbrief.models import DayFacts, Document, Paper, PaperBrief, ScoredPaper
from paperbrief.profile import LLMSettings
from paperbrief.prompts import describe_profile
from paperbrief.render.markdown import render_markdown
from paperbrief.store import Store, open_store
from paperbrief.write import Briefs, LLMWriter, OfflineWriter, Written
from paperbrief.write.llm_writer import (
    day_messages,
    paper_messages,
    reading_plan,
    write_brief_llm,
    write_day_llm,
    writer_system_prompt,
)
from paperbrief.write.verify import verify_markdown
from tests.support.llm_day import load_profile, load_replies, paper_of, picks, route_replies
from tests.support.openai_server import OpenAIServer, Reply

DAY = date(2026, 5, 24)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    with open_store(tmp_path / "paperbrief.db") as opened:
        yield opened


def client_for(server: OpenAIServer, store: Store, **overrides) -> LLMClient:
    settings = LLMSettings(model="test-writer", max_retries=0, backoff_base=0, **overrides)
    return LLMClient(settings, store.llm, api_key=None, day="2026-05-24", base_url=server.url)


def abstract_document(brief: PaperBrief) -> Document:
    paper = brief.paper
    return Document(paper.id, paper.title, paper.authors, paper.abstract, source="abstract")


def write_briefs(client: LLMClient, jobs, profile=None) -> list[Written]:
    """The pipeline's writer for ``client``: every pick's deep read, in pick order."""
    return list(LLMWriter(client, OfflineWriter()).write_briefs(jobs, profile or load_profile()))


def write_day(client: LLMClient, jobs):
    profile = load_profile()
    writer = LLMWriter(client, OfflineWriter())
    written = list(writer.write_briefs(jobs, profile))
    documents = {scored.paper.id: doc for scored, doc in jobs if doc is not None}
    fell_back = frozenset(done.brief.paper.id for done in written if done.fallback)
    briefs = Briefs([done.brief for done in written], documents, fell_back)
    composed = writer.write_day(briefs, profile, DayFacts(DAY, date(2026, 5, 22), 50))
    return composed.digest, documents, written, composed


def test_writes_a_full_day_end_to_end(store):
    jobs = picks()
    with OpenAIServer(route_replies()) as server:
        digest, documents, written, composed = write_day(client_for(server, store), jobs)
        assert server.request_count == 4  # three deep reads + one synthesis
    assert not [done for done in written if done.fallback] and composed.fallback is None
    assert {done.writer for done in written} == {"test-writer"} == {composed.writer}
    first, second, third = digest.briefs
    assert [b.paper.id for b in digest.briefs] == ["2605.10001", "2605.10002", "2605.10003"]
    assert third.text_source == "abstract" and third.notes
    assert "41.3%" in first.tldr and first.text_source == "arxiv-html"
    assert first.results is not None and first.results.rows[0][-1].startswith("Table 2 [T2.")
    assert first.results.header == ("任务 / 基准", "设置 / 指标", "基线", "本文", "变化", "出处")
    assert first.figure is not None and first.figure.url.endswith("/x1.png")
    assert first.implications is not None and "1–2 周" in first.implications.experiment
    assert len(first.steps) == 3 and first.limitations and first.open_questions
    assert digest.theme_title == "分工比规模更重要" and "41.3%" in digest.summary
    (comparison,) = digest.comparisons
    assert comparison.columns == ("StaticFirst", "TestValue", "ArkTS-LoRA")
    assert comparison.rows[0] == ("核心方法", ("静态定位 + LLM 修复", "事后轨迹分析", "LoRA 微调"))
    provenance = digest.provenance
    assert provenance is not None and provenance.writer == "test-writer"
    assert provenance.prompt_tokens > 1000 and provenance.completion_tokens > 100
    assert provenance.numbers_checked >= 10
    assert provenance.numbers_verified == provenance.numbers_checked, provenance.notes
    markdown = render_markdown(digest, load_profile())
    documents["2605.10003"] = abstract_document(third)
    report = verify_markdown(markdown, documents, known=[describe_profile(load_profile())])
    assert report.ok and report.claims == provenance.numbers_checked
    outcomes = [row.outcome for row in store.llm.calls()]
    roles = [row.role for row in store.llm.calls()]
    assert outcomes == ["ok"] * 4 and sorted(roles) == ["writer"] * 3 + ["writer-day"]


def test_deep_reads_run_at_once_and_come_back_in_pick_order(store):
    """The pipeline's one pool: the picks' deep reads are in flight together (up to the
    client's concurrency) and handed back in pick order, the slowest first one included."""
    replies = load_replies()

    def route(body: dict) -> Reply:
        key = paper_of(body)
        slow = 0.6 if key == "2605.10001" else 0.1
        return Reply(content=json.dumps(replies[key], ensure_ascii=False), delay=slow)

    with OpenAIServer(route) as server:
        written = write_briefs(client_for(server, store, concurrency=3), picks())
        assert server.max_in_flight == 3
    assert [done.brief.paper.id for done in written] == ["2605.10001", "2605.10002", "2605.10003"]
    assert all(done.fallback is None for done in written)


def test_abstract_only_pick_is_written_as_such(store):
    scored, document = picks()[2]
    assert document is None
    with OpenAIServer(route_replies()) as server:
        (done,) = write_briefs(client_for(server, store), [(scored, None)])
        brief = done.brief
        prompt = server.requests[0]["messages"][1]["content"]
    assert "ONLY THE ABSTRACT IS AVAILABLE" in prompt and "source_gaps" in prompt
    assert "[E1] We fine-tune Qwen2.5-Coder-7B" in prompt  # the abstract's units, citable
    assert brief.text_source == "abstract"
    assert brief.notes == (labels_for("zh").abstract_only,)
    assert brief.figure is None


def test_injected_instruction_stays_inside_the_paper_block(store):
    jobs = picks()[:2]
    with OpenAIServer(route_replies()) as server:
        briefs = [done.brief for done in write_briefs(client_for(server, store), jobs)]
        requests = {paper_of(body): body["messages"] for body in server.requests}
    clean, injected = requests["2605.10001"], requests["2605.10002"]
    # The instructions are the same fixed text for every paper.
    assert clean[0] == injected[0] == {"role": "system", "content": clean[0]["content"]}
    assert "IGNORE ALL PREVIOUS" not in clean[0]["content"]
    assert clean[0]["content"].startswith(writer_system_prompt("zh"))
    # The injected text sits only inside the delimited paper data and cannot close it.
    user = injected[1]["content"]
    start = user.index('<paper id="2605.10002" part="text"')
    assert user.index("IGNORE ALL PREVIOUS") > start
    # three delimited blocks (pick reason, figures, text); none closed by the paper
    assert user.count("</paper>") == 3 and user.rstrip().endswith("</paper>")
    assert "IGNORE ALL PREVIOUS" not in clean[1]["content"]
    # The other paper's answer is untouched and the schema still applied.
    assert briefs[0].tldr.startswith("StaticFirst")
    assert briefs[1].direction == "agent 评测方法学"


def test_a_failed_pick_falls_back_then_a_rerun_makes_no_repeated_call(store):
    jobs = picks()
    replies_without_third = load_replies()
    third = replies_without_third.pop("2605.10003")
    with OpenAIServer(route_replies(replies_without_third)) as server:
        written = write_briefs(client_for(server, store), jobs)
        first_run = server.request_count
    finished = [done.brief for done in written if done.fallback is None]
    assert sorted(b.paper.id for b in finished) == ["2605.10001", "2605.10002"]
    assert first_run == 3  # two deep reads, then the third paper failed (no retries)
    failed = written[2]  # in pick order: the third pick keeps its offline brief, saying so
    assert failed.fallback is not None and failed.fallback.part == "brief"
    assert failed.fallback.paper_id == "2605.10003" and failed.writer == "offline"
    assert failed.brief.notes[0].startswith("本篇深读未能由大语言模型完成")
    with OpenAIServer(route_replies({**replies_without_third, "2605.10003": third})) as server:
        digest, _, _, _ = write_day(client_for(server, store), jobs)
        resumed = [paper_of(body) for body in server.requests]
    assert sorted(resumed) == ["2605.10003", "day"]  # the two finished papers were not re-asked
    assert len(digest.briefs) == 3
    assert [r.outcome for r in store.llm.calls()].count("cached") == 2


def test_budget_exhausted_stops_the_day(store):
    jobs = picks()[:2]
    with OpenAIServer(route_replies()) as server:
        client = client_for(server, store, daily_token_budget=3000, concurrency=1)
        digest, _, written, composed = write_day(client, jobs)
        assert server.request_count == 1
    assert "budget-exhausted" in [call.outcome for call in store.llm.calls()]
    # What the budget did not cover fell back, and says it was the budget.
    reasons = [done.fallback.reason if done.fallback else None for done in written]
    assert sorted(reasons, key=str) == [None, "budget"]  # one deep read paid, one refused
    assert composed.fallback is not None and composed.fallback.reason == "budget"
    assert [b.paper.id for b in digest.briefs] == [s.paper.id for s, _ in jobs]


def test_invalid_answer_is_repaired_with_the_validation_error(store):
    scored, document = picks()[0]
    with OpenAIServer(route_replies()) as server:
        server.push(Reply(content='{"tldr": "only half an answer"}'))
        (done,) = write_briefs(client_for(server, store), [(scored, document)])
        assert server.request_count == 2 and done.fallback is None
        brief = done.brief
        repair = server.requests[1]["messages"][-1]["content"]
    assert "validation error" in repair and "reason" in repair and "Field required" in repair
    assert brief.tldr.startswith("StaticFirst")


def test_english_digest_uses_english_headers(store):
    scored, document = picks()[0]
    with OpenAIServer(route_replies()) as server:
        english = load_profile().model_copy(update={"language": "en"})
        (done,) = write_briefs(client_for(server, store), [(scored, document)], english)
        brief = done.brief
        system = server.requests[0]["messages"][0]["content"]
    assert "Write prose in English" in system
    assert brief.results is not None and brief.results.header[-1] == "Source"


def _with_wrong_number() -> dict:
    replies = load_replies()
    replies["2605.10001"]["tldr"] += "推理延迟降低 93%。"
    return replies


def test_unsupported_number_is_flagged_in_the_provenance(store):
    with OpenAIServer(route_replies(_with_wrong_number())) as server:
        digest, _, _, _ = write_day(client_for(server, store), picks())
    provenance = digest.provenance
    assert provenance.numbers_verified == provenance.numbers_checked - 1
    traced = provenance.numbers_verified
    assert provenance.notes == (
        f"{traced} 条论断可追溯到原文的句子或表格单元格；1 条未能追溯，已标 ⚠。",
    )
    (note,) = provenance.trace.untraced
    assert (note.paper, note.section, note.reason) == (
        "2605.10001",
        "tldr",
        "citation: no citation",
    )
    assert "推理延迟降低 93%。 ⚠" in render_markdown(digest, load_profile())


def test_strict_drops_the_unsupported_claim_before_the_day_is_written(store):
    with OpenAIServer(route_replies(_with_wrong_number())) as server:
        profile = load_profile()
        client = client_for(server, store)
        briefs = [done.brief for done in write_briefs(client, picks(), profile)]
        digest = write_day_llm(
            client,
            briefs,
            profile,
            DayFacts(DAY, DAY, 3),
            documents={s.paper.id: d for s, d in picks() if d is not None},
            strict=True,
        )
        day_prompt = server.requests[-1]["messages"][1]["content"]
    assert "93%" not in digest.briefs[0].tldr and "41.3%" in digest.briefs[0].tldr
    assert "93%" not in day_prompt
    assert digest.provenance.numbers_verified == digest.provenance.numbers_checked


def test_prompts_are_package_files_with_every_placeholder_filled():
    from importlib import resources

    names = sorted(p.name for p in (resources.files("paperbrief") / "prompts").iterdir())
    assert {"day_synthesis.md", "paper_brief.md", "system.md"} <= set(names)
    profile = load_profile()
    for scored, document in picks():
        for message in paper_messages(scored, document, profile, "zh"):
            assert "$" not in message["content"].replace("$PAPERBRIEF", "")
    digest_prompt = day_messages([], profile, "en", 10)[1]["content"]
    assert "$" not in digest_prompt and "<picks>\n[]\n</picks>" in digest_prompt


def test_a_long_paper_is_read_in_two_passes_and_nothing_of_it_is_skipped(store):
    """A paper longer than the budget: every part is read into notes first (with no
    reader in the prompt: the notes are the paper's), then one deep read from the notes,
    the main tables, the limitations and the conclusion; the brief cites the paper's units."""
    from tests.support import FIXTURES
    from tests.support.openai_server import Reply

    document = read_local_file(FIXTURES / "fulltext" / "arxiv_html_2501.11120v1.html")
    paper = Paper("2501.11120", document.title, document.authors, document.abstract,
                  ("cs.CL",), "cs.CL", version=1)  # fmt: skip
    scored = ScoredPaper(paper, 1.0, 3, "Agent Marginal Value", rank=1)
    answer = json.loads((FIXTURES / "model-answers" / "brief-2501.11120.cited.json").read_text())

    def route(body):
        user = body["messages"][1]["content"]
        if user.startswith("Read part"):
            note = {"section": "3.3 Finetuning on vulnerable code", "does": "results",
                    "summary": "Code models report their own insecurity.",
                    "findings": ["Models finetuned on vulnerable code report a much lower"
                                 " code security score [E159]."]}  # fmt: skip
            return Reply(content=json.dumps({"sections": [note]}))
        return Reply(content=json.dumps(answer, ensure_ascii=False))

    profile = load_profile()
    short = profile.model_copy(
        update={"llm": profile.llm.model_copy(update={"paper_text_tokens": 8000,
                                                       "reading_chunk_tokens": 5000})}
    )  # fmt: skip
    with OpenAIServer(route) as server:
        brief = write_brief_llm(client_for(server, store), scored, document, short)
        users = [body["messages"][1]["content"] for body in server.requests]
    notes, (deep,) = users[:-1], users[-1:]
    assert len(notes) >= 2 and all(u.startswith("Read part") for u in notes)
    assert not any("Research lines" in u for u in notes)  # no reader in the first pass
    sent = "\n".join(notes)
    roled = roled_sections(document)
    for (index, _), units in reading_plan(document, short.llm).units.paragraphs.items():
        if not roled[index].appendix:
            assert all(f"[{unit}] " in sent for unit in units)
    assert "## Notes of a first reading pass" in deep and "[E159]" in deep
    assert "7 Limitations and future work" in deep and "**Table 2**" in deep
    assert brief.tldr.startswith("作者在只演示")
    roles = sorted({row.role for row in store.llm.calls()})
    assert roles == ["writer", "writer-notes"]
