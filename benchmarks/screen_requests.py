"""The judge's first-screen requests for whole listing days, for a model to answer offline.

``write`` replays the development days exactly as ``paperbrief eval ranking --learn`` does
(``evaluate_ranking``: walk-forward feedback from earlier listing days, shuffled opaque
ids), and for each listing day of ``--days`` (default: the days of ``--judge-replay``) runs
the product's judge (``rank.judge.judge_ranking``) with answers that record its first
screen: the cheap top ``screen_top_k`` in the product's interleaved batches, each request
exactly as the LLM client sends it (system message with the reader prefix, the day's taste
block and the answer's schema; the user message with titles and gists). It writes

    OUT/DAY/NNN.md       one request: its system message and its user message
    OUT/manifest.json    per day and request, the arXiv ids behind the keys S01, S02, ...
    OUT/README.md        where the answers go

Nothing about the picks reaches a request beyond what the product's own prompt carries (the
taste block built from feedback before the day). ``fold`` reads the answers
(``OUT/DAY/NNN.json``: the JSON object the request asks for), validates them as the LLM
client does (keys must be ones sent) and writes a replay file (the ``paperbrief judge
export`` format) with the screens added to the verdicts of ``--judge-replay``:

    .venv/bin/python benchmarks/screen_requests.py write \\
        --listings ../shared/data/listings --picks ../shared/data/picks-dev.json \\
        --judge-replay tests/fixtures/rank/judge-replay-dev.json --out /work/screen19
    .venv/bin/python benchmarks/screen_requests.py fold --requests /work/screen19 \\
        --judge-replay tests/fixtures/rank/judge-replay-dev.json --out replay-screened.json

Re-screens of a batch rated far below its cheap scores (``rank.screen.suspect_batches``)
depend on the first answers; a replay answers them with the paper's first screen (the
ranking benchmark reports how many re-screens a day asked for).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from _args import add_judge_replay, add_ranking_inputs
from pydantic import ValidationError

from paperbrief.llm.repair import parse_answer
from paperbrief.models import ScoredPaper
from paperbrief.profile import load_profile
from paperbrief.rank import Embedder
from paperbrief.rank.evaluate import EvaluatedDay, evaluate_ranking
from paperbrief.rank.judge import (
    Message,
    judge_ranking,
    load_replay,
    replay_record,
)
from paperbrief.rank.judge_prompts import ScreenAnswer, sent
from paperbrief.rank.screen import screen_keys
from paperbrief.records import Verdict
from paperbrief.store import open_store, temporary_store

README = """# First-screen requests of the paperbrief judge ({days} listing days)

Each `DAY/NNN.md` is one request exactly as paperbrief sends it to the judge model: a
system message (the reader, their taste from feedback before that day, the scale, the
screen task and the JSON Schema of the answer) and a user message (titles and gists of
{size} papers, keys S01, S02, ...). Requests per day: {per_day}.

Answer each request on its own, as the model would (it sees only that request): write
`DAY/NNN.json` next to it holding exactly the JSON object the system message asks for,
`{{"papers": [{{"key": "S01", "relevance": 0-100}}, ...]}}`, one entry per key.

Then fold the answers into a replay file the benchmarks read (`paperbrief judge export`
format; the verdicts of the shown papers come from the existing replay):

    .venv/bin/python benchmarks/screen_requests.py fold \\
        --requests {out} --judge-replay tests/fixtures/rank/judge-replay-dev.json \\
        --out {out}/replay-screened.json
