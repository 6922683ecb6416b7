"""Many readers, one home (issue 22): `run --all` fetches the listing once, embeds once, and
runs each reader's own day; one reader's broken profile or dead webhook never stops the
others, and the exit code and report name that reader. Real SQLite, a real loopback
webhook receiver, a closed port for the dead one, the real embedding model."""

from __future__ import annotations

import json
import re
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner
from pytest_httpserver import HTTPServer
from werkzeug import Response

from paperbrief.cli import cli
from paperbrief.errors import EXIT_BUSY, EXIT_DELIVERY_FAILED, EXIT_USAGE
from paperbrief.http import PoliteClient
from paperbrief.lab import load_readers, reader_files, run_lab
from paperbrief.models import Listing, Paper, Signal
from paperbrief.pipeline import RunOptions
from paperbrief.retry import RetryPolicy
from paperbrief.services import ArxivEndpoints, Services
from paperbrief.sources.arxiv_feed import parse_feed
from paperbrief.store import open_store
from tests.support import EXAMPLE_PROFILE, FIXTURES
from tests.support.arxiv import RSS2_4, api_answer
from tests.support.faults import closed_port

LISTING = FIXTURES / "pipeline" / "2026-05-22.jsonl"
TODAY = date(2026, 5, 23)
pytestmark = pytest.mark.slow

# Each reader keeps a different pair of the example's four research lines, so their picks
# overlap in part, as lab-mates' do.
LINE_PAIRS = [(0, 1), (1, 2), (2, 3), (0, 3), (0, 2), (1, 3), (0, 1), (2, 3), (1, 2), (0, 3)]


def _reader_profile(index: int, webhook: str) -> str:
    text = EXAMPLE_PROFILE.read_text(encoding="utf-8")
    head, *lines = text.split("[[research_lines]]")
    keep = [lines[i] for i in LINE_PAIRS[index]]
    head = head.replace('name = "AI4SE PhD student"', f'name = "Reader {index:02d}"')
    body = head + "".join("[[research_lines]]" + line for line in keep)
    return body + f'\n[[delivery.webhooks]]\nkind = "generic"\nurl = "{webhook}"\ntimeout = 2\n'


def offline_services(profile, store, embedder):
    """Each reader's services, offline (delivery still goes out: it is the run's option)."""
    return Services.build(profile, store, offline=True, embedder=embedder)


def _lab_folder(tmp_path: Path, hook: str, dead: str) -> Path:
    folder = tmp_path / "readers"
    folder.mkdir()
    for index in range(10):
        url = dead if index == 6 else hook
        (folder / f"r{index:02d}.toml").write_text(_reader_profile(index, url), encoding="utf-8")
    # r03 is broken: a research line without a name
    broken = (folder / "r03.toml").read_text(encoding="utf-8")
    (folder / "r03.toml").write_text(broken.replace('name = "Agent', 'nom = "Agent', 1), "utf-8")
    return folder


