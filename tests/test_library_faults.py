"""Library imports under hostile input (issue 21): control characters in titles and in the
LLM's proposal, broken entries, huge fields and lines, files that are not PDFs, an export
whose categories must be guessed, an offline id list. Each is staged on real formats."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.library import formats
from paperbrief.library.formats import read_library
from paperbrief.profile import load_profile
from tests.support import FIXTURES
from tests.support.openai_server import OpenAIServer

LIBRARY = FIXTURES / "library"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def bibtex_entry(key: str, title: str, abstract: str = "") -> str:
    abstract = abstract or (
        "We study automated program repair with large language models and report how often"
        " the generated patches pass the test suites of real projects."
    )
    return (
        f"@misc{{{key},\n\ttitle = {{{title}}},\n\tabstract = {{{abstract}}},\n"
        f"\tnote = {{arXiv:2605.{abs(hash(key)) % 90000 + 10000} [cs]}},\n"
        "\tkeywords = {Computer Science - Software Engineering},\n}\n"
    )


def init(tmp_path: Path, source: Path, *extra: str, env: dict[str, str] | None = None):
    out = tmp_path / "profile.toml"
    command = ["profile", "init", "--from", str(source), "--name", "Dr. T", *extra, str(out)]
    return out, CliRunner().invoke(cli, command, env=env)


def test_escape_del_and_c1_in_titles_are_cleaned_before_the_toml(tmp_path):
    export = tmp_path / "hostile.bib"
    good = (LIBRARY / "repair.bib").read_text(encoding="utf-8")
    export.write_text(
        good.replace("title = {", "title = {\x1b[31m\x7f\x9b", 3), encoding="utf-8"
    )  # an ESC sequence, DEL and a C1 CSI in three titles
    out, result = init(tmp_path, export, "--offline")
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert not CONTROL.search(text) and "\\u001b" not in text.lower()
    assert load_profile(out).research_lines


def test_a_bad_entry_is_skipped_with_a_line_and_the_rest_imported(tmp_path):
    export = tmp_path / "mixed.bib"
    export.write_text(
        bibtex_entry("one", "Repairing Programs with Agents")
        + "@misc{broken, title = {never closed,\n\n"
        + bibtex_entry("two", "Patch Validation at Scale"),
        encoding="utf-8",
    )
    skipped: list[str] = []
    papers = read_library(export, skipped.append)
    assert [p.title for p in papers] == [
        "Repairing Programs with Agents",
        "Patch Validation at Scale",
    ]
    assert len(skipped) == 1 and skipped[0].startswith("a BibTeX entry that cannot be parsed")
    csl = tmp_path / "mixed.json"
    csl.write_text(json.dumps([{"title": "Fine"}, "not an item", {"title": ["odd"]}]), "utf-8")
    skipped.clear()
    assert [p.title for p in read_library(csl, skipped.append)][0] == "Fine"
    assert any("CSL item 2" in line for line in skipped)


def test_a_5_mb_bad_line_is_never_echoed_whole(tmp_path):
    ids = tmp_path / "ids.txt"
    ids.write_text("2605.22817\n" + "z" * 5_000_000 + "\n2605.21930\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["feedback", "import", str(ids)])
    assert result.exit_code == 0, result.output[:500]
    assert "line 2 is not an arXiv id" in result.output
    assert len(result.output) < 2_000  # the line is shortened, not echoed


def test_a_5_mb_abstract_is_capped_before_latex_decoding(tmp_path):
    """bibtexparser's LaTeX decoding is superlinear in a field's size (a 700 KB abstract:
    22 s; 5 MB: killed at 300 s). Fields are capped first; the import is bounded."""
    export = tmp_path / "huge.bib"
    export.write_text(
        bibtex_entry("huge", "A Huge Abstract", "repair \\'e {x} " * 400_000)
        + bibtex_entry("small", "Program Repair in Practice"),
        encoding="utf-8",
    )
    code = (
        "import sys; from pathlib import Path; from paperbrief.library.formats import"
        " read_library; p = read_library(Path(sys.argv[1])); print(len(p[0].abstract), len(p))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(export)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout.split() == [str(formats.FIELD_CAPS["abstract"] - 1), "2"]
        or int(done.stdout.split()[0]) <= formats.FIELD_CAPS["abstract"]
    )


def test_a_pdf_folder_reads_only_pdfs_and_skips_the_rest_without_a_child_each(
    tmp_path, monkeypatch
):
    folder = tmp_path / "papers"
    folder.mkdir()
    real = FIXTURES / "fulltext" / "arxiv_pdf_2304.02623v1.pdf"
    (folder / "2304.02623.pdf").write_bytes(real.read_bytes())
    for n in range(5):
        (folder / f"notes-{n}.pdf").write_text("not a pdf at all\n" * 100)
    os.mkfifo(folder / "pipe.pdf")  # opening it would block forever
    (folder / "empty.pdf").write_bytes(b"")
    reads: list[Path] = []
    from paperbrief import fulltext

    real_reader = fulltext.read_local_file
    monkeypatch.setattr(fulltext, "read_local_file", lambda p: reads.append(p) or real_reader(p))
    skipped: list[str] = []
    papers = read_library(folder, skipped.append)
    assert reads == [folder / "2304.02623.pdf"]  # one child process, for the one PDF
    assert [p.arxiv_id for p in papers] == ["2304.02623"]
    assert papers[0].categories == ("cs.CL",)  # from arXiv's margin stamp
    assert len(skipped) == 7 and all(line.endswith("not a PDF file") for line in skipped)


def test_an_export_without_categories_gets_a_loud_guess_and_profile_check_warns(tmp_path):
    out, result = init(tmp_path, LIBRARY / "repair-csl.json", "--offline")
    assert result.exit_code == 0, result.output
    assert "are a guess" in result.output
    profile = load_profile(out)
    assert profile.categories[0] == "cs.SE"  # an all-cs.SE library, not cs.AI
    checked = CliRunner().invoke(cli, ["profile", "check", "--profile", str(out)])
    assert checked.exit_code == 0 and "were guessed" in checked.output
    text = out.read_text(encoding="utf-8")
    fixed = out.with_name("fixed.toml")
    fixed.write_text(re.sub(r"  # GUESSED.*", "", text), encoding="utf-8")
    calm = CliRunner().invoke(cli, ["profile", "check", "--profile", str(fixed)])
    assert "were guessed" not in calm.output


def test_the_bibtex_export_names_cs_se_from_its_own_tags(tmp_path):
    out, result = init(tmp_path, LIBRARY / "repair.bib", "--offline")
    assert result.exit_code == 0 and "guess" not in result.output
    assert load_profile(out).categories[0] == "cs.SE"


def test_an_offline_id_list_says_why_and_names_no_file_to_edit(tmp_path):
    out, result = init(tmp_path, LIBRARY / "liked-ids.txt", "--offline")
    assert result.exit_code == 1
    assert (
        "offline, arXiv was not asked" in result.output and "nothing was written" in result.output
    )
    assert "edit the keys" not in result.output and not out.exists()


@pytest.mark.parametrize(
    "answer_name, kept",
    [
        ("Program \x1b[2Jrepair\x7f agents\u202e", "Program repair agents"),  # cleaned
        ("x" * 500, None),  # unusable: the offline name stands
        ("", None),
    ],
)
def test_the_llms_proposal_is_checked_with_the_offline_one_as_fallback(
    tmp_path, monkeypatch, answer_name, kept
):
    def answer(body):
        keys = re.findall(r'<paper key="(g\d+)">', body["messages"][-1]["content"])
        lines = [
            {"key": key, "name": answer_name, "description": "Two sentences.\x1b]0;x\x07",
             "keywords": ["agentic repair", "y" * 300], "keywords_zh": ["程序修复\x1b"]}
            for key in keys
        ]  # fmt: skip
        return json.dumps({"lines": lines})

    offline, _ = init(tmp_path / "offline", LIBRARY / "repair.bib", "--offline")
    with OpenAIServer(route=answer) as server:
        monkeypatch.setenv("PAPERBRIEF_LLM_BASE_URL", server.url)
        monkeypatch.setenv("PAPERBRIEF_LLM_API_KEY", "test-key")
        out, result = init(tmp_path, LIBRARY / "repair.bib")
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert not CONTROL.search(text) and "\u202e" not in text
    (line,) = load_profile(out).research_lines
    (offline_line,) = load_profile(offline).research_lines
    if kept is None:
        assert line.name == offline_line.name
    else:
        assert line.name == kept
        assert line.keywords_zh == ["程序修复"] and "y" * 300 not in line.keywords


def test_lines_from_a_program_repair_export_are_noun_phrases_without_names(tmp_path):
    """The issue's library: "Automated program repair / Patch", "language models llms",
    "arise a repository-level", "patch". Phrases now lie within one chunk of the papers'
    text, end where a chunk ends, hold no stop word, name no paper, and the description
    lists no title."""
    from paperbrief.library.lines import _FILLER, _VERBS

    out, result = init(tmp_path, LIBRARY / "repair.bib", "--offline")
    assert result.exit_code == 0, result.output
    (line,) = load_profile(out).research_lines
    titles = [p.title for p in read_library(LIBRARY / "repair.bib")]
    assert "/" not in line.name and line.name.lower().startswith("automated program repair")
    for phrase in line.keywords:
        words = phrase.split()
        assert not set(words) & (_FILLER | _VERBS), phrase  # no stop-word straddle
        assert len(words) > 1 or phrase in ("apr",), phrase  # single words are rare topics
        assert not re.search(r"[a-z][A-Z]", phrase), phrase  # no mixed-case name
    names = {t.split(":")[0].lower() for t in titles if ":" in t}
    assert not [k for k in line.keywords if k in names]  # "paft", "debugrepair" …
    assert not [t for t in titles if t[:30] in line.description]


def test_phrases_are_whole_noun_phrases_not_modifiers_or_pieces():
    """Real sentences of papers outside the program-repair export: the words before a
    filler noun are its modifiers ("PaSa: An LLM Agent for Comprehensive Academic Paper
    Search" gave "comprehensive academic"), an "-ize" verb starts no phrase, and
    "cloud data" beside "point clouds" is a piece of "point cloud data"."""
    from paperbrief.library.formats import LibraryPaper
    from paperbrief.library.lines import _phrases, key_phrases, sample_background

    pasa = "PaSa: An LLM Agent for Comprehensive Academic Paper Search"
    assert "comprehensive academic" not in _phrases(pasa).values()
    writing = "We characterize expository writing as a process of sensemaking."
    assert "characterize expository writing" not in _phrases(writing).values()
    assert "expository writing" in _phrases(writing).values()
    abstracts = [
        "Redefining 3D anomaly detection in point cloud data with two denoising steps.",
        "We begin by formally defining point cloud data, followed by an analysis of point"
        " clouds under sensor noise.",
        "Farthest point sampling for large-scale point clouds on embedded devices.",
        "Unsupervised segmentation of point clouds with semantic consistency.",
    ]
    group = [
        LibraryPaper(title=f"Paper {i}", abstract=text, arxiv_id=f"2605.0000{i}")
        for i, text in enumerate(abstracts)
    ]
    phrases = key_phrases(group, group, sample_background())
    assert "point clouds" in phrases or "point cloud data" in phrases, phrases
    assert "cloud data" not in phrases, phrases


def test_a_latin_1_export_is_read_and_the_reader_told(tmp_path):
    """Older BibTeX tools write Windows-1252: the export was refused whole, with a hint
    to pass a BibTeX export (which it was). Now it is read, and a note says how."""
    export = tmp_path / "latin1.bib"
    text = bibtex_entry("a", "Réparation automatique de programmes") + bibtex_entry(
        "b", "Patch ranking for program repair"
    )
    export.write_bytes(text.encode("cp1252"))
    out, result = init(tmp_path, export, "--offline")
    assert result.exit_code == 0, result.output
    assert "note: latin1.bib is not UTF-8: read as Windows-1252" in result.output
    titles = [p.title for p in read_library(export)]
    assert "Réparation automatique de programmes" in titles
