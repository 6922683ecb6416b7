"""The judge's per-paper requests on development days: what they are made of, and the
exact text of a sample, for a model to answer offline.

The development days are replayed as ``paperbrief eval ranking --learn --judge-replay``
does (``evaluate_ranking``: walk-forward feedback, shuffled opaque ids; the recorded
screens choose the head); for each day the product's per-paper request
(``judge_prompts.judge_messages`` with the schema the client appends, ``sent``) is rebuilt
for the papers of the judged head.

``sizes`` prints one real request's composition in tokens (``paperbrief.text.
estimate_tokens``, the budget's estimator): every ``## `` section of the system message
(the reader's profile and the taste block apart from the words around them), the answer's
JSON Schema, and the paper part (the user message), then per day the head's size, the
per-paper request size (mean, max) and the day's judge tokens::

    .venv/bin/python benchmarks/judge_requests.py sizes --listings ../shared/data/listings \\
        --picks ../shared/data/picks-dev.json --judge-replay \\
        benchmarks/data/judge-replay-dev-screened.json [--days 2026-04-21 2026-05-22]

``heads`` writes each day's head (true arXiv ids, in the order chosen) to a JSON file, so
the heads of two versions of the prompt can be compared; ``write`` writes the requests of
the papers that enter the head since ``--old-heads`` (all of them) plus ``--already`` papers
that were in the old head too (those with a recorded verdict first, then spread over the
rest), one file per request::

    OUT/DAY/ARXIV_ID.txt   the request: its system message and its user message
    OUT/index.json         [{"day", "id", "was_in_old_head", "has_recorded_verdict"}, ...]

``fold`` reads the answers (``OUT/DAY/ARXIV_ID.json``, the JSON object the request asks
for), validates them as the client does, and writes a replay file: the answered verdicts
over those of ``--judge-replay`` (its screens kept), for ``ranking_bench.py --judge-replay``::

    .venv/bin/python benchmarks/judge_requests.py fold --requests OUT \\
        --judge-replay benchmarks/data/judge-replay-dev-screened.json --out replay-new.json

``agree`` compares the answers with the verdicts ``--judge-replay`` recorded for the same
papers (under the prompt of its day): stars equal, within one, mean relevance difference,
and the stars of the papers that entered the head only with the larger budget::

    .venv/bin/python benchmarks/judge_requests.py agree --requests \\
        benchmarks/data/judge-compact-sample --judge-replay \\
        benchmarks/data/judge-replay-dev-screened.json
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from _args import DEFAULT_PROFILE, add_judge_replay, add_ranking_inputs
from pydantic import ValidationError

from paperbrief.llm.repair import parse_answer
from paperbrief.profile import Profile, load_profile
from paperbrief.prompts import describe_profile
from paperbrief.rank import Embedder
from paperbrief.rank.evaluate import EvaluatedDay, evaluate_ranking
from paperbrief.rank.judge import (
    Message,
    load_replay,
    prompt_tokens,
    replay_record,
    verdicts_by_key,
)
from paperbrief.rank.judge_prompts import JudgeAnswer, judge_messages, judge_profile, sent
from paperbrief.records import Verdict
from paperbrief.store import open_store, temporary_store
from paperbrief.text import estimate_tokens

SYSTEM, USER = "=== SYSTEM MESSAGE ===", "=== USER MESSAGE ==="
SCHEMA_NOTE = "\n\nAnswer with exactly one JSON object"


def request(day: EvaluatedDay, paper_id: str, profile: Profile) -> list[Message]:
    """The per-paper request of ``paper_id`` (an opaque id of ``day``) as the client sends it,
    for the loaded ``profile`` (loaded once by the caller, not once per head paper)."""
    paper = next(s.paper for s in day.cheap if s.paper.id == paper_id)
    return sent(judge_messages(profile, day.reader.reader.taste, [paper], ["P01"]), JudgeAnswer)


def composition(
    messages: Sequence[Message], profile_text: str, taste: str
) -> list[tuple[str, int]]:
    """(part, tokens) of one request, in order; the parts add up to the request."""
    system, user = messages[0]["content"], messages[1]["content"]
    body, _, schema = system.partition(SCHEMA_NOTE)
    parts: list[tuple[str, int]] = []
    for number, section in enumerate(re.split(r"(?m)^(?=## )", body)):
        title = section.splitlines()[0].removeprefix("## ") if number else "opening"
        for inner, name in ((profile_text, "reader's profile"), (taste, "taste block")):
            if inner and inner in section:
                parts.append((f"{title}: {name}", estimate_tokens(inner)))
                section = section.replace(inner, "", 1)
        parts.append((title if number else "opening", estimate_tokens(section)))
    parts.append(("answer schema (appended by the client)", estimate_tokens(SCHEMA_NOTE + schema)))
    parts.append(("paper part (user message)", estimate_tokens(user)))
    return parts


def replay_days(args: argparse.Namespace, profile: Profile, wanted: set[str]) -> list[EvaluatedDay]:
    replay = load_replay(args.judge_replay)
    days: list[EvaluatedDay] = []

    def observe(day: EvaluatedDay) -> None:
        if day.judged is not None and day.day.day.isoformat() in wanted:
            days.append(day)

    with open_store(args.cache) as store, temporary_store() as scratch:
        embedder = Embedder(cache=store.embeddings, model_name=profile.rank.embedding_model)
        evaluate_ranking(
            args.listings,
            args.picks,
            profile,
            embedder,
            replay=scratch,
            judge_replay=replay,
            observe=observe,
        )
    return days


def true_ids(day: EvaluatedDay, ids: Sequence[str]) -> list[str]:
    real = {opaque: arxiv for arxiv, opaque in day.day.opaque.items()}
    return [real.get(i, i) for i in ids]


def sizes(args: argparse.Namespace) -> None:
    wanted = set(args.days or load_replay(args.judge_replay).verdicts)
    profile = load_profile(args.profile)
    days = replay_days(args, profile, wanted)
    print(f"budget {profile.rank.judge_prompt_tokens:,} prompt tokens a day")
    # the composition of the last day's request: its taste block is the fullest
    for day in days:
        assert day.judged is not None
        head = day.judged.head
        costs = [prompt_tokens(request(day, pid, profile)) for pid in head]
        if day is days[-1]:
            messages = request(day, head[len(head) // 2], profile)
            parts = composition(messages, judge_profile(profile), day.reader.reader.taste)
            total = prompt_tokens(messages)
            print(f"\none per-paper request ({day.day.day}, the head's middle paper): {total:,}")
            for name, tokens in parts:
                print(f"  {name:52s}{tokens:>7,}  {tokens / total:6.1%}")
            print(f"  {'(sum of the parts)':52s}{sum(t for _, t in parts):>7,}")
            shared = estimate_tokens(messages[0]["content"])
            print(f"  shared prefix (system message, same for every paper of the day): {shared:,}")
            old = estimate_tokens(describe_profile(profile))
            print(f"  (the writers' describe_profile of the same reader: {old:,})")
            if args.print_request:
                print(render_request(messages))
        t = day.judged.tokens
        print(
            f"{day.day.day}: head {len(head)} (cut by budget: {day.judged.head_cut_by_budget});"
            f" per-paper request mean {sum(costs) / max(len(costs), 1):,.0f},"
            f" max {max(costs, default=0):,}; screen {t.screen_prompt:,}"
            f" in {t.screen_requests} requests; reads {t.judge_prompt:,};"
            f" day {t.prompt:,}; shared prefix {t.prefix_share:.3f}"
        )


def heads(args: argparse.Namespace) -> None:
    wanted = set(args.days or load_replay(args.judge_replay).verdicts)
    record = {
        day.day.day.isoformat(): true_ids(day, day.judged.head)
        for day in replay_days(args, load_profile(args.profile), wanted)
        if day.judged is not None
    }
    args.out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: " + ", ".join(f"{d} {len(h)}" for d, h in sorted(record.items())))


def render_request(messages: Sequence[Message]) -> str:
    system, user = messages
    return f"{SYSTEM}\n{system['content']}\n\n{USER}\n{user['content']}\n"


def write(args: argparse.Namespace) -> None:
    old: dict[str, list[str]] = json.loads(args.old_heads.read_text(encoding="utf-8"))
    wanted = set(args.days or ())
    if not wanted:
        raise SystemExit("write needs --days")
    profile = load_profile(args.profile)
    recorded = load_replay(args.judge_replay).verdicts
    index: list[dict[str, object]] = []
    index_days: list[str] = []
    for day in replay_days(args, profile, wanted):
        assert day.judged is not None
        key = day.day.day.isoformat()
        new_head = day.judged.head
        real = true_ids(day, new_head)
        before = set(old.get(key, []))
        entering = [(o, r) for o, r in zip(new_head, real, strict=True) if r not in before]
        kept = [(o, r) for o, r in zip(new_head, real, strict=True) if r in before]
        # --already in all, shared out over the days (the first days take the remainder)
        share = args.already // len(wanted) + (len(index_days) < args.already % len(wanted))
        index_days.append(key)
        # those with a recorded verdict first (they can be compared), then spread over the rest
        verdicts = recorded.get(key, {})
        sample = [(o, r) for o, r in kept if r in verdicts][:share]
        rest = [pair for pair in kept if pair not in sample]
        step = max(len(rest) / max(share - len(sample), 1), 1.0)
        sample += [rest[int(i * step)] for i in range(min(share - len(sample), len(rest)))]
        folder = args.out / key
        folder.mkdir(parents=True, exist_ok=True)
        for opaque, arxiv in [*entering, *sample]:
            text = render_request(request(day, opaque, profile))
            (folder / f"{arxiv}.txt").write_text(text, encoding="utf-8")
            index.append(
                {
                    "day": key,
                    "id": arxiv,
                    "was_in_old_head": arxiv in before,
                    "has_recorded_verdict": arxiv in recorded.get(key, {}),
                }
            )
        print(
            f"{key}: head {len(before)} -> {len(new_head)}; {len(entering)} entering,"
            f" {len(sample)} already in it; {len(before - set(real))} left it",
            flush=True,
        )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(index)} requests under {args.out}")


def _answers(folder: Path, profile_path: Path) -> tuple[dict[tuple[str, str], Verdict], list[str]]:
    """The sample's answers (``DAY/ID.json`` beside each request: the JSON object it asks
    for), validated as the LLM client does, by (day, id); and what could not be read."""
    index = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    profile = load_profile(profile_path)
    found: dict[tuple[str, str], Verdict] = {}
    problems: list[str] = []
    for entry in index:
        day, paper_id = str(entry["day"]), str(entry["id"])
        path = folder / day / f"{paper_id}.json"
        try:
            answer = parse_answer(path.read_text(encoding="utf-8"), JudgeAnswer)
        except (OSError, ValueError, ValidationError) as error:
            problems.append(f"{day}/{paper_id}: {type(error).__name__}: {str(error)[:120]}")
            continue
        verdict = verdicts_by_key(answer, ["P01"], profile).get("P01")
        if verdict is None:
            problems.append(f"{day}/{paper_id}: no verdict for P01")
            continue
        found[(day, paper_id)] = verdict
    return found, problems


def fold(args: argparse.Namespace) -> None:
    """The sample's answers over the verdicts of ``--judge-replay``, as a replay file."""
    answers, problems = _answers(args.requests, args.profile)
    base = load_replay(args.judge_replay)
    verdicts = {day: dict(found) for day, found in base.verdicts.items()}
    for (day, paper_id), verdict in answers.items():
        verdicts.setdefault(day, {})[paper_id] = verdict
    days = sorted(set(verdicts) | set(base.screens))
    record = {d: replay_record(verdicts.get(d, {}), base.screens.get(d, {})) for d in days}
    args.out.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    total = len(answers) + len(problems)
    print(f"wrote {args.out}: {len(answers)} of {total} answers folded")
    for problem in problems:
        print(f"  not folded: {problem}")


