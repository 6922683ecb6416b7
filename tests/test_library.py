"""The reader's library: Zotero exports read, research lines proposed, the profile ranks the
reader's own papers first."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from paperbrief import rank
from paperbrief.cli import cli
from paperbrief.library import LibraryError, read_library
from paperbrief.library.formats import split_tags
from paperbrief.profile import load_profile
from paperbrief.rank.embed import DEFAULT_MODEL, Embedder
from paperbrief.rank.text import text_hash
from paperbrief.sources import load_snapshot
from paperbrief.store import open_store
from tests.support import EXAMPLE_LISTING, FIXTURES
from tests.support.embedding import VectorCache
from tests.support.openai_server import OpenAIServer

LIBRARY = FIXTURES / "library"
# The 15 papers of the fixtures (real papers of the sample day): forecasting, clinical
# LLMs and diffusion models, five each.
OWN = {
    "2605.21504", "2605.22043", "2605.22387", "2605.22540", "2605.22365",
    "2605.21807", "2605.21949", "2605.22047", "2605.22080", "2605.22734",
    "2605.21661", "2605.21911", "2605.22586", "2605.22765", "2605.22776",
}  # fmt: skip


def test_reads_a_zotero_bibtex_export():
    papers = read_library(LIBRARY / "zotero.bib")
    assert {p.arxiv_id for p in papers} == OWN
    first = papers[0]
    assert first.title.startswith("Multivariate Financial Forecasting using the Chronos")
    assert first.authors[0] == "Das, Sanjiv R" and first.year == 2026
    assert "cs.AI" in first.categories  # from Zotero's "Computer Science - ..." tags
    case_net = next(p for p in papers if p.arxiv_id == "2605.22043")
    assert "{" not in case_net.title and "98.6% on the AWR dataset" in case_net.abstract


def test_reads_csl_json_ris_and_id_lists():
    csl = read_library(LIBRARY / "zotero-csl.json")
    assert [p.arxiv_id for p in csl] == [p.arxiv_id for p in read_library(LIBRARY / "zotero.bib")]
    assert csl[1].authors[0] == "Zhang, Fan" and all(p.abstract for p in csl)
    ris = read_library(LIBRARY / "zotero.ris")
    assert len(ris) == 6 and ris[0].arxiv_id == "2605.21504" and ris[0].abstract
    assert "cs.AI" in ris[0].categories
    ids = read_library(LIBRARY / "liked-ids.txt")
    assert [p.arxiv_id for p in ids] == ["2605.21807", "2605.21949", "2605.22047", "2605.22080"]


def test_zotero_subject_tags_with_commas_stay_whole():
    tags = split_tags(
        "Computer Science - Computational Engineering, Finance, and Science,"
        " Computer Science - Machine Learning, time series"
    )
    assert tags == [
        "Computer Science - Computational Engineering, Finance, and Science",
        "Computer Science - Machine Learning",
        "time series",
    ]


def test_reads_a_folder_of_pdfs(tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    shutil.copy(FIXTURES / "fulltext" / "arxiv_pdf_2304.02623v1.pdf", folder / "2304.02623v1.pdf")
    (paper,) = read_library(folder)
    assert paper.arxiv_id == "2304.02623"
    assert paper.title.startswith("Beyond Summarization") and paper.abstract


def test_unusable_files_fail_with_a_hint(tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("my favourite papers\n", encoding="utf-8")
    skipped: list[str] = []
    with pytest.raises(LibraryError, match="no papers found") as caught:
        read_library(bad, skipped.append)
    assert caught.value.hint
    assert skipped == ["line 1 is not an arXiv id or URL: my favourite papers"]
    empty = tmp_path / "empty.bib"
    empty.write_text("% nothing here\n", encoding="utf-8")
    with pytest.raises(LibraryError, match="no papers found"):
        read_library(empty)
    result = CliRunner().invoke(cli, ["profile", "init", "--from", str(bad), "--offline"])
    assert result.exit_code == 1 and "hint:" in result.output


def test_without_the_library_extra_a_bibtex_export_says_how_to_add_it(tmp_path, monkeypatch):
    """bibtexparser and rispy are the `library` extra: absent, reading an export of their
    format is one line naming the install for pip, pipx and uv (CSL JSON still reads)."""
    for module in ("bibtexparser", "bibtexparser.middlewares", "rispy"):
        monkeypatch.setitem(sys.modules, module, None)  # an import of it fails
    with pytest.raises(LibraryError, match="needs the bibtexparser package") as caught:
        read_library(LIBRARY / "zotero.bib")
    # the installer in use (this .venv is pip's) and the extra's packages, from its metadata
    assert caught.value.hint.endswith("-m pip install 'bibtexparser>=2.0.0b7' 'rispy>=0.8'")
    assert read_library(LIBRARY / "zotero-csl.json")
    result = CliRunner().invoke(
        cli,
        [
            "profile",
            "init",
            "--from",
            str(LIBRARY / "zotero.bib"),
            "--offline",
            str(tmp_path / "p"),
        ],
    )
    assert result.exit_code == 1 and "pip install 'bibtexparser" in result.output


@pytest.fixture(scope="module")
def library_vectors(encoder) -> dict[str, np.ndarray]:
    """The vectors of every fixture library's papers, embedded once for the module."""
    texts = [
        paper.text
        for name in ("zotero.bib", "zotero-csl.json", "zotero.ris")
        for paper in read_library(LIBRARY / name)
    ]
    texts = list(dict.fromkeys(texts))
    vectors = Embedder(VectorCache(), encoder=encoder).embed(texts)
    return {text_hash(text): vector for text, vector in zip(texts, vectors, strict=True)}


