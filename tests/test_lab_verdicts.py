"""The judge's verdicts and screens are the reader's (issue 22): the judge reads each
reader's profile, so in a lab two readers' verdicts on one paper differ; each keeps their
own, learns from their own, and exports their own. Real SQLite, the lab's run path
(``lab.run_lab``), a real loopback OpenAI-compatible judge, the real embedding vectors."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.errors import EXIT_USAGE
from paperbrief.lab import load_readers, reader_files, run_lab
from paperbrief.llm import LLMClient
from paperbrief.models import Signal
from paperbrief.pipeline import RunOptions
from paperbrief.profile import LLMSettings
from paperbrief.rank.judge import load_replay
from paperbrief.rank.reader import gather_evidence
from paperbrief.services import Services
from paperbrief.store import open_store
from tests.support.openai_server import OpenAIServer, Reply
from tests.support.pipeline_llm import kind_of
from tests.test_lab import LISTING, TODAY, _reader_profile

pytestmark = pytest.mark.slow
LISTING_DAY = date(2026, 5, 22)
ALICE, BOB = "Reader 00", "Reader 02"  # lines 0-1 and 2-3 of the example profile
ALICE_LINE = "Agent 边际价值实证"  # only Reader 00's profile names it
# What the judge answers for each reader: the same papers, opposite verdicts.
ANSWERS = {ALICE: {"screen": 91, "relevance": 88, "stars": 5}, BOB: {"screen": 7, "relevance": 9,
                                                                     "stars": 1}}  # fmt: skip


def _whose(body: dict[str, Any]) -> str:
    text = json.dumps(body["messages"], ensure_ascii=False)
    return ALICE if ALICE_LINE in text else BOB


def _judge(body: dict[str, Any]) -> Reply:
    """Screens and verdicts by whose profile the prompt carries; every other request (the
    writer's) fails, so the digest is written offline and only the judge is served."""
    kind = kind_of(body)
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    answer = ANSWERS[_whose(body)]
    if kind == "screen":
        keys = re.findall(r'<paper key="(S\d+)">', user)
        papers = [{"key": k, "relevance": answer["screen"]} for k in keys]
        return Reply(content=json.dumps({"papers": papers}))
    if kind == "judge":
        keys = re.findall(r'<paper key="(P\d+)">', user)
        papers = [
            {"key": k, "relevance": answer["relevance"], "stars": answer["stars"], "line": "",
             "reason": f"judged for {_whose(body)}"}
            for k in keys
        ]  # fmt: skip
        return Reply(content=json.dumps({"papers": papers}))
    if kind == "addresses":
        return Reply(content=json.dumps({"sentences": []}))
    return Reply(status=500, body=b'{"error": {"message": "only the judge is served here"}}')


@pytest.fixture(scope="module")
def lab_home(tmp_path_factory, pipeline_vectors):
    """Two readers of one home, run by `run --all`'s path with an LLM judge: Alice, then
    Bob, whose verdicts on the papers both were judged on would overwrite hers if verdicts
    were the home's."""
    root = tmp_path_factory.mktemp("lab")
    folder = root / "readers"
    folder.mkdir()
    for index in (0, 2):
        text = _reader_profile(index, "http://127.0.0.1:9/unused")
        (folder / f"r{index}.toml").write_text(text, encoding="utf-8")
    settings = LLMSettings(model="judge", max_retries=0, backoff_base=0)
    with OpenAIServer(_judge) as server, open_store(root / "home" / "paperbrief.db") as home:
        pipeline_vectors.seed(home)

        def build(profile, view, embedder):
            client = LLMClient(settings, view.llm, api_key=None, day="2026-05-23",
                               base_url=server.url)  # fmt: skip
            return Services(embedder=embedder, llm=client, readings=view.readings)

        options = RunOptions(listing_file=LISTING, out_dir=root / "out", deliver=False)
        result = run_lab(home, load_readers(reader_files(folder)), options, build, today=TODAY)
        # Bob's judge rates every paper one star: his day has nothing to publish
        assert [o.status for o in result.outcomes] == ["fell-back", "empty"], result
        judged = {k for r in server.requests if (k := kind_of(r)) in ("screen", "judge")}
        assert judged == {"screen", "judge"}
    return root


def test_two_readers_judged_differently_keep_their_own_verdicts_and_screens(lab_home: Path):
    with open_store(lab_home / "home" / "paperbrief.db") as home:
        alice, bob = home.for_reader(ALICE), home.for_reader(BOB)
        hers, his = alice.verdicts.of_day(LISTING_DAY), bob.verdicts.of_day(LISTING_DAY)
        both = set(hers) & set(his)
        assert both  # the same papers were judged for each of them
        assert {(v.stars, v.relevance) for v in hers.values()} == {(5, 88)}
        assert {(v.stars, v.relevance) for v in his.values()} == {(1, 9)}
        assert {v.reason for v in hers.values()} == {f"judged for {ALICE}"}
        her_screens = alice.verdicts.screens_by_day()[LISTING_DAY.isoformat()]
        his_screens = bob.verdicts.screens_by_day()[LISTING_DAY.isoformat()]
        assert set(her_screens) & set(his_screens)
        assert set(her_screens.values()) == {91} and set(his_screens.values()) == {7}
        # a view stays its reader's whoever it is asked for; the home's sees both readers
        assert alice.verdicts.of(BOB).of_day(LISTING_DAY) == hers
        assert home.verdicts.readers() == [ALICE, BOB] and alice.verdicts.readers() == [ALICE]
        assert home.verdicts.of(BOB).of_day(LISTING_DAY) == his


def test_a_readers_evidence_reads_only_their_own_verdicts(lab_home: Path):
    """``rank.gather_evidence``, as ``rank.reader_of_day`` calls it on a reader's view: the
    judge and screen relevance of each paper the reader rated are what the judge said for
    them, never what it said for a lab-mate about the same paper."""
    with open_store(lab_home / "home" / "paperbrief.db") as home:
        alice, bob = home.for_reader(ALICE), home.for_reader(BOB)
        shared = sorted(set(alice.verdicts.of_day(LISTING_DAY)) & set(bob.verdicts.of_day(
            LISTING_DAY)))  # fmt: skip
        for paper_id in shared[:3]:
            alice.feedback.add(paper_id, Signal.UP)
            bob.feedback.add(paper_id, Signal.UP)
        next_day = date(2026, 5, 25)
        for view, (screen, relevance) in ((alice, (91, 88)), (bob, (7, 9))):
            events = view.feedback.events()
            evidence = gather_evidence(events, view.rankings, view.verdicts, next_day)
            assert len(evidence) == 3
            assert {(e.screen, e.judge) for e in evidence} == {(screen, relevance)}


def test_a_single_run_in_a_shared_home_learns_from_its_own_readers_verdicts(lab_home: Path):
    """``paperbrief run --profile`` ranks on the home's store (``pipeline.rank_day``), not
    on a reader's view: its learning reads ``store.history_of(profile.key)``, so a reader
    run alone in a home shared with a lab-mate still learns only from their own verdicts."""
    with open_store(lab_home / "home" / "paperbrief.db") as home:
        shared = sorted(set(home.verdicts.of(ALICE).of_day(LISTING_DAY)) & set(
            home.verdicts.of(BOB).of_day(LISTING_DAY)))  # fmt: skip
        for paper_id in shared[3:5]:
            home.feedback.of(ALICE).add(paper_id, Signal.UP)
            home.feedback.of(BOB).add(paper_id, Signal.UP)
        for key, (screen, relevance) in ((ALICE, (91, 88)), (BOB, (7, 9))):
            own = home.history_of(key)
            events = [e for e in own.feedback.events() if e.paper_id in shared[3:5]]
            evidence = gather_evidence(events, own.rankings, own.verdicts, date(2026, 5, 25))
            assert len(evidence) == 2
            assert {(e.screen, e.judge) for e in evidence} == {(screen, relevance)}
        # a reader's view answers for its own reader, whoever is named
        assert home.for_reader(ALICE).history_of(BOB).verdicts.reader == ALICE


def test_judge_export_for_a_reader_holds_only_theirs(lab_home: Path, monkeypatch):
    monkeypatch.setenv("PAPERBRIEF_HOME", str(lab_home / "home"))
    with open_store(lab_home / "home" / "paperbrief.db") as home:
        hers = home.for_reader(ALICE).verdicts.of_day(LISTING_DAY)
    out = lab_home / "alice.json"
    profile = lab_home / "readers" / "r0.toml"
    result = CliRunner().invoke(cli, ["judge", "export", "--profile", str(profile), "--out",
                                      str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert f"for {ALICE}" in result.output
    replay = load_replay(out)
    assert set(replay.verdicts) == {LISTING_DAY.isoformat()}
    exported = replay.verdicts[LISTING_DAY.isoformat()]
    assert set(exported) == set(hers)
    assert {(v.stars, v.relevance) for v in exported.values()} == {(5, 88)}
    assert set(replay.screens[LISTING_DAY.isoformat()].values()) == {91}

    mixed = CliRunner().invoke(cli, ["judge", "export"])  # no profile: whose?
    assert mixed.exit_code == EXIT_USAGE
    assert "several readers'" in mixed.output and "--profile" in mixed.output