def test_ten_readers_one_broken_profile_one_dead_webhook_nine_digests(
    tmp_path: Path, httpserver: HTTPServer, pipeline_vectors
):
    httpserver.expect_request("/hook", method="POST").respond_with_data("ok")
    dead = f"http://127.0.0.1:{closed_port()}/hook"
    folder = _lab_folder(tmp_path, httpserver.url_for("/hook"), dead)
    readers = load_readers(reader_files(folder))
    builds: list[str] = []

    def build(profile, store, embedder):
        builds.append(profile.key)
        return Services.build(profile, store, offline=True, embedder=embedder)

    with open_store(tmp_path / "home" / "paperbrief.db") as store:
        pipeline_vectors.seed(store)
        options = RunOptions(listing_file=LISTING, out_dir=tmp_path / "out")
        result = run_lab(store, readers, options, build, today=TODAY)
        digests = {e.profile for e in store.digests.entries()}

    by_reader = {o.reader: o for o in result.outcomes}
    assert [o.reader for o in result.outcomes] == [f"r{i:02d}" for i in range(10)]
    assert by_reader["r03"].status == "failed" and by_reader["r03"].exit_code == EXIT_USAGE
    assert "research_lines" in by_reader["r03"].detail
    assert by_reader["r06"].status == "not-delivered"
    assert by_reader["r06"].exit_code == EXIT_DELIVERY_FAILED
    clean = [o for o in result.outcomes if o.reader not in ("r03", "r06")]
    assert all(o.status == "published" for o in clean)
    assert len(result.published) == 9 and len(digests) == 9
    for outcome in result.published:  # each reader's files in their own folder
        assert outcome.result is not None
        assert outcome.result.files["markdown"].parent == tmp_path / "out" / outcome.reader
    assert len(httpserver.log) == 8  # the live webhook got the eight other digests once
    # the listing was fetched once, for the union of categories (one services for it, then
    # one per reader), and the candidates embedded once
    assert len(builds) == 1 + 9 and result.papers_embedded > 0
    assert result.exit_code == EXIT_USAGE  # no digest for r03 outranks r06's delivery
    picks = {o.reader: {p.paper.id for p in o.result.picks} for o in result.published if o.result}
    assert len({frozenset(p) for p in picks.values()}) > 1  # their own rankings, not one


def test_run_all_cli_reports_each_reader_and_exits_with_the_worst_code(
    tmp_path: Path, embedded_home: Path
):
    folder = tmp_path / "readers"
    folder.mkdir()
    for index in range(3):
        text = _reader_profile(index, "http://127.0.0.1:9/unused")
        (folder / f"r{index}.toml").write_text(text, encoding="utf-8")
    (folder / "r1.toml").write_text("name = [broken", encoding="utf-8")
    args = ["run", "--all", "--readers", str(folder), "--listing", str(LISTING), "--offline"]
    args += ["--out", str(tmp_path / "out"), "--date", "2026-05-23", "--json"]
    outcome = CliRunner().invoke(cli, args)
    assert outcome.exit_code == EXIT_USAGE, outcome.output
    report = json.loads(outcome.stdout)
    assert [(r["reader"], r["status"]) for r in report["readers"]] == [
        ("r0", "published"),
        ("r1", "failed"),
        ("r2", "published"),
    ]
    assert re.search(r"r1 \(2\) failed: .*r1\.toml", outcome.stderr)
    assert "not every reader's day is clean: r1" in outcome.stderr
    assert (tmp_path / "out" / "r0" / "2026-05-23.md").is_file()

    assert "started" not in outcome.stderr  # --json: no progress lines, the report alone

    again = CliRunner().invoke(cli, args)  # a rerun publishes nothing twice
    assert [r["detail"] for r in json.loads(again.stdout)["readers"]][::2] == [
        "already published",
        "already published",
    ]
    shown = CliRunner().invoke(cli, args[:-1])  # without --json: each reader as it goes
    progress = re.findall(r"• (reader .*?)(?: in \d+ s)?$", shown.stderr, re.M)
    assert progress == [
        "reader 1/2 r0: started",
        "reader 1/2 r0: published",
        "reader 2/2 r2: started",
        "reader 2/2 r2: published",
    ]


def test_run_all_needs_its_folder_and_excludes_profile(tmp_path: Path):
    missing = CliRunner().invoke(cli, ["run", "--all", "--readers", str(tmp_path / "none")])
    assert missing.exit_code == EXIT_USAGE and "no readers folder" in missing.output
    both = CliRunner().invoke(cli, ["run", "--all", "--profile", str(EXAMPLE_PROFILE)])
    assert both.exit_code == EXIT_USAGE and "drop --profile" in both.output


