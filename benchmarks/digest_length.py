"""How long a digest is: Chinese characters per pick and for the day-level parts.

    .venv/bin/python benchmarks/digest_length.py DIGEST.md [DIGEST.md ...]

The digest format asks for about 5,000–6,000 Chinese characters for 3–5 papers (the rest
English terms, numbers and tables); the writer prompts ask for about 1,200–1,500 per full
text pick and 800–1,100 for the day-level parts. For each digest this prints the CJK
characters of each pick's sections (as ``paperbrief verify`` reads them: prose, result
notes, tables), of the day-level parts, and the total against the format's range.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paperbrief.text.cjk import count_ideographs  # noqa: E402
from paperbrief.write.claims import DAY, read_markdown  # noqa: E402

FORMAT = (5000, 6000)


def report(path: Path) -> None:
    read = read_markdown(path.read_text(encoding="utf-8"))
    per_paper: dict[str, int] = defaultdict(int)
    for chunk in read.chunks:
        per_paper[chunk.paper] += count_ideographs(chunk.text)
    total = sum(per_paper.values())
    print(f"\n{path.name}: {total} CJK characters in all (format: {FORMAT[0]}–{FORMAT[1]})")
    for paper in read.papers:
        title = read.titles.get(paper, "")[:60]
        print(f"  {paper:<12} {per_paper.get(paper, 0):>6}  {title}")
    print(f"  {'day-level':<12} {per_paper.get(DAY, 0):>6}  summary, theme, closing")
    picks = len(read.papers)
    if picks:
        print(f"  per pick: {(total - per_paper.get(DAY, 0)) // picks}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("digests", nargs="+", type=Path)
    args = parser.parse_args()
    for path in args.digests:
        report(path)


if __name__ == "__main__":
    main()
