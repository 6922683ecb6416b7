"""The number verifier, measured: false alarms, planted wrong numbers caught, cost.

    .venv/bin/python benchmarks/verify_bench.py [--no-demo] [--per-section N] [--misses]

Honest digests (every one written by paperbrief itself):

* the LLM path with the shared model answers (2501.11120, 2304.02623) and with a
  hand-written answer for a made-up field-experiment page (tests/fixtures/model-answers),
  both through the real writer against a loopback OpenAI-compatible endpoint;
* the offline writer on the full texts of the fixture papers;
* the product's demo digest (``make demo``: the example listing, offline, abstracts only),
  unless ``--no-demo`` (it loads the embedding model, ~1 minute).

For each it prints the claims checked and the false alarms (must be 0), then plants wrong
numbers of every kind the issue names (tests/support/planted.py: ×100/÷100, citation
markers, 24/7-style ratios, standard errors, example prompts, years, section/table numbers,
wrong units, "31 million" vs 31, changed digits) in every section that carries numbers and
prints the share caught per kind and per section; then how often a random 0.XY value is
accepted against each paper, and the wall time of verifying 47 KB and 235 KB number-dense
digests (linear-time check). Timings on a loaded 2-core machine are noisy; rerun idle.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paperbrief.pipeline import RunOptions, run_day  # noqa: E402
from paperbrief.profile import load_profile  # noqa: E402
from paperbrief.services import Services  # noqa: E402
from paperbrief.store import open_store  # noqa: E402
from paperbrief.text import find_numbers  # noqa: E402
from paperbrief.write.claims import read_markdown  # noqa: E402
from paperbrief.write.verify import (  # noqa: E402
    markdown_checker,
    paper_pool,
    verify_markdown,
)
from tests.support import EXAMPLE_LISTING, EXAMPLE_PROFILE, model_answers  # noqa: E402
from tests.support.digests import (  # noqa: E402
    HonestDigest,
    dense_digest,
    llm_digests,
    offline_fulltext_digest,
)
from tests.support.planted import KINDS, Plant, plant_all, score  # noqa: E402


def demo_digest() -> HonestDigest:
    """`make demo`'s digest, written by the real offline pipeline into a temp home."""
    from paperbrief.cli.verifying import load_documents

    with (
        tempfile.TemporaryDirectory() as home,
        open_store(Path(home) / "paperbrief.db") as store,
    ):
        profile = load_profile(EXAMPLE_PROFILE)
        result = run_day(
            store,
            profile,
            RunOptions(listing_file=EXAMPLE_LISTING, out_dir=Path(home) / "out"),
            Services.build(profile, store, offline=True),
            today=date(2026, 5, 23),
        )
        markdown = result.files["markdown"].read_text(encoding="utf-8")
        docs = load_documents(store, list(read_markdown(markdown).papers))
    return HonestDigest("offline: make demo (abstracts only)", markdown, docs)


def _row(name: str, hit: int, total: int) -> str:
    rate = 100 * hit / total if total else 0.0
    return f"  {name:<18} {hit:>4}/{total:<4} {rate:6.1f} %"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-demo", action="store_true", help="skip the make-demo digest")
    parser.add_argument("--per-section", type=int, default=3, help="plants per section and kind")
    parser.add_argument("--misses", action="store_true", help="print every missed plant")
    args = parser.parse_args()
    known = model_answers.known()
    digests = [*llm_digests(), offline_fulltext_digest()]
    if not args.no_demo:
        digests.append(demo_digest())

    print("Honest digests (false alarms must be 0):")
    false_alarms = 0
    plants: list[tuple[HonestDigest, Plant]] = []
    for digest in digests:
        report = verify_markdown(digest.markdown, digest.documents, known)
        false_alarms += len(report.unverified)
        print(
            f"  {digest.name:<50} {report.numbers:>4} claims, {len(report.unverified)} false alarms"
        )
        for claim in report.unverified:
            print(f"    false alarm: {claim.paper or 'day'} · {claim.section}: {claim.text}")
        plants += [
            (digest, p) for p in plant_all(digest.markdown, digest.documents, args.per_section)
        ]

    totals: dict[str, list[int]] = {}
    sections: dict[str, list[int]] = {}
    missed: list[Plant] = []
    for digest in digests:
        own = [p for d, p in plants if d is digest]
        checker = markdown_checker(read_markdown(digest.markdown), digest.documents, known)
        result = score(own, checker)
        missed += result.missed
        for table, values in ((totals, result.by_kind), (sections, result.by_section)):
            for key, (hit, total) in values.items():
                entry = table.setdefault(key, [0, 0])
                entry[0] += hit
                entry[1] += total
    hit = sum(v[0] for v in totals.values())
    total = sum(v[1] for v in totals.values())
    print(f"\nPlanted wrong numbers: {hit}/{total} caught ({100 * hit / total:.1f} %)")
    print(" by kind:")
    for kind in KINDS:
        print(_row(kind, *totals.get(kind, [0, 0])))
    print(" by section:")
    for section, (h, t) in sorted(sections.items()):
        print(_row(section, h, t))
    for plant in missed if args.misses else missed[:10]:
        line = plant.markdown.split("\n")[plant.line - 1]
        at = max(line.find(plant.planted) - 50, 0)
        print(f"  missed {plant.kind} in {plant.paper or 'day'} · {plant.section}: {plant.planted}")
        print(f"    …{line[at : at + 110]}…")

    print("\nRandom 0.XY values accepted (lower is better; the old verifier: 93 % on 2501.11120):")
    generator = random.Random(7)
    for digest in digests[:2]:
        for paper_id, document in digest.documents.items():
            pool = paper_pool(document)
            values = [f"0.{generator.randrange(10, 100)}" for _ in range(400)]
            accepted = sum(pool.supports(find_numbers(v)[0]) for v in values)
            print(f"  {paper_id:<12} {100 * accepted / len(values):5.1f} %")

    print("\nVerify time of number-dense digests (linear; the old verifier: 39 s for 47 KB):")
    base = digests[0]
    for size in (47_000, 235_000):
        markdown = dense_digest(base.markdown, size)
        started = time.perf_counter()
        report = verify_markdown(markdown, base.documents, known)
        elapsed = time.perf_counter() - started
        kb = len(markdown.encode()) / 1000
        print(f"  {kb:6.0f} KB, {report.numbers:>6} claims: {elapsed:6.2f} s")
    ok = false_alarms == 0 and total and hit / total >= 0.95
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