def test_a_readers_feedback_and_history_are_their_own(tmp_path: Path):
    with open_store(tmp_path / "pb.db") as store:
        alice, bob = store.for_reader("alice"), store.for_reader("bob")
        alice.feedback.add("2605.00001", Signal.HIDE)
        bob.feedback.add("2605.00002", Signal.UP)
        store.feedback.add("2605.00003", Signal.UP)  # given without naming a reader
        assert {e.paper_id for e in alice.feedback.events()} == {"2605.00001", "2605.00003"}
        assert {e.paper_id for e in bob.feedback.events()} == {"2605.00002", "2605.00003"}
        assert {e.paper_id for e in store.feedback.events()} == {
            "2605.00001",
            "2605.00002",
            "2605.00003",
        }
        (bobs,) = [e for e in bob.feedback.events() if e.paper_id == "2605.00002"]
        assert alice.feedback.remove(bobs.id) is None  # not alice's to undo
        assert len(bob.feedback.events()) == 2


def test_a_readers_view_reads_only_that_readers_digests_rankings_and_journal(
    tmp_path: Path, pipeline_vectors
):
    folder = tmp_path / "readers"
    folder.mkdir()
    for index in (0, 2):  # no overlapping research line
        text = _reader_profile(index, f"http://127.0.0.1:{closed_port()}/hook")
        (folder / f"r{index}.toml").write_text(text, encoding="utf-8")
    readers = load_readers(reader_files(folder))

    with open_store(tmp_path / "pb.db") as home:
        pipeline_vectors.seed(home)
        options = RunOptions(listing_file=LISTING, out_dir=tmp_path / "out")
        run_lab(home, readers, options, offline_services, today=TODAY)
        mine, theirs = home.for_reader("Reader 00"), home.for_reader("Reader 02")
        assert {e.profile for e in home.digests.entries()} == {"Reader 00", "Reader 02"}
        assert {e.profile for e in mine.digests.entries()} == {"Reader 00"}
        day = date(2026, 5, 23)
        # whatever profile a caller names, a view reads its own reader's rows
        assert mine.digests.load(day, profile="Reader 02").profile == "Reader 00"
        assert mine.digests.latest().profile == "Reader 00"
        their_picks = theirs.picks.ids(day)
        assert mine.picks.ids(day) != their_picks and mine.picks.ids(day, "Reader 02") == (
            mine.picks.ids(day)
        )
        only_theirs = [p for p in their_picks if p not in mine.picks.ids(day)]
        assert only_theirs and all(not mine.digests.briefs_of(p) for p in only_theirs)
        assert all(theirs.digests.briefs_of(p) for p in only_theirs)
        assert {d.profile for d in mine.deliveries.of(day, "Reader 02")} == {"Reader 00"}
        listing_day = date(2026, 5, 22)
        assert mine.rankings.days() == [listing_day] == theirs.rankings.days()
        mine_order = [s.paper.id for s in mine.rankings.load(listing_day)][:10]
        their_order = [s.paper.id for s in theirs.rankings.load(listing_day)][:10]
        assert mine_order != their_order
        # the scores a reader learns from (rank.reader.gather_evidence) are their own
        ids = mine_order + their_order
        mine_scores = mine.rankings.components_of(ids)
        their_scores = theirs.rankings.components_of(ids)
        own = {s.paper.id: s.components for s in mine.rankings.load(listing_day)}
        assert mine_scores and all(mine_scores[p][1] == dict(own[p]) for p in mine_scores)
        assert any(mine_scores[p][1] != their_scores[p][1] for p in mine_scores)
        assert not home.for_reader("nobody").rankings.components_of(ids)
        assert not home.for_reader("nobody").digests.entries()
        assert not home.for_reader("nobody").rankings.days()


