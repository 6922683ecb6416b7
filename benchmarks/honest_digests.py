"""Honest digests of real papers, written by a strong model answering paperbrief's real prompts.

    .venv/bin/python benchmarks/honest_digests.py --bank DIR [--out DIR]

No model is reachable from here, so the prompts go to a *bank*: the real writer (deep reads,
two-pass notes, day synthesis — exactly the calls the pipeline makes, with the example
profile) runs against a loopback OpenAI-compatible endpoint that answers each request with
``DIR/answers/<key>.json`` when that file exists, and otherwise writes the request, exactly as
sent (system message with the JSON Schema, user message), to ``DIR/prompts/<key>.md`` and fails
the call. ``<key>`` is a hash of the request's messages. Run it, answer every new prompt file
(a strong model, honestly: the JSON object the prompt asks for, citations in the prompt's
syntax) into ``answers/<key>.json``, and run it again: each round gets further (a long paper's
notes come before its deep read; the day synthesis needs every deep read). When every answer
is in, each digest is verified and rendered as the pipeline publishes it (Markdown with front
matter, HTML) into ``--out`` (default ``DIR/digests``), with the paper files, ``papers.json``
and a README, ready for ``benchmarks/verify_bench.py --honest``.

Digests (papers of different fields, read from the project's real files):
* day 1: 2501.11120 (LLM behaviour, HTML), 2304.02623 (HCI writing, PDF), 2510.14472
  (physics, HTML);
* day 2: 2510.14430 (statistics theory, HTML), the split-cycle paper (social choice theory,
  HTML, read in two passes; its page carries no id: 2210.12503 is the id it most likely has),
  2501.10120 (information retrieval, PDF), 2206.10883 (legal NLP dataset, PDF).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from paperbrief.fulltext import read_local_file  # noqa: E402
from paperbrief.llm import LLMClient  # noqa: E402
from paperbrief.models import (  # noqa: E402
    DayFacts,
    Digest,
    Document,
    Paper,
    PaperBrief,
    ScoredPaper,
)
from paperbrief.profile import LLMSettings, Profile, load_profile  # noqa: E402
from paperbrief.render.html import render_html  # noqa: E402
from paperbrief.render.markdown import render_markdown  # noqa: E402
from paperbrief.store import open_store  # noqa: E402
from paperbrief.write.llm_writer import write_brief_llm, write_day_llm  # noqa: E402
from tests.support.openai_server import OpenAIServer, Reply  # noqa: E402

SHARED = ROOT.parent / "shared" / "data" / "raw_formats"
if not SHARED.is_dir():
    SHARED = Path("/work/shared/data/raw_formats")
FIXTURES = ROOT / "tests" / "fixtures" / "fulltext"


@dataclass(frozen=True)
class Pick:
    paper_id: str
    path: Path
    stars: int
    line: str
    categories: tuple[str, ...]


EVAL = "基准与评测方法学"
AGENTS = "Agent 边际价值实证"
SPLIT_CYCLE = SHARED / "html" / "arxiv_html_dev_prototype_2022-11_split_cycle.html"
DAYS: dict[date, list[Pick]] = {
    date(2026, 6, 2): [
        Pick("2501.11120", FIXTURES / "arxiv_html_2501.11120v1.html", 3, EVAL, ("cs.CL",)),
        Pick("2304.02623", FIXTURES / "arxiv_pdf_2304.02623v1.pdf", 2, AGENTS, ("cs.CL",)),
        Pick(
            "2510.14472",
            FIXTURES / "arxiv_html_2510.14472v1_no_title_metadata.html",
            1,
            EVAL,
            ("nlin.PS",),
        ),
    ],
    date(2026, 6, 3): [
        Pick(
            "2510.14430",
            FIXTURES / "arxiv_html_2510.14430v1_ltx_errors.html",
            2,
            EVAL,
            ("math.ST",),
        ),
        Pick("2210.12503", SPLIT_CYCLE, 1, EVAL, ("cs.GT",)),
        Pick("2501.10120", FIXTURES / "arxiv_pdf_2501.10120v1.pdf", 4, AGENTS, ("cs.IR",)),
        Pick("2206.10883", SHARED / "pdf" / "arxiv_pdf_2206.10883v3.pdf", 3, EVAL, ("cs.CL",)),
    ],
}
# Titles a listing would carry for pages whose own markup has none.
TITLES = {
    "2510.14472": "Asymmetric integrable turbulence and rogue wave statistics for the derivative"
    " nonlinear Schrödinger equation",
}


def request_key(body: dict[str, Any]) -> str:
    messages = json.dumps(body.get("messages", []), ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(messages.encode("utf-8")).hexdigest()[:16]


class Bank:
    """Answers by request; unanswered requests become prompt files."""

    def __init__(self, folder: Path) -> None:
        self.answers = folder / "answers"
        self.prompts = folder / "prompts"
        self.answers.mkdir(parents=True, exist_ok=True)
        self.prompts.mkdir(parents=True, exist_ok=True)
        self.missing: list[str] = []

    def route(self, body: dict[str, Any]) -> Reply:
        key = request_key(body)
        answer = self.answers / f"{key}.json"
        if answer.exists():
            return Reply(content=answer.read_text(encoding="utf-8"))
        prompt = self.prompts / f"{key}.md"
        if not prompt.exists():
            text = "\n\n".join(
                f"===== {m['role']} =====\n{m['content']}" for m in body.get("messages", [])
            )
            prompt.write_text(text + "\n", encoding="utf-8")
            with (self.prompts / "INDEX.tsv").open("a", encoding="utf-8") as index:
                index.write(f"{key}\t{_what(body)}\n")
        self.missing.append(key)
        return Reply(status=400, body=b'{"error": {"message": "no answer in the bank yet"}}')


def _what(body: dict[str, Any]) -> str:
    """What a request asks for, for the index of prompt files."""
    user = next((m["content"] for m in body.get("messages", []) if m.get("role") == "user"), "")
    paper = re.search(r'<paper id="([^"]+)"', user)
    if "<picks>" in user:
        return "day synthesis"
    part = re.match(r"Read part (\d+) of (\d+)", user)
    where = paper.group(1) if paper else "?"
    return (
        f"section notes, part {part.group(1)} of {part.group(2)}, {where}"
        if part
        else (f"deep read, {where}")
    )


def document_of(pick: Pick) -> tuple[Document, Paper]:
    doc = read_local_file(pick.path)
    version = 3 if "v3" in pick.path.name else 1
    title = doc.title or TITLES.get(pick.paper_id, "")
    doc = replace(doc, arxiv_id=pick.paper_id, title=title)
    paper = Paper(
        id=pick.paper_id, title=title, authors=doc.authors or ("(see the paper)",),
        abstract=doc.abstract, categories=pick.categories, primary_category=pick.categories[0],
        version=version,
    )  # fmt: skip
    return doc, paper


def run(bank_folder: Path, out: Path) -> int:
    bank = Bank(bank_folder)
    profile = load_profile(ROOT / "examples" / "profile.toml")
    settings = LLMSettings(model="strong-model", max_retries=0, backoff_base=0)
    written = 0
    with (
        tempfile.TemporaryDirectory() as home,
        OpenAIServer(bank.route) as server,
        open_store(Path(home) / "bank.db") as store,
    ):
        client = LLMClient(settings, store.llm, api_key=None, base_url=server.url)
        for day, picks in DAYS.items():
            written += write_day(client, profile, day, picks, out)
    new = sorted(set(bank.missing))
    print(f"{written} digests written to {out}; {len(new)} prompts waiting in {bank.prompts}")
    return 0 if not new else 2


def write_day(client: LLMClient, profile: Profile, day: date, picks: list[Pick], out: Path) -> int:
    """One digest through the real writer (1 when it is written, 0 while answers are missing)."""
    briefs: list[PaperBrief] = []
    documents: dict[str, Document] = {}
    for rank, pick in enumerate(picks, 1):
        doc, paper = document_of(pick)
        documents[pick.paper_id] = doc
        reason = f"契合「{pick.line}」"
        scored = ScoredPaper(paper, 1.0 / rank, pick.stars, pick.line, rank=rank, reason=reason)
        try:
            briefs.append(write_brief_llm(client, scored, doc, profile))
        except Exception as error:  # an unanswered prompt: next round
            print(f"{day} {pick.paper_id}: waiting for an answer ({type(error).__name__})")
    if len(briefs) < len(picks):
        return 0
    facts = DayFacts(day, date.fromordinal(day.toordinal() - 1), 412)
    try:
        digest = write_day_llm(client, briefs, profile, facts, documents=documents)
    except Exception as error:
        print(f"{day}: waiting for the day synthesis ({type(error).__name__})")
        return 0
    return publish(out, day, digest, profile, picks)


def publish(out: Path, day: date, digest: Digest, profile: Profile, picks: list[Pick]) -> int:
    """The digest as the pipeline publishes it, with the papers it was written from."""
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{day.isoformat()}.md").write_text(render_markdown(digest, profile), encoding="utf-8")
    (out / f"{day.isoformat()}.html").write_text(render_html(digest, profile), encoding="utf-8")
    mapping_path = out / "papers.json"
    mapping = json.loads(mapping_path.read_text()) if mapping_path.exists() else {}
    for pick in picks:
        shutil.copy2(pick.path, out / pick.path.name)
        mapping[pick.paper_id] = pick.path.name
    mapping_path.write_text(json.dumps(mapping, indent=1) + "\n", encoding="utf-8")
    return 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bank", type=Path, required=True, help="answers/ and prompts/ live here")
    parser.add_argument("--out", type=Path, default=None, help="where the digests go")
    args = parser.parse_args()
    sys.exit(run(args.bank, args.out or args.bank / "digests"))


if __name__ == "__main__":
    main()
