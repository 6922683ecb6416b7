"""Several readers in one web UI (issue 22), tried as hostile readers would: with reader A's
token, nothing of reader B is reachable on any route (their digest, ranking, feedback,
profile, the owner's view), and what A posts lands in A's data only. A real lab home (two
readers published by `run --all`'s code on a real listing day), uvicorn on loopback."""

from __future__ import annotations

import re
from datetime import date

import httpx
import pytest
from starlette.routing import Route

from paperbrief.lab import load_readers, reader_files, run_lab
from paperbrief.models import Signal
from paperbrief.pipeline import RunOptions
from paperbrief.services import Services
from paperbrief.store import open_store
from paperbrief.web.app import ROUTES
from paperbrief.web.readers import WebReader, reader_token
from tests.support.web import RunningServer
from tests.test_lab import LISTING, TODAY, _reader_profile

OWNER = "owner-token-" + "x" * 24
DAY = "2026-05-23"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lab(tmp_path_factory, pipeline_vectors):
    folder = tmp_path_factory.mktemp("lab")
    readers_dir = folder / "readers"
    readers_dir.mkdir()
    for label, index in (("alice", 0), ("bob", 2)):  # no research line in common
        text = _reader_profile(index, "http://127.0.0.1:9/unused")
        text = text.replace(f'name = "Reader {index:02d}"', f'name = "{label.title()}"')
        (readers_dir / f"{label}.toml").write_text(f"# {label}-profile-marker\n" + text, "utf-8")
    readers = load_readers(reader_files(readers_dir))

    def build(profile, store, embedder):
        return Services.build(profile, store, offline=True, embedder=embedder)

    store_path = folder / "paperbrief.db"
    with open_store(store_path) as home:
        pipeline_vectors.seed(home)
        options = RunOptions(listing_file=LISTING, out_dir=folder / "out", deliver=False)
        result = run_lab(home, readers, options, build, today=TODAY)
        assert [o.status for o in result.outcomes] == ["published", "published"]
        home.for_reader("Bob").feedback.add("2605.22817", Signal.UP, note="bob-secret-note")
        bob = home.for_reader("Bob")
        bob_picks = bob.picks.ids(date(2026, 5, 23))
        alice_picks = home.for_reader("Alice").picks.ids(date(2026, 5, 23))
        bob_only = [p for p in bob_picks if p not in alice_picks]
        bob_brief = next(b for b in bob.digests.latest().digest.briefs if b.paper.id in bob_only)
    web = [
        WebReader(r.label, r.profile.key, r.path) for r in readers if r.profile is not None
    ]  # fmt: skip
    home_profile = readers_dir / "alice.toml"  # the owner's own pages
    with RunningServer(store_path, home_profile, token=OWNER, readers=web) as server:
        yield server, store_path, readers_dir, bob_only, bob_brief


BOB_MARKERS = (
    "bob-profile-marker",
    "bob-secret-note",
    "OpenHarmony 与新生语言工具链",
    "小模型与本地推理",
)


def _client(server, token: str) -> httpx.Client:
    return httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"})


def _get_paths(bob_only: list[str]) -> list[str]:
    return [
        "/",
        f"/digest/{DAY}",
        f"/digest/{DAY}/file",
        f"/paper/{bob_only[0]}",
        "/paper/2605.22817",
        "/ranking",
        f"/ranking/{DAY}",  # ranking pages are named by digest date (main, issue 19/21)
        "/search?q=OpenHarmony",
        "/profile",
        "/start",
        "/owner",
    ]


def test_every_route_with_alices_token_shows_nothing_of_bob(lab):
    server, _, _, bob_only, bob_brief = lab
    alice = reader_token(OWNER, "alice")
    seen = set()
    with _client(server, alice) as client:
        for path in _get_paths(bob_only):
            page = client.get(path)
            seen.add(path.split("?")[0])
            if path == "/start" and page.status_code == 303:  # to the papers for her to rate
                page = client.get(page.headers["location"])
            assert page.status_code in (200, 404), (path, page.status_code)
            for marker in (*BOB_MARKERS, bob_brief.reason):
                assert marker not in page.text, (path, marker)
        assert "alice-profile-marker" in client.get("/profile").text
        assert client.get("/owner").status_code == 404  # the owner's page is not a reader's
        assert "Agent 边际价值实证" in client.get("/ranking").text  # her own lines
    # every route of the app is among those tried (a new route must join this test)
    patterns = {r.path for r in ROUTES if isinstance(r, Route)}
    tried = {re.sub(r"/(2605\.\d+|2026-05-2\d)", "/{x}", p) for p in seen}
    assert len(tried) >= len(patterns) - 1, (sorted(tried), sorted(patterns))


def test_what_alice_posts_lands_in_her_data_only(lab):
    server, store_path, readers_dir, bob_only, _ = lab
    alice = reader_token(OWNER, "alice")
    bob_profile = (readers_dir / "bob.toml").read_text(encoding="utf-8")
    with _client(server, alice) as client:
        page = client.get("/ranking").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        answer = client.post(
            "/feedback",
            data={"csrf": csrf, "paper_id": bob_only[0], "signal": "hide", "note": "alice-n"},
        )
        assert answer.status_code == 303
        text = client.get("/profile").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', text).group(1)
        mine = (readers_dir / "alice.toml").read_text(encoding="utf-8")
        saved = client.post(
            "/profile", data={"csrf": csrf, "text": mine + "\n# edited\n", "action": "save"}
        )
        assert saved.status_code == 200
    with open_store(store_path) as home:
        alice_notes = [e.note for e in home.for_reader("Alice").feedback.events()]
        bob_notes = [e.note for e in home.for_reader("Bob").feedback.events()]
    assert "alice-n" in alice_notes and "alice-n" not in bob_notes
    assert "bob-secret-note" in bob_notes and "bob-secret-note" not in alice_notes
    assert (readers_dir / "bob.toml").read_text(encoding="utf-8") == bob_profile
    assert (readers_dir / "alice.toml").read_text(encoding="utf-8").endswith("# edited\n")


def test_bobs_token_sees_bob_and_the_owner_sees_every_reader(lab):
    server, _, _, bob_only, bob_brief = lab
    with _client(server, reader_token(OWNER, "bob")) as client:
        assert "bob-profile-marker" in client.get("/profile").text
        assert bob_brief.paper.id in client.get(f"/digest/{DAY}").text
        assert "alice-profile-marker" not in client.get("/profile").text
        assert "Agent 边际价值实证" not in client.get("/ranking").text
    with _client(server, OWNER) as client:
        owner = client.get("/owner")
        assert owner.status_code == 200
        assert "alice" in owner.text and "bob" in owner.text and "published" in owner.text
    with _client(server, "not-a-token-at-all-" + "y" * 20) as client:
        assert client.get("/").status_code == 401
    with httpx.Client(base_url=server.url) as client:  # a reader's link signs them in
        first = client.get(f"/?token={reader_token(OWNER, 'bob')}", follow_redirects=False)
        assert first.status_code == 303
        assert "bob-profile-marker" in client.get("/profile").text
