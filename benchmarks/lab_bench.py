"""A lab on one machine (issue 22): 1, 10 and 100 readers on one real day, and a year-size store.

    .venv/bin/python benchmarks/lab_bench.py                 # 1, 10 and 100 readers
    .venv/bin/python benchmarks/lab_bench.py --readers 10    # one size only
    .venv/bin/python benchmarks/lab_bench.py --year          # the year-size store
    .venv/bin/python benchmarks/lab_bench.py --readers 3 --delay 2-6   # with LLM latency

**Readers.** Profiles are generated, not copied: readers come in labs of ten; a lab's shared
research line and each reader's own line are each the research interest around a real
paper: that paper and its seven nearest papers of the pool (by their rarer words) proposed as
one line as `profile init --from LIBRARY` would propose it (``interest_line``: the group's key
phrases as name, description and keywords; no paper's abstract or title is copied), the seed
papers drawn at random (fixed seed)
from the 41 real listing days in ../shared/data/listings. Labs 0–4 are seeded from the five
real papers whose full texts the project holds (tests/fixtures/fulltext), because only those
can be read in full on this machine (no internet); they are added to the day's listing with
their own title and abstract, and their parsed full texts are put in the store as the first
fetch would leave them. Every other paper of the day is abstract-only (the loopback arXiv
answers 404), so its deep read is one call per reader, as the product writes it.

**The day.** The real listing of 2026-05-22 (480 papers) plus those five, run through
``lab.run_lab`` exactly as `paperbrief run --all` runs it (one listing, one embedding pass,
each reader's ranking with the LLM judge, picks, briefs, day synthesis, verification, render,
publish), against a real OpenAI-compatible server on 127.0.0.1
(tests/support/openai_server.py). Its answers are the strong model's real answers
(tests/fixtures/model-answers: the reading, the reader's part, the one-call deep read, the
day) whatever paper is asked about, and a 3-star verdict for every paper the judge is asked
about (so the cheap ranking's order stands): realistic in
length (so completion tokens and the verifier's work are real), not in content — this
measures cost and scale, not quality. ``--delay 2-6`` makes each answer take 2–6 s, as a
hosted model's would (a deep read's long answer takes longer in reality), to see how many
readers an hour the LLM's latency allows. Prompt tokens are the server's count (characters/4 of
the messages, as it reports ``usage``).

Each size runs in its own process (a fresh home, so peak memory is that size's). It prints
wall time, peak RSS, LLM calls and prompt tokens per reader (mean, and by role), and the
cost of the 10th and 100th reader as a share of the first: in all, and for the papers the
reader shares with the first (the done-when: ≤ 25 % for the 10th reader of the first lab).

**The year.** ``--year`` builds a store of 250 listing days × ~1,000 real papers (two real
days per synthetic day, ids renumbered) with a year of feedback (4 picks a day and a button
signal on most days), then prints the database size, `search` time, the time to embed and
rank one day of 1,000 papers against the profile with the year's feedback, and the learning
time (the taste model trained from that feedback).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from datetime import date, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paperbrief import rank  # noqa: E402
from paperbrief.fulltext import read_local_file  # noqa: E402
from paperbrief.http import PoliteClient  # noqa: E402
from paperbrief.lab import load_readers, run_lab  # noqa: E402
from paperbrief.library import LibraryPaper, propose_lines  # noqa: E402
from paperbrief.models import Listing, Paper, Signal  # noqa: E402
from paperbrief.pipeline import RunOptions  # noqa: E402
from paperbrief.profile import parse_profile  # noqa: E402
from paperbrief.rank.embed import Embedder  # noqa: E402
from paperbrief.rank.text import paper_text, tokenize  # noqa: E402
from paperbrief.retry import RetryPolicy  # noqa: E402
from paperbrief.services import ArxivEndpoints, Services  # noqa: E402
from paperbrief.sources.snapshot import load_snapshot  # noqa: E402
from paperbrief.store import open_store  # noqa: E402
from tests.support.llm_day import paper_of  # noqa: E402
from tests.support.openai_server import OpenAIServer, Reply  # noqa: E402
from tests.support.pipeline_llm import kind_of, screen_answer  # noqa: E402

LISTINGS = ROOT.parent / "shared" / "data" / "listings"
if not LISTINGS.is_dir():
    LISTINGS = Path("/work/shared/data/listings")
DAY = date(2026, 5, 22)
FULLTEXT = ROOT / "tests" / "fixtures" / "fulltext"
FULL_TEXTS = {
    "2501.11120": FULLTEXT / "arxiv_html_2501.11120v1.html",
    "2304.02623": FULLTEXT / "arxiv_pdf_2304.02623v1.pdf",
    "2501.10120": FULLTEXT / "arxiv_pdf_2501.10120v1.pdf",
    "2510.14430": FULLTEXT / "arxiv_html_2510.14430v1_ltx_errors.html",
    "2510.14472": FULLTEXT / "arxiv_html_2510.14472v1_no_title_metadata.html",
}
ANSWERS = ROOT / "tests" / "fixtures" / "model-answers"
CATEGORIES = ["cs.SE", "cs.CL", "cs.LG", "cs.AI", "cs.PL"]
LAB_SIZE = 10
NEIGHBOURS = 7  # a research interest: the seed paper and the papers nearest it
TELLING_WORDS = 20  # the seed's rarest telling words, which find its neighbours
MIN_WORD_PAPERS = 5  # a word of fewer pool papers is one paper's coinage, not a topic
MAX_WORD_SHARE = 0.02  # a word of more is too common to tell a topic
CANDIDATES = 40  # lexical candidates the embedding model chooses the neighbours from (by title)


# ----------------------------------------------------------------- the readers
def real_papers() -> list[dict[str, Any]]:
    """Every paper of the 41 real listing days (the pool research interests come from)."""
    papers: dict[str, dict[str, Any]] = {}
    for path in sorted(LISTINGS.glob("*.jsonl.gz")):
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                record = json.loads(line)
                papers.setdefault(record["id"], record)
    return list(papers.values())


class InterestPool:
    """The real papers research interests are drawn from, indexed by their words, so a seed
    paper's neighbours (the papers a reader working on its topic would have read) are found
    without embedding the whole pool."""

    def __init__(self, papers: list[dict[str, Any]]) -> None:
        self.papers = papers
        self.words = [set(tokenize(f"{p['title']} {p['abstract']}")) for p in papers]
        frequency: dict[str, int] = {}
        self.index: dict[str, list[int]] = {}
        for number, words in enumerate(self.words):
            for word in words:
                frequency[word] = frequency.get(word, 0) + 1
                self.index.setdefault(word, []).append(number)
        total = len(papers)
        self.idf = {w: math.log((total + 1) / (n + 1)) for w, n in frequency.items()}

    def neighbours(
        self, paper: dict[str, Any], embedder: Embedder, count: int = NEIGHBOURS
    ) -> list[dict[str, Any]]:
        """The ``count`` pool papers nearest ``paper``, nearest first, ``paper`` not among
        them: the papers sharing most of its telling words (rare enough to name a topic,
        common enough not to be one paper's coinage) are the candidates, and the embedding
        model picks the titles nearest ``paper`` (titles: cheap to embed, and they say a
        paper's topic)."""
        words = set(tokenize(f"{paper['title']} {paper['abstract']}"))
        most = len(self.papers) * MAX_WORD_SHARE
        usable = [w for w in words if MIN_WORD_PAPERS <= len(self.index.get(w, ())) <= most]
        telling = sorted(usable, key=lambda w: (-self.idf[w], w))
        scores: dict[int, float] = {}
        for word in telling[:TELLING_WORDS]:
            for number in self.index[word]:
                scores[number] = scores.get(number, 0.0) + self.idf[word]
        ranked = sorted(scores, key=lambda n: (-scores[n], self.papers[n]["id"]))
        candidates = [self.papers[n] for n in ranked if self.papers[n]["id"] != paper["id"]]
        candidates = candidates[:CANDIDATES]
        if not candidates:
            return []
        seed = f"{paper['title']}. {paper['abstract']}"
        vectors = embedder.embed([seed, *(" ".join(p["title"].split()) for p in candidates)])
        nearness = vectors[1:] @ vectors[0]
        order = sorted(range(len(candidates)), key=lambda i: -float(nearness[i]))
        return [candidates[i] for i in order[:count]]


def interest_line(
    paper: dict[str, Any], pool: InterestPool, embedder: Embedder, weight: float
) -> str:
    """A research line for a reader working on ``paper``'s topic: their small library (the
    paper and its nearest neighbours in the real pool) proposed as one line exactly as
    `paperbrief profile init --from LIBRARY` proposes it offline (``library.propose_lines``:
    the group's key phrases, a name and a description made of them), so the line states an
    interest in the library's own phrases and copies no paper's abstract or title."""
    group = [paper, *pool.neighbours(paper, embedder)]
    library = [LibraryPaper(title=p["title"], abstract=p["abstract"]) for p in group]
    vectors = embedder.embed([p.text for p in library])
    (line,) = propose_lines(library, vectors, lines=1)
    keywords = json.dumps(list(line.keywords), ensure_ascii=False)
    return (
        f"\n[[research_lines]]\nname = {json.dumps(line.name, ensure_ascii=False)}\n"
        f"description = {json.dumps(line.description, ensure_ascii=False)}\n"
        f"keywords = {keywords}\nweight = {weight}\n"
    )


def reader_profiles(count: int, llm_url: str, seed: int = 22) -> dict[str, str]:
    """``count`` readers in labs of ten: each lab shares one line, each reader has their own
    (``interest_line``: each seeded by a real paper, stated as the interest around it)."""
    pool = real_papers()
    interests = InterestPool(pool)
    embedder = Embedder()
    rng = random.Random(seed)
    full = [_document_record(pid, path) for pid, path in FULL_TEXTS.items()]
    labs = (count + LAB_SIZE - 1) // LAB_SIZE
    lab_seeds = full[:labs] + rng.sample(pool, max(0, labs - len(full)))
    profiles = {}
    for index in range(count):
        lab = index // LAB_SIZE
        own = rng.choice([p for p in pool if p.get("primary_category") in CATEGORIES])
        categories = sorted(
            {lab_seeds[lab].get("primary_category") or "cs.CL", own["primary_category"]}
            & set(CATEGORIES)
        ) or ["cs.CL"]
        profiles[f"r{index:03d}"] = (
            f'name = "Reader {index:03d}"\nlanguage = "zh"\ncategories = {json.dumps(categories)}\n'
            f'picks_per_day = 4\nmin_stars = 2\ntimezone = "UTC"\n'
            + interest_line(lab_seeds[lab], interests, embedder, 1.2)
            + interest_line(own, interests, embedder, 1.0)
            + f'\n[llm]\nbase_url = "{llm_url}"\nmodel = "bench-model"\nmax_retries = 0\n'
            "backoff_base = 0\nconcurrency = 4\n"
        )
    return profiles


def _document_record(paper_id: str, path: Path) -> dict[str, Any]:
    document = read_local_file(path)
    return {
        "id": paper_id,
        "title": document.title or paper_id,
        "authors": list(document.authors) or ["(authors not parsed)"],
        "abstract": document.abstract,
        "categories": ["cs.CL", "cs.AI"],
        "primary_category": "cs.CL",
        "listings": {"cs.CL": "new"},
    }


# ---------------------------------------------------------------- loopback services
def _kind(body: dict[str, Any]) -> str:
    """The run's part asking (``pipeline_llm.kind_of``), a writer's call by its half."""
    kind = kind_of(body)
    if kind != "writer":
        return kind
    user = next((m["content"] for m in body.get("messages", []) if m["role"] == "user"), "")
    if user.startswith("Write the reading of ONE paper"):
        return "reading"
    if user.startswith("Tell ONE reader"):
        return "reader"
    if user.startswith("Read part"):
        return "notes"
    return "brief"


def _answer(name: str) -> str:
    return (ANSWERS / name).read_text(encoding="utf-8")


def llm_route() -> Any:
    """The strong model's answers by kind (see the module docstring); verdicts per paper."""
    answers = {
        "reading": _answer("reading-2501.11120.json"),
        "reader": _answer("reader-2501.11120.json"),
        "brief": _answer("brief-2501.11120.cited.json"),
        "day": _answer("day-2501.11120+2304.02623.cited.json"),
        "notes": json.dumps(
            {"sections": [{"section": "1", "does": "results", "summary": "…", "findings": []}]}
        ),
    }

    def route(body: dict[str, Any]) -> Reply:
        kind = _kind(body)
        if kind == "judge":
            user = next(m["content"] for m in body["messages"] if m["role"] == "user")
            keys = re.findall(r'<paper key="(P\d+)">', user)
            verdicts = [
                {"key": k, "stars": 3, "relevance": 50, "line": "", "reason": "相关。"}
                for k in keys
            ]
            return Reply(content=json.dumps({"papers": verdicts}, ensure_ascii=False))
        if kind == "screen":
            return Reply(content=screen_answer(body))
        if kind == "addresses":
            return Reply(content=json.dumps({"sentences": []}))
        return Reply(content=answers[kind])

    return route


class NoFullText(BaseHTTPRequestHandler):
    """arXiv on loopback for papers whose full text this machine cannot have: 404."""

    def do_GET(self) -> None:
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


def prompt_tokens(body: dict[str, Any]) -> int:
    """The server's count (tests/support/openai_server.py ``_estimate``)."""
    return max(1, len(json.dumps(body.get("messages", []), ensure_ascii=False)) // 4)


# ------------------------------------------------------------------ one size
def run_size(count: int, delay: tuple[float, float] = (0.0, 0.0)) -> dict[str, Any]:
    """One lab of ``count`` readers in a fresh home (called in its own process)."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lab-bench-") as folder:
        home = Path(folder)
        arxiv = ThreadingHTTPServer(("127.0.0.1", 0), NoFullText)
        threading.Thread(target=arxiv.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{arxiv.server_address[1]}"
        with OpenAIServer(llm_route(), delay=delay) as server:
            readers_dir = home / "readers"
            readers_dir.mkdir()
            for name, text in reader_profiles(count, server.url).items():
                (readers_dir / f"{name}.toml").write_text(text, encoding="utf-8")
            snapshot = home / f"{DAY}.jsonl"
            with gzip.open(LISTINGS / f"{DAY}.jsonl.gz", "rt", encoding="utf-8") as day:
                lines = day.read().splitlines()
            extra = [_document_record(pid, path) for pid, path in FULL_TEXTS.items()]
            lines += [json.dumps(record, ensure_ascii=False) for record in extra]
            snapshot.write_text("\n".join(lines) + "\n", encoding="utf-8")
            readers = load_readers(sorted(readers_dir.glob("*.toml")))
            endpoints = ArxivEndpoints(
                html=f"{base}/html", ar5iv=f"{base}/ar5iv", pdf=f"{base}/pdf"
            )
            http = PoliteClient(delay_seconds=0, retry=RetryPolicy(max_retries=0))
            slices: list[tuple[str, int]] = []

            def build(profile, store, embedder):
                slices.append((profile.key, len(server.requests)))
                return Services.build(
                    profile, store, offline=False, day=date(2026, 5, 23), arxiv=endpoints,
                    http=http, embedder=embedder,
                )  # fmt: skip

            with open_store(home / "paperbrief.db") as store:
                for pid, path in FULL_TEXTS.items():
                    document = read_local_file(path)
                    store.documents.save(replace(document, arxiv_id=pid), None)
                options = RunOptions(listing_file=snapshot, out_dir=home / "out", deliver=False)
                lab_started = time.perf_counter()
                result = run_lab(store, readers, options, build, today=date(2026, 5, 23))
                lab_seconds = time.perf_counter() - lab_started
                calls = {
                    r.profile.key: store.for_reader(r.profile.key).llm.calls() for r in readers
                }
            requests = list(server.requests)
            http.close()
        arxiv.shutdown()
    bounds = [index for _, index in slices[1:]] + [len(requests)]  # slices[0]: the listing
    per_reader = {}
    for (key, start), end in zip(slices[1:], bounds[1:], strict=True):
        per_paper: dict[str, int] = {}
        by_kind: dict[str, int] = {}
        for body in requests[start:end]:
            kind, tokens = _kind(body), prompt_tokens(body)
            by_kind[kind] = by_kind.get(kind, 0) + tokens
            if kind in ("reading", "reader", "brief", "notes"):
                paper = paper_of(body)
                per_paper[paper] = per_paper.get(paper, 0) + tokens
        per_reader[key] = {"by_kind": by_kind, "per_paper": per_paper}
    picks = {o.name: [p.paper.id for p in o.result.picks] for o in result.published if o.result}
    statuses: dict[str, int] = {}
    for outcome in result.outcomes:
        statuses[outcome.status] = statuses.get(outcome.status, 0) + 1
    return {
        "readers": count,
        "wall_seconds": round(time.perf_counter() - started, 1),
        "lab_seconds": round(lab_seconds, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "statuses": statuses,
        "papers_embedded": result.papers_embedded,
        "llm_calls": {k: sum(1 for c in v if c.outcome != "cached") for k, v in calls.items()},
        "prompt_tokens": {k: sum(c.prompt_tokens for c in v) for k, v in calls.items()},
        "per_reader": per_reader,
        "picks": picks,
    }


def share(sizes: dict[str, Any], index: int) -> dict[str, Any] | None:
    """Reader ``index`` (0-based) against the first: in all, and on the papers they share."""
    names = sorted(sizes["picks"])
    if index >= len(names):
        return None
    first, other = names[0], names[index]
    common = sorted(set(sizes["picks"][first]) & set(sizes["picks"][other]))
    first_papers = sizes["per_reader"][first]["per_paper"]
    other_papers = sizes["per_reader"][other]["per_paper"]
    first_shared = sum(first_papers.get(p, 0) for p in common)
    other_shared = sum(other_papers.get(p, 0) for p in common)
    total_first, total_other = sizes["prompt_tokens"][first], sizes["prompt_tokens"][other]
    full = [p for p in common if p in FULL_TEXTS]
    full_first = sum(first_papers.get(p, 0) for p in full)
    full_other = sum(other_papers.get(p, 0) for p in full)
    return {
        "full_text_share": round(full_other / full_first, 3) if full_first else None,
        "reader": other,
        "shared_papers": common,
        "shared_full_text": full,
        "shared_tokens_first": first_shared,
        "shared_tokens_this": other_shared,
        "shared_share": round(other_shared / first_shared, 3) if first_shared else None,
        "total_share": round(total_other / total_first, 3) if total_first else None,
    }


def print_size(sizes: dict[str, Any]) -> None:
    count = sizes["readers"]
    tokens = list(sizes["prompt_tokens"].values())
    calls = list(sizes["llm_calls"].values())
    kinds: dict[str, list[int]] = {}
    for reader in sizes["per_reader"].values():
        for kind, value in reader["by_kind"].items():
            kinds.setdefault(kind, []).append(value)
    print(f"\n== {count} readers: {sizes['wall_seconds']} s wall"
          f" ({sizes['lab_seconds']} s the lab),"
          f" peak RSS {sizes['peak_rss_mb']} MB, outcomes {sizes['statuses']},"
          f" {sizes['papers_embedded']} papers embedded once")  # fmt: skip
    if tokens:
        print(f"   per reader: {statistics.mean(calls):.1f} LLM calls, prompt tokens mean"
              f" {statistics.mean(tokens):,.0f} (min {min(tokens):,}, max {max(tokens):,}),"
              f" {sizes['lab_seconds'] / count:.2f} s")  # fmt: skip
        row = ", ".join(f"{k} {statistics.mean(v):,.0f}" for k, v in sorted(kinds.items()))
        print(f"   prompt tokens per reader by kind (mean over readers making them): {row}")
    mates = [share(sizes, i) for i in range(1, len(sizes["picks"]))]
    sharing = [m for m in mates if m and m["full_text_share"] is not None]
    if sharing:
        shares = [m["full_text_share"] for m in sharing]
        print(f"   {len(sharing)} readers share a full-text pick with the first: they pay"
              f" {statistics.mean(shares):.0%} (max {max(shares):.0%}) of the first's prompt"
              " tokens for those papers")  # fmt: skip
    for index in (9, 99):
        found = share(sizes, index)
        if found is None:
            continue
        print(
            f"   reader {index + 1} ({found['reader']}) vs the first: {found['total_share']:.0%}"
            f" of its prompt tokens in all; shared picks {found['shared_papers']}"
            f" (full text: {found['shared_full_text']}):"
            f" {found['shared_tokens_this']:,} vs {found['shared_tokens_first']:,} tokens"
            + (f" = {found['shared_share']:.0%}" if found["shared_share"] is not None else "")
        )


# --------------------------------------------------------------------- the year
def year_store(days: int = 250, per_day: int = 1000) -> None:
    """The year-size store's figures (module docstring)."""
    real_days = sorted(LISTINGS.glob("*.jsonl.gz"))
    rng = random.Random(250)
    profile = parse_profile((ROOT / "examples" / "profile.toml").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix="lab-year-") as folder:
        path = Path(folder) / "paperbrief.db"
        started = time.perf_counter()
        with open_store(path) as store:
            first = date(2025, 6, 2)
            day_papers: list[list[Paper]] = []
            for number in range(days):
                listing_day = first + timedelta(days=number * 7 // 5)
                pair = [load_snapshot(real_days[(number + k) % len(real_days)], None)
                        for k in (0, 17)]  # fmt: skip
                source = [p for listing in pair for p in listing.papers][:per_day]
                papers = tuple(
                    replace(p, id=f"{2500 + number // 100:04d}.{(number % 100) * 1000 + i:05d}")
                    for i, p in enumerate(source)
                )
                store.listings.save(Listing(listing_day, papers, "bench-year"))
                day_papers.append(list(papers))
                for position in rng.sample(range(len(papers)), 4):  # a year of picks
                    at = f"{listing_day.isoformat()}T08:00:00"
                    store.feedback.add(papers[position].id, Signal.PICKED, created_at=at)
                if rng.random() < 0.7:
                    signal = rng.choice(
                        [Signal.UP, Signal.UP, Signal.SAVE, Signal.DOWN, Signal.HIDE]
                    )
                    at = f"{listing_day.isoformat()}T09:00:00"
                    store.feedback.add(rng.choice(papers).id, signal, created_at=at)
            built = time.perf_counter() - started
            size = path.stat().st_size + sum(
                p.stat().st_size for p in path.parent.glob("paperbrief.db-*")
            )
            events = len(store.feedback.events())
            print(f"\n== year store: {days} days × ≤{per_day} papers ="
                  f" {sum(len(d) for d in day_papers):,} papers, {events:,} feedback events;"
                  f" built in {built:.0f} s; database {size / 2**20:,.0f} MiB")  # fmt: skip
            timings = []
            for query in ("program repair", "coding agent benchmark", "diffusion", "大模型"):
                t0 = time.perf_counter()
                hits = store.listings.search(query, limit=50)
                timings.append((query, time.perf_counter() - t0, len(hits)))
            print("   search: " + ", ".join(f"{q!r} {s * 1000:.0f} ms ({n} hits)"
                                           for q, s, n in timings))  # fmt: skip
            embedder = Embedder(cache=store.embeddings, model_name=profile.rank.embedding_model)
            liked = [e.paper_id for e in store.feedback.events()]
            t0 = time.perf_counter()
            by_id = {p.id: p for d in day_papers for p in d}
            embedder.embed([paper_text(by_id[i]) for i in liked if i in by_id])
            feedback_embed = time.perf_counter() - t0
            today = first + timedelta(days=days * 7 // 5)
            t0 = time.perf_counter()
            feedback = rank.load_feedback(
                store.feedback, store.listings, embedder, profile.rank, today=today
            )
            learning = time.perf_counter() - t0
            day = day_papers[-1]
            t0 = time.perf_counter()
            embedder.embed([paper_text(p) for p in day])
            day_embed = time.perf_counter() - t0
            t0 = time.perf_counter()
            rank.rank_papers(day, profile, embedder, feedback=feedback)
            ranking = time.perf_counter() - t0
            print(f"   embedding the year's {len(liked):,} feedback papers once:"
                  f" {feedback_embed:.0f} s (kept in the store's vector cache)")  # fmt: skip
            print(f"   per day: learning from the year's feedback {learning:.2f} s, embedding"
                  f" the day's {len(day)} papers {day_embed:.1f} s,"
                  f" ranking {ranking:.2f} s")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--readers", type=int, action="append", help="Sizes (default 1 10 100).")
    parser.add_argument("--year", action="store_true", help="The year-size store instead.")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a size, in this process
    parser.add_argument(
        "--delay",
        default="0-0",
        help="Seconds each LLM answer takes, a range (e.g. 2-6: a hosted model's latency).",
    )
    parser.add_argument("--json", type=Path, help="Also write every figure to this JSON file.")
    args = parser.parse_args()
    if args.one:
        low, _, high = args.delay.partition("-")
        print(json.dumps(run_size(args.one, (float(low), float(high or low)))))
        return
    if args.year:
        year_store()
        return
    figures = {}
    for count in args.readers or [1, 10, 100]:
        child = subprocess.run(
            [sys.executable, __file__, "--one", str(count), "--delay", args.delay],
            capture_output=True, text=True, check=False, env={**os.environ},
        )  # fmt: skip
        if child.returncode != 0:
            print(f"{count} readers failed:\n{child.stderr[-3000:]}")
            continue
        sizes = json.loads(child.stdout.strip().splitlines()[-1])
        figures[count] = sizes
        print_size(sizes)
    if args.json:
        args.json.write_text(json.dumps(figures, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