@pytest.fixture(autouse=True)
def library_home(isolated_home: Path, library_vectors) -> Path:
    """`profile init --from` runs in a home whose vector cache holds the library's papers,
    so the CLI (which builds its own services) loads no model for them."""
    with open_store(isolated_home / "paperbrief.db") as store:
        store.embeddings.put(DEFAULT_MODEL, library_vectors)
    return isolated_home


@pytest.fixture(scope="module")
def day_embedder(encoder) -> Embedder:
    """One embedder for the module, holding the sample day's committed vectors (only the
    proposed lines' texts are embedded)."""
    return Embedder(VectorCache(), encoder=encoder)


def _ranks(profile_path: Path, embedder: Embedder, ids: set[str] = OWN) -> list[int]:
    profile = load_profile(profile_path)
    papers = rank.candidates(load_snapshot(EXAMPLE_LISTING), profile)
    ranking = rank.rank_papers(papers, profile, embedder)
    return sorted(item.rank for item in ranking if item.paper.id in ids)


def _init(tmp_path: Path, source: Path, *extra: str):
    out = tmp_path / "profile.toml"
    name = () if "--name" in extra else ("--name", "Dr. Test")
    result = CliRunner().invoke(
        cli, ["profile", "init", "--from", str(source), "--offline", *name, *extra, str(out)]
    )
    assert result.exit_code == 0, result.output
    return out, result


def test_profile_from_bibtex_ranks_the_readers_papers_first(tmp_path, day_embedder):
    out, result = _init(tmp_path, LIBRARY / "zotero.bib", "--name", "Dr. Test")
    profile = load_profile(out)
    assert profile.name == "Dr. Test" and len(profile.research_lines) == 3
    assert {"cs.LG", "cs.AI"} <= set(profile.categories)
    phrases = [k for line in profile.research_lines for k in line.keywords]
    assert {"multivariate time series", "diffusion models", "clinical decision support"} <= set(
        phrases
    )
    assert "Multivariate time series" in result.output  # the proposal is shown
    ranks = _ranks(out, day_embedder)
    assert ranks[:5] == [1, 2, 3, 4, 5], ranks  # the top five are the reader's own
    assert sum(r <= 30 for r in ranks) >= 12, ranks  # of 463 candidates


def test_profile_from_csl_json_takes_categories_from_the_store(tmp_path, day_embedder):
    with open_store(tmp_path / "home" / "paperbrief.db") as store:
        store.listings.save(load_snapshot(EXAMPLE_LISTING))  # a reader who fetched that day
    out, _ = _init(tmp_path, LIBRARY / "zotero-csl.json")
    profile = load_profile(out)
    assert {"cs.LG", "cs.AI"} <= set(profile.categories)
    ranks = _ranks(out, day_embedder)
    assert ranks[:5] == [1, 2, 3, 4, 5], ranks
    assert sum(r <= 30 for r in ranks) >= 12, ranks


