"""What the writer reads of every real paper, at the default settings: paragraphs, tables,
sub-table and figure captions sent, per section role, against what the paper holds.

    .venv/bin/python benchmarks/writer_view_bench.py [--tokens N] [FILE ...]

For every real paper in tests/fixtures/fulltext and ../shared/data/raw_formats/{html,pdf} it
builds the reading plan (``fulltext.reading.plan_reading``) at ``[llm] paper_text_tokens``
and prints: how it is read (whole main body, or two passes with how many parts), tokens; per
role (by what a section does: ``fulltext.roles``) the main-body paragraphs sent / in the
paper; main-body tables, sub-table captions and figure captions sent / in the paper. A
paragraph counts as sent when every one of its sentences is in the text sent (for a
two-pass plan: in a first-pass part); a table when all its cells are. For two-pass plans
it also prints what the second pass gets verbatim (main tables, limitations, conclusion).
Exit status 1 when any main-body paragraph or table is not sent.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import defaultdict
from pathlib import Path

from paperbrief.fulltext import read_local_file
from paperbrief.fulltext.reading import plan_reading
from paperbrief.fulltext.roles import roled_sections
from paperbrief.profile import LLMSettings

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = [
    ROOT / "tests" / "fixtures" / "fulltext",
    ROOT.parent / "shared" / "data" / "raw_formats" / "html",
    ROOT.parent / "shared" / "data" / "raw_formats" / "pdf",
    Path("/work/shared/data/raw_formats/html"),
    Path("/work/shared/data/raw_formats/pdf"),
]
SUFFIXES = (".html", ".htm", ".pdf")
WANTED = ("results", "discussion", "limitations", "conclusion")


def paper_files() -> list[Path]:
    seen: dict[str, Path] = {}
    for folder in FOLDERS:
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                if path.suffix.lower() in SUFFIXES and path.name not in seen:
                    seen[path.name] = path
    return list(seen.values())


def report(path: Path, budget: int, chunk: int, totals: dict[str, list[int]]) -> bool:
    doc = read_local_file(path)
    plan = plan_reading(doc, budget, chunk)
    sent_text = "\n".join(part.text for part in plan.parts)
    units = plan.units
    parts = f"{len(plan.parts)} parts" if plan.mode == "two-pass" else "one call"
    print(f"\n{path.name}  [{doc.source}] {plan.mode} ({parts}), {plan.tokens} tokens")
    per_role: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    ok = True
    roled = roled_sections(doc)
    main = [s for s in roled if not s.appendix and s.role != "skip"]
    for section in main:
        for position in range(len(section.section.paragraphs)):
            ids = units.paragraphs.get((section.index, position), ())
            whole = all(f"[{i}] " in sent_text for i in ids)
            per_role[section.role][0] += whole
            per_role[section.role][1] += 1
            ok &= whole
    for role in sorted(per_role, key=lambda r: (r not in WANTED, r)):
        sent, total = per_role[role]
        mark = "" if sent == total else "   <-- NOT ALL SENT"
        print(f"  {role:<12} ¶ {sent:>3} / {total:<3}{mark}")
        totals[role][0] += sent
        totals[role][1] += total
    main_titles = {s.title for s in main} | {s.section.heading for s in main}
    tables = [t for t in doc.tables if t.section in main_titles or not t.section]
    subs = [t for t in tables if t.parent]
    tables_sent = [t for t in tables if f"**{t.label}**" in sent_text]
    subs_sent = [t for t in subs if f"**{t.label}**" in sent_text and t.caption in sent_text]
    figures_sent = sum(
        1 for position in range(len(doc.figures))
        if all(f"[{i}] " in plan.figures for i in units.figure_captions.get(position, ()))
    )  # fmt: skip
    missing = [t.label for t in tables if t not in tables_sent]
    print(f"  main-body tables {len(tables_sent)} / {len(tables)}"
          + (f"   <-- not sent: {', '.join(missing)}" if missing else ""))  # fmt: skip
    print(f"  sub-table captions {len(subs_sent)} / {len(subs)}; figure captions "
          f"{figures_sent} / {len(doc.figures)}")  # fmt: skip
    ok &= not missing and figures_sent == len(doc.figures)
    if doc.source.endswith("pdf"):  # tables are not extracted from a PDF: their lines are text
        body = "\n".join(p for s in main for p in s.section.paragraphs)
        captions = sorted(set(re.findall(r"\b(Table \d+):", body)), key=lambda c: int(c.split()[1]))
        print(f"  PDF: {len(captions)} table captions in the main-body text, all sent as text "
              "(cells not extracted)")  # fmt: skip
    for name, count in (("tables", len(tables_sent)), ("figures", figures_sent)):
        totals[name][0] += count
    totals["tables"][1] += len(tables)
    totals["figures"][1] += len(doc.figures)
    if plan.essentials is not None:
        held = [s.title for s in plan.essentials.sections]
        print(f"  second pass, verbatim: {len(plan.essentials.tables)} tables; "
              f"{', '.join(held) or 'no limitations/conclusion section'} "
              f"({plan.essentials.tokens} tokens)")  # fmt: skip
    if plan.appendix:
        print(f"  appendix: outline only ({len(plan.appendix.splitlines())} lines)")
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    defaults = LLMSettings()
    parser.add_argument("--tokens", type=int, default=defaults.paper_text_tokens)
    parser.add_argument("--chunk", type=int, default=defaults.reading_chunk_tokens)
    args = parser.parse_args()
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    files = args.files or paper_files()
    ok = all([report(path, args.tokens, args.chunk, totals) for path in files])
    print("\nall papers: " + "; ".join(f"{k} {v[0]}/{v[1]}" for k, v in sorted(totals.items())))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