def agree(args: argparse.Namespace) -> None:
    """The sample's answers against the verdicts recorded for the same papers."""
    index = json.loads((args.requests / "index.json").read_text(encoding="utf-8"))
    new_head = {(str(e["day"]), str(e["id"])) for e in index if not e["was_in_old_head"]}
    answers, problems = _answers(args.requests, args.profile)
    for problem in problems:
        print(f"  not read: {problem}")
    recorded = load_replay(args.judge_replay).verdicts
    pairs = [
        (key, recorded[key[0]][key[1]], verdict)
        for key, verdict in sorted(answers.items())
        if key[1] in recorded.get(key[0], {})
    ]
    print(f"{len(answers)} answers; {len(pairs)} papers also have a recorded verdict")
    if pairs:
        equal = sum(old.stars == new.stars for _, old, new in pairs)
        near = sum(abs(old.stars - new.stars) <= 1 for _, old, new in pairs)
        diff = sum(abs(old.relevance - new.relevance) for _, old, new in pairs) / len(pairs)
        print(f"  stars equal {equal}/{len(pairs)}, within one {near}/{len(pairs)}")
        print(f"  mean |relevance difference| {diff:.1f}")
        for (day, paper_id), old, new in pairs:
            where = "new head" if (day, paper_id) in new_head else "old head"
            print(
                f"  {day} {paper_id} ({where}): ★{old.stars} → ★{new.stars}, "
                f"{old.relevance} → {new.relevance}"
            )
    stars = Counter(v.stars for key, v in answers.items() if key in new_head)
    shown = ", ".join(f"★{s} {stars[s]}" for s in sorted(stars))
    print(f"  papers in the head only with the larger budget ({sum(stars.values())}): {shown}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    folding = commands.add_parser("fold", help="Fold the sample's answers into a replay file.")
    folding.add_argument("--requests", type=Path, required=True)
    add_judge_replay(folding, required=True)
    folding.add_argument("--profile", type=Path, default=DEFAULT_PROFILE)
    folding.add_argument("--out", type=Path, required=True)
    agreeing = commands.add_parser("agree", help="The answers against the recorded verdicts.")
    agreeing.add_argument("--requests", type=Path, required=True)
    add_judge_replay(agreeing, required=True)
    agreeing.add_argument("--profile", type=Path, default=DEFAULT_PROFILE)
    for name, text in (
        ("sizes", "Print a request's composition and each day's head and tokens."),
        ("heads", "Write each day's head (true ids) to --out."),
        ("write", "Write the sample of per-paper requests."),
    ):
        command = commands.add_parser(name, help=text)
        add_ranking_inputs(command)
        add_judge_replay(command, required=True)
        command.add_argument("--days", type=date.fromisoformat, nargs="*", default=None)
        if name == "sizes":
            command.add_argument("--print-request", action="store_true")
        else:
            command.add_argument("--out", type=Path, required=True)
        if name == "write":
            command.add_argument("--old-heads", type=Path, required=True)
            command.add_argument(
                "--already", type=int, default=15, help="Old-head papers, in all days."
            )
    args = parser.parse_args(argv)
    if getattr(args, "days", None):
        args.days = [d.isoformat() for d in args.days]
    commands_by_name = {
        "sizes": sizes,
        "heads": heads,
        "write": write,
        "fold": fold,
        "agree": agree,
    }
    commands_by_name[args.command](args)


if __name__ == "__main__":
    main()
