"""Library import at real sizes: `feedback import` of 5k / 20k / 100k arXiv ids and
`profile init --from` of BibTeX exports of the same sizes, each in a fresh home, wall time
and peak memory of the whole command (issue 21: completing ids was quadratic, 100k still
running at 290 s).

    .venv/bin/python benchmarks/library_bench.py [--sizes 5000 20000 100000] [--skip-init]

The exports are made from the bundled sample day's 480 real papers, repeated under fresh
ids (the text of a real library; its size is what is measured). `profile init` clusters an
even sample of 1,500 papers, so its time grows with reading the export, not with the
embedding.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from paperbrief.sources import load_snapshot  # noqa: E402

SAMPLE = ROOT / "src" / "paperbrief" / "data" / "sample" / "2026-05-22.jsonl.gz"


def fake_id(n: int) -> str:
    return f"{2001 + n // 99999 % 99:04d}.{n % 99999 + 1:05d}"


def write_exports(folder: Path, size: int) -> tuple[Path, Path]:
    papers = load_snapshot(SAMPLE).papers
    ids = folder / f"ids-{size}.txt"
    ids.write_text("\n".join(fake_id(n) for n in range(size)) + "\n", encoding="utf-8")
    bib = folder / f"library-{size}.bib"
    with bib.open("w", encoding="utf-8") as out:
        for n in range(size):
            paper = papers[n % len(papers)]
            out.write(
                f"@misc{{p{n},\n  title = {{{paper.title}}},\n  abstract = {{{paper.abstract}}},\n"
                f"  note = {{arXiv:{fake_id(n)} [cs]}},\n"
                "  keywords = {Computer Science - Software Engineering},\n}\n\n"
            )
    return ids, bib


def timed(command: list[str], home: Path) -> tuple[float, int, int]:
    env = {**os.environ, "PAPERBRIEF_HOME": str(home)}
    started = time.monotonic()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *command], env=env, capture_output=True, text=True
    )
    peak_kb = int(done.stderr.strip().splitlines()[-1]) if done.stderr.strip() else 0
    return time.monotonic() - started, peak_kb // 1024, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[5_000, 20_000, 100_000])
    parser.add_argument("--skip-init", action="store_true", help="only `feedback import`")
    args = parser.parse_args()
    paperbrief = [sys.executable, "-m", "paperbrief", "-q"]
    print(f"{'size':>8}  {'command':<34} {'wall s':>7} {'peak MiB':>9} {'exit':>5}")
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        for size in args.sizes:
            ids, bib = write_exports(folder, size)
            runs = [("feedback import ids", [*paperbrief, "feedback", "import", str(ids)])]
            if not args.skip_init:
                out = folder / f"profile-{size}.toml"
                runs.append(
                    ("profile init --from .bib --offline",
                     [*paperbrief, "profile", "init", "--from", str(bib), "--offline",
                      "--name", "Bench", str(out)])
                )  # fmt: skip
            for what, command in runs:
                seconds, peak, code = timed(command, folder / f"home-{size}-{what[:7]}")
                print(f"{size:>8}  {what:<34} {seconds:>7.1f} {peak:>9} {code:>5}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
