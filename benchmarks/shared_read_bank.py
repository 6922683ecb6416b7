"""The paper read once, answered by a strong model through the real prompts (issue 22).

    .venv/bin/python benchmarks/shared_read_bank.py --bank DIR

Two readers of one home — the example profile and a lab-mate generated from real listing
interests (``lab_bench.reader_profiles``, reader r001) — get a digest of the same three real
papers of different fields (honest_digests' day 1: 2501.11120 HTML, 2304.02623 PDF,
2510.14472 physics HTML). The real writer runs exactly as the pipeline does for a lab
(``write.LLMWriter`` with the store's reading cache): each paper's **reading** once, then each
reader's **part** from that reading, then each reader's day synthesis. No model is reachable,
so requests go to a bank (as ``honest_digests.py``): a request answered in ``DIR/answers/
<key>.json`` is served, any other is written, exactly as sent (system message with its JSON
Schema, user message), to ``DIR/requests/<key>.md`` (indexed in ``requests/INDEX.tsv``) and
fails. Round 1 asks for the readings; once answered, round 2 asks for the readers' parts
(which show the model's own reading); round 3 for the day syntheses. When all are in, it
prints for each reader the claims traced (``write.verify``) and the prompt tokens of the
readings and of each reader's parts, and writes each digest to ``DIR/digests/``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from datetime import date
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from honest_digests import DAYS, Bank, document_of, request_key  # noqa: E402
from lab_bench import reader_profiles  # noqa: E402

from paperbrief.llm import LLMClient  # noqa: E402
from paperbrief.models import DayFacts, PaperBrief, ScoredPaper  # noqa: E402
from paperbrief.profile import LLMSettings, load_profile, parse_profile  # noqa: E402
from paperbrief.prompts import describe_profile  # noqa: E402
from paperbrief.render.markdown import render_markdown  # noqa: E402
from paperbrief.store import open_store  # noqa: E402
from paperbrief.write import LLMWriter, OfflineWriter  # noqa: E402
from paperbrief.write.llm_writer import write_day_llm  # noqa: E402
from paperbrief.write.verify import verify_digest  # noqa: E402
from tests.support.openai_server import OpenAIServer, Reply  # noqa: E402

DAY = date(2026, 6, 2)


class RequestBank(Bank):
    """honest_digests' bank, its prompts under ``requests/``; it also counts prompt tokens."""

    def __init__(self, folder: Path) -> None:  # (not Bank's: its folder names differ)
        self.answers = folder / "answers"
        self.prompts = folder / "requests"
        for path in (self.answers, self.prompts):
            path.mkdir(parents=True, exist_ok=True)
        self.missing: list[str] = []
        self.tokens: list[tuple[str, str, int]] = []  # (kind, key, prompt tokens)

    def route(self, body: dict[str, Any]) -> Reply:
        user = next((m["content"] for m in body["messages"] if m["role"] == "user"), "")
        kind = (
            "reading"
            if user.startswith("Write the reading")
            else "reader"
            if user.startswith("Tell ONE reader")
            else "day"
            if "<picks>" in user
            else "notes"
        )
        size = len(str(body["messages"])) // 4
        self.tokens.append((kind, request_key(body), size))
        return super().route(body)


def lab_mate() -> tuple[str, str]:
    text = reader_profiles(2, "http://127.0.0.1:1/v1")["r001"]
    return "Reader 001", text.split("\n[llm]")[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bank", type=Path, required=True, help="answers/ and requests/ here")
    args = parser.parse_args()
    bank = RequestBank(args.bank)
    _, mate_text = lab_mate()
    (args.bank / "lab-mate-profile.toml").write_text(mate_text, encoding="utf-8")
    readers = [load_profile(ROOT / "examples" / "profile.toml"), parse_profile(mate_text)]
    settings = LLMSettings(model="strong-model", max_retries=0, backoff_base=0)
    picks = DAYS[DAY]
    done = 0
    with (
        tempfile.TemporaryDirectory() as home,
        OpenAIServer(bank.route) as server,
        open_store(Path(home) / "bank.db") as store,
    ):
        jobs = []
        documents = {}
        for rank, pick in enumerate(picks, 1):
            document, paper = document_of(pick)
            documents[pick.paper_id] = document
            jobs.append((paper, document, rank, pick))
        for profile in readers:
            view = store.for_reader(profile.key)
            client = LLMClient(settings, view.llm, api_key=None, base_url=server.url)
            writer = LLMWriter(client, OfflineWriter(), view.readings)
            line = profile.research_lines[0].name
            scored_jobs = [
                (ScoredPaper(paper, 1.0 / rank, 3, line, rank=rank, reason=f"契合「{line}」"), doc)
                for paper, doc, rank, _ in jobs
            ]
            written = list(writer.write_briefs(scored_jobs, profile))
            waiting = [w.brief.paper.id for w in written if w.fallback is not None]
            if waiting:
                print(f"{profile.key}: waiting for {', '.join(waiting)}")
                continue
            briefs: list[PaperBrief] = [w.brief for w in written]
            facts = DayFacts(DAY, date(2026, 6, 1), 412)
            try:
                digest = write_day_llm(client, briefs, profile, facts, documents=documents)
            except Exception as error:
                print(f"{profile.key}: waiting for the day synthesis ({type(error).__name__})")
                continue
            # the reader's own numbers (their assets, their lines) are no claims about a paper
            report = verify_digest(digest, documents, [describe_profile(profile)])
            out = args.bank / "digests"
            out.mkdir(exist_ok=True)
            name = profile.key.replace(" ", "-")
            (out / f"{DAY}-{name}.md").write_text(render_markdown(digest, profile), "utf-8")
            print(f"{profile.key}: digest written; {report.traced}/{report.claims} claims traced")
            reader_part = ("technique", "experiment", "trend", "reason")
            for check in report.untraced:
                half = (
                    "day"
                    if not check.paper
                    else ("reader" if check.section in reader_part else "reading")
                )
                finding = check.findings[0].detail if check.findings else "no citation"
                print(f"  untraced ({half}, {check.paper or 'day'} {check.section}):"
                      f" {check.text[:90]} — {finding[:80]}")  # fmt: skip
            done += 1
    for kind in ("reading", "notes", "reader", "day"):
        sizes = [t for k, _, t in dict.fromkeys(bank.tokens) if k == kind]
        if sizes:
            print(f"  {kind}: {len(sizes)} requests, {sum(sizes):,} prompt tokens")
    waiting = sorted(set(bank.missing))
    print(f"{done} of {len(readers)} digests written; {len(waiting)} requests waiting in"
          f" {bank.prompts}")  # fmt: skip
    sys.exit(0 if not waiting else 2)


if __name__ == "__main__":
    main()
