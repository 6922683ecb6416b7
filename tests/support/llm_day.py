"""Shared fixtures of the LLM writer tests and benchmark: three picks and prepared answers."""

from __future__ import annotations

import json
import re
from typing import Any

from paperbrief.models import Document, Paper, ScoredPaper
from paperbrief.profile import Profile, parse_profile
from paperbrief.store import codec
from tests.support import FIXTURES
from tests.support.openai_server import Reply

LLM_FIXTURES = FIXTURES / "llm"
ABSTRACT_ONLY = Paper(
    id="2605.10003",
    title="LoRA for a Young Language: Teaching a 7B Coder ArkTS",
    authors=("Fei Gao",),
    abstract=(
        "We fine-tune Qwen2.5-Coder-7B with LoRA on 3,000 ArkTS files and reach a 62.4% compile"
        " rate versus 48.9% for the base model."
    ),
    categories=("cs.SE",),
    primary_category="cs.SE",
)
_PAPER_ID = re.compile(r'<paper id="([0-9.]+)"')


def load_profile() -> Profile:
    return parse_profile((LLM_FIXTURES / "profile.toml").read_text(encoding="utf-8"))


def load_documents() -> dict[str, Document]:
    data = json.loads((LLM_FIXTURES / "documents.json").read_text(encoding="utf-8"))
    documents = [codec.decode(Document, json.dumps(item)) for item in data]
    return {document.arxiv_id: document for document in documents}


def load_replies() -> dict[str, dict[str, Any]]:
    return json.loads((LLM_FIXTURES / "replies.json").read_text(encoding="utf-8"))


def picks() -> list[tuple[ScoredPaper, Document | None]]:
    """Two full-text picks and one abstract-only pick, in rank order."""
    documents = load_documents()
    jobs: list[tuple[ScoredPaper, Document | None]] = []
    for rank, document in enumerate(documents.values(), 1):
        paper = Paper(
            id=document.arxiv_id,
            title=document.title,
            authors=document.authors,
            abstract=document.abstract,
            categories=("cs.SE",),
            primary_category="cs.SE",
            version=1,
        )
        jobs.append(
            (ScoredPaper(paper, 1.0 / rank, 4, "Agent Marginal Value", rank=rank), document)
        )
    jobs.append((ScoredPaper(ABSTRACT_ONLY, 0.2, 3, "Young languages", rank=3), None))
    return jobs


def paper_of(body: dict[str, Any]) -> str:
    """Which paper a request is about ("day" for the synthesis)."""
    users = [m["content"] for m in body.get("messages", []) if m.get("role") == "user"]
    user = users[0] if users else ""  # the first user message names the paper (not a repair)
    if "<picks>" in user:
        return "day"
    match = _PAPER_ID.search(user)
    return match.group(1) if match else "?"


def route_replies(replies: dict[str, dict[str, Any]] | None = None):
    """A server route answering each request with the prepared answer for its paper."""
    prepared = replies or load_replies()

    def route(body: dict[str, Any]) -> Reply:
        key = paper_of(body)
        if key not in prepared:
            return Reply(status=500, body=b'{"error": "unexpected request"}')
        return Reply(content=json.dumps(prepared[key], ensure_ascii=False))

    return route
