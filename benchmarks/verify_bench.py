"""The claim verifier, measured on errors it was not designed around.

    .venv/bin/python benchmarks/verify_bench.py --honest DIR [--planted DIR ...] [--misses]
        [--profile examples/profile.toml]

``--honest DIR`` holds honest digests (Markdown, as published) and the papers they were
written from, with ``papers.json``: ``{"<arXiv id>": "<file in DIR>", …}`` (and, per digest,
which papers it covers, in its README). For each honest digest it prints the claims read,
how many are traced, and every claim that is not (a false alarm: the digests are honest).

The reader's profile (``--profile``, the one the digests were written for) is read as
``paperbrief verify --profile`` reads it: its own numbers are not claims about a paper.

``--planted DIR`` (repeatable) is a set made by a planter working apart from the verifier:
``oracle.jsonl`` lines ``{"file", "digest", "paper_id", "kind", "section", "original",
"planted", "evidence"}`` and one Markdown copy per line, each differing from its honest
``digest`` in one place (a copy that is absent is rebuilt from the oracle's ``original`` and
``planted``). A planted copy is *caught* when a claim that is not traced in the
honest digest is not traced in the copy (the planted sentence, or the claim it changed);
an ``honest`` paraphrase is a *false alarm* when it makes such a claim. Printed: caught per
kind, per section and overall, false alarms on paraphrases, and with ``--misses`` every copy
that was missed (planted kind, section, sentence) or falsely flagged.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paperbrief.fulltext import read_local_file  # noqa: E402
from paperbrief.models import Document  # noqa: E402
from paperbrief.profile import load_profile  # noqa: E402
from paperbrief.prompts import describe_profile  # noqa: E402
from paperbrief.write.verify import VerifyReport, verify_markdown  # noqa: E402


def load_papers(folder: Path) -> dict[str, Document]:
    mapping = json.loads((folder / "papers.json").read_text(encoding="utf-8"))
    return {paper: read_local_file(folder / name) for paper, name in mapping.items()}


def untraced(report: VerifyReport) -> set[tuple[str, str, str]]:
    return {(c.paper, c.section, c.text) for c in report.untraced}


def honest(
    folder: Path, papers: dict[str, Document], known: list[str]
) -> dict[str, set[tuple[str, str, str]]]:
    print(f"honest digests in {folder}")
    baseline: dict[str, set[tuple[str, str, str]]] = {}
    total = alarms = 0
    for path in sorted(folder.glob("*.md")):
        if path.name.lower().startswith("readme"):
            continue
        started = time.perf_counter()
        report = verify_markdown(path.read_text(encoding="utf-8"), papers, known)
        took = time.perf_counter() - started
        baseline[path.name] = untraced(report)
        total += report.claims
        alarms += len(report.untraced)
        print(f"  {path.name}: {report.traced}/{report.claims} claims traced, "
              f"{len(report.untraced)} not traced ({took:.2f} s)")  # fmt: skip
        for check in report.untraced:
            why = "; ".join(f"{f.check}: {f.detail}" for f in check.findings)
            print(f"    FALSE ALARM {check.paper or 'day'} · {check.section} (line {check.line}): "
                  f"{check.text[:140]}  [{why}]")  # fmt: skip
    print(f"  false alarms on honest digests: {alarms} of {total} claims")
    return baseline


def planted_copy(folder: Path, honest_folder: Path, entry: dict[str, str]) -> str:
    """The planted copy: ``folder/<file>`` when it is there, else rebuilt from the honest
    digest by putting ``planted`` in place of ``original`` (which must occur there once), so
    a set can be kept as its oracle alone (benchmarks/data/planted18)."""
    path = folder / entry["file"]
    if path.exists():
        return path.read_text(encoding="utf-8")
    honest_text = (honest_folder / entry["digest"]).read_text(encoding="utf-8")
    if honest_text.count(entry["original"]) != 1:
        raise SystemExit(
            f"{folder / 'oracle.jsonl'}: {entry['file']}'s original sentence is not in "
            f"{entry['digest']} exactly once; rebuild the honest digests from the same bank "
            "(benchmarks/honest_digests.py) or supply the copy"
        )
    return honest_text.replace(entry["original"], entry["planted"])


def planted(
    folder: Path,
    papers: dict[str, Document],
    honest_folder: Path,
    baseline: dict[str, set[tuple[str, str, str]]],
    show_misses: bool,
    known: list[str],
) -> None:
    lines = [
        json.loads(line)
        for line in (folder / "oracle.jsonl").read_text().splitlines()
        if line.strip()
    ]
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    sections: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    paraphrases = [0, 0]
    misses: list[str] = []
    for entry in lines:
        digest = entry["digest"]
        if digest not in baseline:
            text = (honest_folder / digest).read_text(encoding="utf-8")
            report = verify_markdown(text, papers, known)
            baseline[digest] = untraced(report)
        copy = verify_markdown(planted_copy(folder, honest_folder, entry), papers, known)
        new = untraced(copy) - baseline[digest]
        if entry["kind"] == "honest":
            paraphrases[1] += 1
            paraphrases[0] += bool(new)
            if new and show_misses:
                misses.append(f"FALSE ALARM paraphrase {entry['file']} · {entry['section']}: "
                              f"{entry['planted'][:120]} → {sorted(new)[0][2][:100]}")  # fmt: skip
            continue
        caught = bool(new)
        for table, key in ((kinds, entry["kind"]), (sections, entry["section"])):
            table[key][0] += caught
            table[key][1] += 1
        if not caught and show_misses:
            misses.append(f"MISSED {entry['kind']} {entry['file']} · {entry['section']}: "
                          f"{entry['planted'][:140]}")  # fmt: skip
    print(f"\nplanted set {folder}: {len(lines)} copies")
    total = [sum(v[0] for v in kinds.values()), sum(v[1] for v in kinds.values())]
    print("  per kind:")
    for kind, (caught, count) in sorted(kinds.items()):
        print(f"    {kind:<14} {caught:>3}/{count:<3} {100 * caught / count:5.1f} %")
    print("  per section:")
    for section, (caught, count) in sorted(sections.items()):
        print(f"    {section:<14} {caught:>3}/{count:<3} {100 * caught / count:5.1f} %")
    if total[1]:
        print(f"  caught overall: {total[0]}/{total[1]} ({100 * total[0] / total[1]:.1f} %)")
    print(f"  false alarms on honest paraphrases: {paraphrases[0]} of {paraphrases[1]}")
    for line in misses:
        print("  " + line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--honest", type=Path, required=True, help="honest digests + papers.json")
    parser.add_argument("--planted", type=Path, action="append", default=[], help="a planted set")
    parser.add_argument("--misses", action="store_true", help="list missed and false alarms")
    parser.add_argument(
        "--profile", type=Path, default=ROOT / "examples" / "profile.toml", help="the reader"
    )
    args = parser.parse_args()
    known = [describe_profile(load_profile(args.profile))]
    papers = load_papers(args.honest)
    baseline = honest(args.honest, papers, known)
    for folder in args.planted:
        planted(folder, papers, args.honest, baseline, args.misses, known)


if __name__ == "__main__":
    main()
