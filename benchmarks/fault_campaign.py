"""Re-run issue 11's fault campaign: every case of tests/faults.md, staged by its tests.

    .venv/bin/python benchmarks/fault_campaign.py            # all cases
    .venv/bin/python benchmarks/fault_campaign.py 31 32 39   # some cases, by number

Reads the fault table, runs every test it names in one pytest session (real loopback
servers, child processes, namespaces), and prints, per case, whether it was handled
cleanly (every test of the row passed), then the figure: cases tried / handled cleanly.
Cases outside issue 11's part (marked "—") are listed but not run. Timings are wall
time of the whole session; on a machine shared with other work they are noisy.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLE = ROOT / "tests" / "faults.md"
ROW = re.compile(r"^\|\s*(\d+)\s*\|(.+?)\|(.+?)\|(.+)\|\s*$")


@dataclass(frozen=True)
class Case:
    number: int
    text: str
    tests: tuple[str, ...]  # node ids relative to tests/; empty: not issue 11's part


def read_table(path: Path = TABLE) -> list[Case]:
    cases = []
    for line in path.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if not match:
            continue
        number, text, _, tests = (part.strip() for part in match.groups())
        ids = tuple(t.strip() for t in tests.split(",") if "::" in t)
        cases.append(Case(int(number), text, ids))
    return cases


def _outcomes(report: Path) -> dict[str, str]:
    """node id (relative to tests/) -> passed | failed | skipped."""
    found: dict[str, str] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "").removeprefix("tests.").replace(".", "/") + ".py"
        state = "passed"
        if case.find("skipped") is not None:
            state = "skipped"
        elif case.find("failure") is not None or case.find("error") is not None:
            state = "failed"
        found[f"{module}::{case.get('name')}"] = state
    return found


def main(selected: list[int]) -> int:
    cases = [c for c in read_table() if not selected or c.number in selected]
    in_scope = [c for c in cases if c.tests]
    ids = sorted({test for case in in_scope for test in case.tests})
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.xml"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={report}",
            *(f"tests/{test}" for test in ids),
        ]
        subprocess.run(command, cwd=ROOT, check=False, stdout=subprocess.DEVNULL)
        outcomes = _outcomes(report)
    elapsed = time.monotonic() - started
    clean = 0
    print(f"{'#':>3}  {'result':<9} case")
    for case in cases:
        if not case.tests:
            print(f"{case.number:>3}  {'other':<9} {case.text[:90]} (not issue 11's part)")
            continue
        states = [outcomes.get(test, "missing") for test in case.tests]
        if all(state == "passed" for state in states):
            result, clean = "clean", clean + 1
        elif "failed" in states or "missing" in states:
            result = "FAILED"
        else:
            result = "skipped"
        print(f"{case.number:>3}  {result:<9} {case.text[:90]}")
        for test, state in zip(case.tests, states, strict=True):
            if state != "passed":
                print(f"{'':>14}{state}: {test}")
    others = len(cases) - len(in_scope)
    print()
    print(f"tests run: {len(ids)} in {elapsed:.0f} s")
    print(
        f"cases tried: {len(in_scope)} / handled cleanly: {clean}"
        f" (+{others} listed for other engineers)"
    )
    return 0 if clean == len(in_scope) else 1


if __name__ == "__main__":
    sys.exit(main([int(arg) for arg in sys.argv[1:]]))
