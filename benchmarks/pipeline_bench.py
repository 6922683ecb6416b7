"""Wall time and peak memory of the offline pipeline for one listing day, cold and warm.

    .venv/bin/python benchmarks/pipeline_bench.py [--listing FILE] [--profile FILE]
        [--venv DIR] [--drop-caches]

cold: a fresh data home (the embedding model is loaded and every paper embedded);
warm: the same home again with --force (listing, embeddings and full texts come from the
store; ranking, writing and rendering run again); reuse: a plain rerun (the published
digest is reused). Each measurement runs in its own process, so peak RSS is its own.
``--venv`` also prints the size of that virtualenv (what `make` installed); ``--drop-caches``
(root only) empties the page cache before the cold run, as on a machine just booted.
Timings are wall-clock: when other jobs share the cores they are noisy, so compare
CPU seconds too (user + sys of the run's process).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def measure_in_child(listing: str, profile: str, home: str, out: str, force: bool) -> None:
    os.environ["PAPERBRIEF_HOME"] = home
    from click.testing import CliRunner

    from paperbrief.cli import cli

    args = ["run", "--listing", listing, "--profile", profile, "--out", out, "--offline"]
    start = time.perf_counter()
    result = CliRunner().invoke(cli, [*args, *(["--force"] if force else [])])
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    peak_mib = usage.ru_maxrss / 1024
    cpu = usage.ru_utime + usage.ru_stime
    print(
        json.dumps({"exit": result.exit_code, "wall_s": wall, "peak_mib": peak_mib, "cpu_s": cpu})
    )


def folder_mib(folder: Path) -> float:
    """Disk use of a folder in MiB (as `du -s`: allocated blocks, hard links once)."""
    seen: set[tuple[int, int]] = set()
    blocks = 0
    for path in folder.rglob("*"):
        info = path.lstat()
        if (info.st_dev, info.st_ino) not in seen:
            seen.add((info.st_dev, info.st_ino))
            blocks += info.st_blocks
    return blocks * 512 / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listing", default=str(ROOT / "examples/listings/2026-05-22.jsonl.gz"))
    parser.add_argument("--profile", default=str(ROOT / "examples/profile.toml"))
    parser.add_argument("--venv", type=Path, help="Also print this virtualenv's size.")
    parser.add_argument("--drop-caches", action="store_true", help="Cold page cache (root).")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        listing, profile, home, out, force = args.child
        measure_in_child(listing, profile, home, out, force == "1")
        return
    with tempfile.TemporaryDirectory() as scratch:
        home, out = f"{scratch}/home", f"{scratch}/out"
        rows = []
        for label, force in (("cold", "0"), ("warm (--force)", "1"), ("reuse", "0")):
            command = [sys.executable, __file__, "--child", args.listing, args.profile, home, out]
            if args.drop_caches and label == "cold":
                subprocess.run(["sh", "-c", "sync; echo 3 > /proc/sys/vm/drop_caches"], check=True)
            start = time.perf_counter()
            done = subprocess.run([*command, force], capture_output=True, text=True, check=True)
            process_wall = time.perf_counter() - start
            result = json.loads(done.stdout.strip().splitlines()[-1])
            if result["exit"] != 0:
                sys.exit(f"{label} run failed with exit code {result['exit']}")
            row = (label, result["wall_s"], process_wall, result["cpu_s"], result["peak_mib"])
            rows.append(row)
    print(f"listing: {Path(args.listing).name}; load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'run':<16}{'pipeline s':>12}{'process s':>12}{'CPU s':>8}{'peak RSS MiB':>15}")
    for label, wall, process_wall, cpu, peak in rows:
        print(f"{label:<16}{wall:>12.1f}{process_wall:>12.1f}{cpu:>8.1f}{peak:>15.0f}")
    if args.venv is not None:
        print(f"virtualenv {args.venv}: {folder_mib(args.venv):.0f} MiB")


if __name__ == "__main__":
    main()