def test_without_categories_the_profile_says_they_are_a_guess(tmp_path):
    out, result = _init(tmp_path, LIBRARY / "zotero-csl.json")
    text = out.read_text(encoding="utf-8")
    assert "GUESSED by paperbrief" in text and "are a guess" in result.output
    assert load_profile(out).categories  # the subjects closest to the papers' text


def test_held_out_papers_of_a_line_rank_high(tmp_path, day_embedder):
    """Lines drawn from ten papers also find the reader's five other papers of those topics."""
    entries = (LIBRARY / "zotero.bib").read_text(encoding="utf-8").split("\n\n@")
    kept = [e for i, e in enumerate(entries) if i % 3 != 2]
    held_out = {re.search(r"abs/(\d{4}\.\d{5})", e).group(1) for e in entries[2::3]}
    partial = tmp_path / "partial.bib"
    partial.write_text("\n\n@".join(kept), encoding="utf-8")
    out, _ = _init(tmp_path, partial)
    ranks = _ranks(out, day_embedder, held_out)
    assert len(ranks) == 5 and ranks[2] <= 40, ranks  # median held-out rank of ~460


def test_llm_names_lines_and_adds_chinese_keywords(tmp_path, monkeypatch):
    def answer(body):
        user = body["messages"][-1]["content"]
        keys = re.findall(r'<paper key="(g\d+)">', user)
        lines = [
            {
                "key": key,
                "name": f"方向{n}",
                "description": f"Line {n}: what these papers study, in two sentences.",
                "keywords": [f"topic {n}"],
                "keywords_zh": [f"主题{n}"],
            }
            for n, key in enumerate(keys, 1)
        ]
        return json.dumps({"lines": lines}, ensure_ascii=False)

    with OpenAIServer(route=answer) as server:
        monkeypatch.setenv("PAPERBRIEF_LLM_BASE_URL", server.url)
        monkeypatch.setenv("PAPERBRIEF_LLM_API_KEY", "test-key")
        out = tmp_path / "profile.toml"
        result = CliRunner().invoke(
            cli,
            ["profile", "init", "--from", str(LIBRARY / "zotero.bib"), "--name", "Dr. T", str(out)],
        )
        assert result.exit_code == 0, result.output
        (request,) = server.requests
    profile = load_profile(out)
    assert [line.name for line in profile.research_lines] == ["方向1", "方向2", "方向3"]
    assert profile.research_lines[0].keywords_zh == ["主题1"]
    assert profile.research_lines[0].keywords[0] == "topic 1"  # then the mined phrases
    assert len(profile.research_lines[0].keywords) > 1
    assert "untrusted" in request["messages"][0]["content"]


def test_a_failing_llm_keeps_the_offline_proposal(tmp_path, monkeypatch):
    with OpenAIServer(route=lambda body: "this is not JSON") as server:
        monkeypatch.setenv("PAPERBRIEF_LLM_BASE_URL", server.url)
        monkeypatch.setenv("PAPERBRIEF_LLM_API_KEY", "test-key")
        monkeypatch.setenv("PAPERBRIEF_LLM_MODEL", "test-model")
        out = tmp_path / "profile.toml"
        result = CliRunner().invoke(
            cli,
            ["profile", "init", "--from", str(LIBRARY / "zotero.bib"), "--name", "Dr. T", str(out)],
        )
    assert result.exit_code == 0, result.output
    assert "could not name the lines" in result.output
    assert len(load_profile(out).research_lines) == 3


def test_a_proposal_without_a_name_is_written_and_asks_for_one(tmp_path):
    out = tmp_path / "profile.toml"
    result = CliRunner().invoke(
        cli, ["profile", "init", "--from", str(LIBRARY / "zotero.bib"), "--offline", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "put your name in `name`" in result.output
    check = CliRunner().invoke(cli, ["profile", "check", "--profile", str(out)])
    assert check.exit_code == 2 and "Your Name" in check.output  # only the name is missing
    assert "1 problem" in check.output