"""

SYSTEM, USER = "=== SYSTEM MESSAGE ===", "=== USER MESSAGE ==="


class FirstScreen:
    """``rank.judge.Answers`` that records the first screen's requests and answers nothing
    (the rest of the day's judging then runs on empty answers, as after failed requests)."""

    def __init__(self) -> None:
        self.batches: list[list[ScoredPaper]] = []
        self.requests: list[list[Message]] = []

    def screen(
        self, batches: Sequence[Sequence[ScoredPaper]], requests: Sequence[list[Message]]
    ) -> list[dict[str, int] | Exception]:
        if not self.requests:
            self.batches = [list(b) for b in batches]
            self.requests = [sent(r, ScreenAnswer) for r in requests]
        return [{} for _ in batches]

    def read(
        self, groups: Sequence[Sequence[ScoredPaper]], requests: Sequence[list[Message]]
    ) -> list[dict[str, Verdict] | Exception]:
        return [{} for _ in groups]

    def addresses(
        self, papers: Sequence[ScoredPaper], requests: Sequence[list[Message]]
    ) -> list[list[str] | Exception]:
        return [[] for _ in papers]


def render_request(messages: Sequence[Message]) -> str:
    system, user = messages
    return f"{SYSTEM}\n{system['content']}\n\n{USER}\n{user['content']}\n"


def write(args: argparse.Namespace) -> None:
    profile = load_profile(args.profile)
    days = set(args.days or load_replay(args.judge_replay).verdicts)
    manifest: dict[str, dict[str, list[str]]] = {}
    out: Path = args.out

    def observe(day: EvaluatedDay) -> None:
        key = day.day.day.isoformat()
        if key not in days or key in manifest:
            return
        recorder = FirstScreen()
        judge_ranking(day.cheap, profile, recorder, day.reader.reader)
        true_id = {opaque: real for real, opaque in day.day.opaque.items()}
        folder = out / key
        folder.mkdir(parents=True, exist_ok=True)
        manifest[key] = {}
        for n, (batch, messages) in enumerate(
            zip(recorder.batches, recorder.requests, strict=True), 1
        ):
            name = f"{n:03d}"
            (folder / f"{name}.md").write_text(render_request(messages), encoding="utf-8")
            manifest[key][name] = [true_id[s.paper.id] for s in batch]
        print(f"{key}: {len(recorder.requests)} requests", flush=True)

    with open_store(args.cache) as store, temporary_store() as scratch:
        embedder = Embedder(cache=store.embeddings, model_name=profile.rank.embedding_model)
        evaluate_ranking(
            args.listings, args.picks, profile, embedder, replay=scratch, observe=observe
        )
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    counts = sorted({len(v) for v in manifest.values()})
    (out / "README.md").write_text(
        README.format(
            days=len(manifest),
            size=profile.rank.screen_batch_size,
            per_day=", ".join(map(str, counts)),
            out=out,
        ),
        encoding="utf-8",
    )
    print(f"wrote {sum(len(v) for v in manifest.values())} requests of {len(manifest)} days")


def fold(args: argparse.Namespace) -> None:
    folder: Path = args.requests
    manifest: dict[str, dict[str, list[str]]] = json.loads(
        (folder / "manifest.json").read_text(encoding="utf-8")
    )
    base = load_replay(args.judge_replay)
    record: dict[str, dict[str, dict[str, object]]] = {}
    missing: list[str] = []
    for day, requests in sorted(manifest.items()):
        screens: dict[str, int] = {}
        for name, ids in sorted(requests.items()):
            path = folder / day / f"{name}.json"
            try:
                answer = parse_answer(path.read_text(encoding="utf-8"), ScreenAnswer)
            except (OSError, ValueError, ValidationError) as error:
                missing.append(f"{day}/{name}: {type(error).__name__}: {str(error)[:120]}")
                continue
            by_key = dict(zip(screen_keys(len(ids)), ids, strict=True))
            given = {v.key: v.relevance for v in answer.papers if v.key in by_key}
            if len(given) < len(ids):
                missing.append(f"{day}/{name}: {len(ids) - len(given)} keys unanswered")
            screens |= {by_key[k]: r for k, r in given.items()}
        record[day] = replay_record(base.verdicts.get(day, {}), screens)
    for day, verdicts in base.verdicts.items():
        record.setdefault(day, replay_record(verdicts))
    args.out.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    screened = sum(1 for day in record.values() for v in day.values() if "screen" in v)
    print(f"wrote {args.out}: {screened} screens over {len(manifest)} days")
    for problem in missing:
        print(f"  not folded: {problem}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    w = commands.add_parser("write", help="Write the first-screen requests.")
    add_ranking_inputs(w)
    add_judge_replay(w, required=True, help="Its days are written.")
    w.add_argument("--days", type=date.fromisoformat, nargs="*", default=None)
    w.add_argument("--out", type=Path, required=True)
    f = commands.add_parser("fold", help="Fold the answers into a replay file.")
    f.add_argument("--requests", type=Path, required=True)
    add_judge_replay(f, required=True)
    f.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.command == "write":
        if args.days:
            args.days = [d.isoformat() for d in args.days]
        write(args)
    else:
        fold(args)


if __name__ == "__main__":
    main()
