"""Helpers for the web tests (no tests here): seed a store, run the UI on a loopback port."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from dataclasses import replace
from datetime import date
from pathlib import Path

import uvicorn

from paperbrief.models import Digest, Document, Listing, ScoredPaper, Section, Table
from paperbrief.profile import parse_profile
from paperbrief.render import render_html, render_markdown
from paperbrief.store import codec, open_store
from paperbrief.web import create_app
from tests.support import FIXTURES

DELIVER_FIXTURES = FIXTURES / "deliver"
DIGEST_DAY = date(2026, 5, 22)
LISTING_DAY = date(2026, 5, 21)


def seed_store(folder: Path) -> tuple[Path, Path]:
    """A store with one digest, its day's ranking (picked and not picked), a document."""
    profile_path = folder / "profile.toml"
    shutil.copy(DELIVER_FIXTURES / "profile.toml", profile_path)
    profile = parse_profile(profile_path.read_text(encoding="utf-8"))
    digest = codec.decode(
        Digest, (DELIVER_FIXTURES / "digest-2026-05-22.json").read_text(encoding="utf-8")
    )
    digest = replace(digest, listing_day=LISTING_DAY)
    picks = [brief.scored for brief in digest.briefs]
    base = picks[0].paper
    others = [
        ScoredPaper(
            paper=replace(
                base,
                id=f"2605.3{index:04d}",
                title=f"Unpicked paper number {index} about <b>tokenizers</b> 与分词",
                listings={"cs.CL": "new"},
            ),
            score=0.5 - index / 100,
            stars=2 if index < 4 else 1,
            line=None,
            reason="只命中了宽泛的关键词",
            rank=index + 2,
        )
        for index in range(1, 8)
    ]
    ranking = [replace(p, paper=replace(p.paper, listings={"cs.SE": "new"})) for p in picks]
    ranking += others
    store_path = folder / "paperbrief.db"
    with open_store(store_path) as store:
        store.listings.save(Listing(LISTING_DAY, tuple(s.paper for s in ranking), "test"))
        store.rankings.save(LISTING_DAY, profile.ranking_fingerprint(), ranking)
        store.picks.save(DIGEST_DAY, LISTING_DAY, picks)
        store.digests.save(
            digest, "offline", render_markdown(digest, profile), render_html(digest, profile)
        )
        document = Document(
            arxiv_id=base.id,
            title=base.title,
            authors=base.authors,
            abstract=base.abstract,
            sections=(Section("1 Introduction", 1), Section("3.2 Counterfactual replay", 2)),
            tables=(Table("Resolve rate with and without tests", "Table 2", (("a", "b"),)),),
            source="arxiv-html",
        )
        store.documents.save(document, 1)
        store.deliveries.record(DIGEST_DAY, "email", ok=True)
        store.deliveries.record(DIGEST_DAY, "slack", ok=False, error="HTTP 500")
    return store_path, profile_path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RunningServer:
    """uvicorn serving ``create_app`` on 127.0.0.1 in a thread."""

    def __init__(
        self,
        store_path: Path,
        profile_path: Path,
        token: str | None = None,
        readers=(),
        *,
        secure_cookies: bool = False,
        token_source: str = "",
    ) -> None:
        self.port = free_port()
        app = create_app(
            store_path,
            profile_path,
            token=token,
            readers=readers,
            secure_cookies=secure_cookies,
            token_source=token_source,
        )
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> RunningServer:
        self.thread.start()
        deadline = time.monotonic() + 10
        # uvicorn says when it listens (a request per try cost each a TLS context, ~25 ms).
        while time.monotonic() < deadline and self.thread.is_alive():
            if self.server.started:
                return self
            time.sleep(0.01)
        raise RuntimeError("web UI did not start")

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