def test_a_reader_whose_day_is_already_running_is_reported_busy_and_the_others_run(
    tmp_path: Path, pipeline_vectors
):
    folder = tmp_path / "readers"
    folder.mkdir()
    for index in (0, 1):
        text = _reader_profile(index, f"http://127.0.0.1:{closed_port()}/hook")
        (folder / f"r{index}.toml").write_text(text, encoding="utf-8")
    readers = load_readers(reader_files(folder))

    with open_store(tmp_path / "pb.db") as home:
        pipeline_vectors.seed(home)
        options = RunOptions(listing_file=LISTING, out_dir=tmp_path / "out", deliver=False)
        with home.run_lock(TODAY, "Reader 00", "run"):  # another `run --all` is at r0
            result = run_lab(home, readers, options, offline_services, today=TODAY)
    busy, done = result.outcomes
    assert busy.status == "failed" and busy.exit_code == EXIT_BUSY
    assert "in progress" in busy.detail
    assert done.status == "published" and result.exit_code == EXIT_BUSY


def test_a_stored_listing_without_a_new_readers_category_is_fetched_again_for_the_union(
    tmp_path: Path, httpserver: HTTPServer
):
    """Reader 00 reads cs.LG and ran alone, so the day's stored listing lists cs.LG only;
    Reader 01, added with cs.AI, cs.CL and stat.ML, needs a listing of them all: the lab
    fetches the day again for the union (a loopback arXiv serving a recorded feed) instead
    of handing Reader 01 a listing without their categories."""
    feed = {e.id: e for e in parse_feed(RSS2_4.read_bytes()).entries}
    httpserver.expect_request("/atom/cs.LG+cs.AI+cs.CL+stat.ML").respond_with_data(
        RSS2_4.read_bytes()
    )
    httpserver.expect_request("/api/query").respond_with_handler(
        lambda request: Response(api_answer(_papers_of(feed, request.args["id_list"])))
    )
    httpserver.expect_request(re.compile("^/(html|ar5iv|pdf)/")).respond_with_data("", 404)
    folder = tmp_path / "readers"
    folder.mkdir()
    text = _reader_profile(0, "http://127.0.0.1:9/unused")
    for name, categories, secondary in (("r0", ["cs.LG"], []),
                                        ("r1", ["cs.AI", "cs.CL"], ["stat.ML"])):  # fmt: skip
        body = text.replace('categories = ["cs.SE", "cs.CL", "cs.LG", "cs.AI"]',
                            f"categories = {json.dumps(categories)}")  # fmt: skip
        body = body.replace('secondary_categories = ["cs.PL"]',
                            f"secondary_categories = {json.dumps(secondary)}")  # fmt: skip
        body = body.replace('name = "Reader 00"', f'name = "Reader {name}"')
        (folder / f"{name}.toml").write_text(body, encoding="utf-8")
    day = date(2026, 9, 24)
    urls = ArxivEndpoints(*(httpserver.url_for(f"/{part}") for part in
                            ("atom", "api/query", "list", "html", "ar5iv", "pdf")))  # fmt: skip
    with (
        open_store(tmp_path / "pb.db") as home,
        PoliteClient(delay_seconds=0, retry=RetryPolicy(max_retries=0)) as http,
    ):
        alone = Listing(day, tuple(_papers_of(feed, "2609.26811,2609.26820", {"cs.LG": "new"})),
                        "arxiv-rss")  # fmt: skip
        home.listings.save(alone)  # what Reader 00's run alone stored

        def build(profile, view, embedder):
            return Services.build(profile, view, offline=False, http=http, arxiv=urls,
                                  embedder=embedder)  # fmt: skip

        options = RunOptions(out_dir=tmp_path / "out", deliver=False)
        result = run_lab(home, load_readers(reader_files(folder)), options, build,
                         today=date(2026, 9, 25))  # fmt: skip
        stored = home.listings.load(day)
    assert result.listing_day == day and result.papers_listed == 3
    assert stored is not None
    assert {c for p in stored.papers for c in p.listings} == {"cs.LG", "cs.AI", "stat.ML"}
    # cs.CL had no paper in the feed: the listing still says it was fetched for it
    assert set(stored.categories) == {"cs.LG", "cs.AI", "cs.CL", "stat.ML"}
    feeds = [entry for entry in httpserver.log if entry[0].path.startswith("/atom/")]
    assert len(feeds) == 1  # one fetch, for the union


