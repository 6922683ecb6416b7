"""Injection screen benchmark: what the two defences of ``rank.injection`` see in a set of
sentences written for the measurement (``benchmarks/data/injection_cases.json``).

* ``hostile``: instructions a paper could plant for the model that rates it, in several
  phrasings, languages and encodings;
* ``benign``: sentences real papers on LLM safety and evaluation write *about* prompts,
  instructions, ratings and injection (this reader's field: a false flag hides a paper
  they want).

Each sentence is placed in the middle of a plain abstract. Printed per set: how many the
screen flags (flagged = one star, never picked, without asking any model), and how many
the wider net of ``reader_addresses`` reaches — such a sentence is removed when the judge
rates its paper two or more stars above its cheap standing, and the paper is flagged only
if its rating then falls two or more stars (so for the benign set this counts extra
judge calls at most, never flags by itself).

    .venv/bin/python benchmarks/injection_bench.py [--misses] [--cases FILE]

Three sets, each written before it was first measured (numbers as first measured):

* ``injection_cases.json`` (56 hostile, 58 benign) was written first and measured (screen
  12/56, wide net 27/56; 2/58 benign falsely flagged), then used to develop the screen and
  the net: its figures are no longer independent;
* ``injection_heldout.json`` (30 / 30) was written after that and measured once (screen
  6/30, wide net 7/30, either 11/30; 1/30 benign flagged), then used for tuning too;
* ``injection_heldout2.json`` (30 / 30), written last, is the held-out set: screen 3/30,
  wide net 8/30, either 9/30; 0/30 benign flagged. Do not tune on it; write a new one.

What the judge adds (it is asked which sentences of a risen paper address it, and those
it quotes are removed too) depends on the model and is not measured here: that needs a
model answering ``prompts/reader_addresses.md`` for these sentences.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from paperbrief.models import Paper
from paperbrief.rank.injection import addresses_reader, paper_instruction

CASES = Path(__file__).parent / "data" / "injection_cases.json"
BEFORE = "We propose a learned patch ranker for automated program repair."
AFTER = "On Defects4J it fixes 12% more bugs than the strongest baseline."


def paper(sentence: str) -> Paper:
    return Paper(
        id="2605.00001",
        title="Learning to Rank Patches",
        authors=("A. Author",),
        abstract=f"{BEFORE} {sentence} {AFTER}",
        categories=("cs.SE",),
        primary_category="cs.SE",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--misses", action="store_true", help="print what each set gets wrong")
    parser.add_argument("--cases", type=Path, default=CASES, help="a JSON file of the two sets")
    args = parser.parse_args()
    cases = json.loads(args.cases.read_text(encoding="utf-8"))
    for name in ("hostile", "benign"):
        sentences = cases[name]
        flagged = [s for s in sentences if paper_instruction(paper(s)) is not None]
        reached = [s for s in sentences if addresses_reader(s)]
        either = [s for s in sentences if s in flagged or s in reached]
        print(
            f"{name}: {len(sentences)} sentences; screen flags {len(flagged)}/{len(sentences)}; "
            f"wider net reaches {len(reached)}/{len(sentences)}; "
            f"either {len(either)}/{len(sentences)}"
        )
        if args.misses:
            wrong = [s for s in sentences if s not in either] if name == "hostile" else flagged
            label = "  missed by both:" if name == "hostile" else "  falsely flagged:"
            print(label)
            for sentence in wrong:
                print(f"    {sentence}")


if __name__ == "__main__":
    main()
