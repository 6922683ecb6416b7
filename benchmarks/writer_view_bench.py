"""Which results, discussion sections and results tables the writer reads, per real paper.

    .venv/bin/python benchmarks/writer_view_bench.py [--tokens N] [FILE ...]

For every real paper in tests/fixtures/fulltext and, when present, ../shared/data/raw_formats
/{html,pdf}, it builds the writer view at the profile's default budget
(``[llm] paper_text_tokens``) and prints: the paper's size in tokens, the tokens the view
uses, every main-body results / discussion / conclusion / limitations section with how many
of its paragraphs the view holds (✓ all, ◐ some, ✗ none), the results tables (best first)
with ✓/✗, and a verdict: for a paper whose full text fits in three times the budget,
every such section and the main results table must be in the view (``OK``/``MISSING``).
Exit status 1 when any such paper misses something.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from paperbrief.fulltext import read_local_file, writer_view
from paperbrief.fulltext.roles import roled_sections
from paperbrief.models import Document
from paperbrief.profile import LLMSettings
from paperbrief.text import estimate_tokens

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = [
    ROOT / "tests" / "fixtures" / "fulltext",
    ROOT.parent.parent / "shared" / "data" / "raw_formats" / "html",
    ROOT.parent.parent / "shared" / "data" / "raw_formats" / "pdf",
    Path("/work/shared/data/raw_formats/html"),
    Path("/work/shared/data/raw_formats/pdf"),
]
SUFFIXES = (".html", ".htm", ".pdf")


def paper_files() -> list[Path]:
    seen: dict[str, Path] = {}
    for folder in FOLDERS:
        if folder.is_dir():
            for path in sorted(folder.iterdir()):
                if path.suffix.lower() in SUFFIXES and path.name not in seen:
                    seen[path.name] = path
    return list(seen.values())


def full_tokens(doc: Document) -> int:
    text = [doc.abstract, *(p for s in doc.sections for p in s.paragraphs)]
    return sum(estimate_tokens(t) for t in text)


def report(path: Path, budget: int) -> bool:
    doc = read_local_file(path)
    view = writer_view(doc, budget)
    size = full_tokens(doc)
    print(f"\n{path.name}  [{doc.source}] paper {size} tokens, view {view.tokens}/{budget}")
    held = {s.title: s for s in view.sections}
    missing: list[str] = []
    for roled in roled_sections(doc):
        if not (roled.main_results or roled.closing) or not roled.section.paragraphs:
            continue
        entry = held[roled.title]
        mark = "✓" if entry.paragraphs == entry.total else "◐" if entry.paragraphs else "✗"
        if not entry.paragraphs:
            missing.append(roled.title)
        print(f"  {mark} {roled.role:<11} {roled.title[:70]}  ({entry.paragraphs}/{entry.total} ¶)")
    if view.results_tables:
        marks = [f"{'✓' if t in view.tables else '✗'} {t}" for t in view.results_tables[:6]]
        print("  results tables: " + ", ".join(marks))
        if view.results_tables[0] not in view.tables:
            missing.append(f"main table {view.results_tables[0]}")
    else:
        print(
            "  results tables: none ("
            + ("PDF: tables not extracted" if doc.source.endswith("pdf") else "no numeric table")
            + ")"
        )
    if size > 3 * budget:
        print(f"  verdict: not judged (full text over 3 × {budget} tokens)")
        return True
    print("  verdict: " + ("OK" if not missing else "MISSING " + "; ".join(missing)))
    return not missing


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    default = LLMSettings.model_fields["paper_text_tokens"].default
    parser.add_argument("--tokens", type=int, default=default, help="writer budget")
    args = parser.parse_args()
    files = args.files or paper_files()
    ok = all([report(path, args.tokens) for path in files])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