def _papers_of(feed, ids: str, listings: dict[str, str] | None = None) -> list[Paper]:
    return [
        Paper(e.id, e.title, e.authors, e.abstract, e.categories, e.categories[0],
              version=e.version, listings=listings or {})
        for paper_id in ids.split(",") if (e := feed.get(paper_id)) is not None
    ]  # fmt: skip


def test_a_stored_listing_lacking_a_category_is_used_with_a_note_when_it_cannot_be_fetched(
    tmp_path: Path,
):
    """Offline, the day cannot be fetched again: the stored listing is used and the run's
    notes name the categories it lacks."""
    from paperbrief.pipeline import acquire_listing
    from paperbrief.profile import load_profile

    profile = load_profile(EXAMPLE_PROFILE)
    day = date(2026, 5, 22)
    paper = Paper("2605.00001", "T", ("A",), "abs", ("cs.SE",), "cs.SE", listings={"cs.SE": "new"})
    with open_store(tmp_path / "pb.db") as store:
        store.listings.save(Listing(day, (paper,), "arxiv-rss"))
        services = Services.build(profile, store, offline=True)
        listing = acquire_listing(store, profile, RunOptions(), day, services)
    assert [p.id for p in listing.papers] == ["2605.00001"]
    (note,) = listing.notes
    assert "lists no paper in cs.CL, cs.LG, cs.AI, cs.PL" in note and "running offline" in note


def test_a_listing_fetched_for_a_category_with_no_paper_is_reused_without_a_refetch(
    tmp_path: Path,
):
    """The day was fetched for every category of the profile, but cs.PL had no paper that
    day: the stored listing remembers what it was fetched for, so a rerun uses it as it is
    (offline, a refetch would fail and leave a note naming cs.PL)."""
    from paperbrief.pipeline import acquire_listing
    from paperbrief.profile import load_profile

    profile = load_profile(EXAMPLE_PROFILE)
    day = date(2026, 5, 22)
    paper = Paper("2605.00001", "T", ("A",), "abs", ("cs.SE",), "cs.SE",
                  listings={c: "new" for c in profile.all_categories if c != "cs.PL"})  # fmt: skip
    fetched = Listing(day, (paper,), "arxiv-rss", categories=tuple(profile.all_categories))
    with open_store(tmp_path / "pb.db") as store:
        store.listings.save(fetched)
        assert store.listings.load(day).categories == tuple(profile.all_categories)
        services = Services.build(profile, store, offline=True)
        listing = acquire_listing(store, profile, RunOptions(), day, services)
    assert [p.id for p in listing.papers] == ["2605.00001"]
    assert listing.notes == ()


def test_lab_bench_lines_state_an_interest_and_copy_no_abstract(monkeypatch, encoder):
    """The benchmark's lab-mates: a research line built around a real paper is proposed
    from its group's key phrases as `profile init --from` does, never the paper's own
    sentences or title."""
    import importlib
    import tomllib

    from paperbrief.rank.embed import Embedder

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parent.parent / "benchmarks"))
    lab_bench = importlib.import_module("lab_bench")
    papers = [json.loads(line) for line in LISTING.read_text(encoding="utf-8").splitlines()]
    pool = lab_bench.InterestPool(papers)
    embedder = Embedder(encoder=encoder)

    def runs(text: str) -> set[tuple[str, ...]]:
        words = re.findall(r"[a-z0-9-]+", text.lower())
        return {tuple(words[i : i + 5]) for i in range(len(words) - 4)}

    for seed in papers[:6]:
        (line,) = tomllib.loads(lab_bench.interest_line(seed, pool, embedder, 1.0))[
            "research_lines"
        ]
        assert line["description"].startswith("Work on ") and line["keywords"]
        assert not runs(line["description"]) & runs(seed["abstract"]), line
        assert line["name"].lower() not in seed["title"].lower()
