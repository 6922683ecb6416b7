"""Parse time and peak memory of the full-text parsers on the real fixture papers.

    .venv/bin/python benchmarks/fulltext_bench.py [FILE ...]

Without arguments it reads every page and PDF in tests/fixtures/fulltext. For each file it
prints the size, the median wall time of ``--runs`` parses (``read_local_file``, i.e.
classification + parsing, plus numbering its evidence units and planning the writer's read),
the peak of Python allocations during one parse (tracemalloc), and the peak resident
memory a parse adds in a fresh spawned interpreter (Linux ``VmHWM`` after resetting it through
``/proc/self/clear_refs``, minus ``VmRSS`` before): libxml2's tree and PDFium's heap are
C memory that tracemalloc does not see.
"""

from __future__ import annotations

import argparse
import multiprocessing
import re
import resource
import statistics
import time
import tracemalloc
from pathlib import Path

from paperbrief.fulltext import build_units, plan_reading, read_local_file

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "fulltext"


def measure(path: Path, runs: int) -> tuple[float, float, float, str]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        doc = read_local_file(path)
        parse_seconds = time.perf_counter() - start
        times.append(parse_seconds)
    start = time.perf_counter()
    evidence = build_units(doc)
    plan_reading(doc, 20000)
    views_seconds = time.perf_counter() - start
    tracemalloc.start()
    read_local_file(path)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    summary = (
        f"{len(doc.sections)} sections, {len(doc.tables)} tables, "
        f"{len(doc.figures)} figures, {len(evidence)} evidence units"
    )
    return statistics.median(times), views_seconds, peak / 2**20, summary


def _status_kb(field: str) -> int:
    text = Path("/proc/self/status").read_text()
    match = re.search(rf"^{field}:\s+(\d+) kB", text, re.MULTILINE)
    return int(match.group(1)) if match else 0


def _rss_child(path: Path, queue: multiprocessing.Queue) -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        queue.put(float("nan"))
        return
    before = _status_kb("VmRSS")
    read_local_file(path)
    queue.put((_status_kb("VmHWM") - before) / 1024)


def rss_delta_mb(path: Path) -> float:
    """Peak RSS growth of one parse in a spawned child (NaN where /proc is unavailable)."""
    context = multiprocessing.get_context("spawn")
    queue: multiprocessing.Queue = context.Queue()
    child = context.Process(target=_rss_child, args=(path, queue))
    child.start()
    value = queue.get(timeout=120)
    child.join()
    return float(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    files = args.files or sorted(
        p for p in FIXTURES.iterdir() if p.suffix.lower() in (".html", ".htm", ".pdf")
    )
    print(
        f"{'file':<50} {'KB':>5} {'parse ms':>8} {'views ms':>8} {'py MB':>6} {'rss MB':>6}"
        "  contents"
    )
    for path in files:
        median, views, peak, summary = measure(path, args.runs)
        size = path.stat().st_size / 1024
        rss = rss_delta_mb(path)
        print(
            f"{path.name:<50} {size:>5.0f} {median * 1000:>8.1f} {views * 1000:>8.1f}"
            f" {peak:>6.1f} {rss:>6.1f}  {summary}"
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"process max RSS: {rss:.0f} MB")


if __name__ == "__main__":
    main()
