"""The web UI over HTTP on a loopback port: pages, escaping, feedback, profile, access."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from paperbrief.store import open_store
from tests.support.web import RunningServer, seed_store


@pytest.fixture()
def site(tmp_path: Path):
    store_path, profile_path = seed_store(tmp_path)
    with RunningServer(store_path, profile_path) as server:
        yield server, store_path, profile_path


def _csrf(client: httpx.Client, url: str) -> str:
    page = client.get(url)
    match = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert match, page.text[:500]
    return match.group(1)


def test_pages_render_and_escape_paper_text(site) -> None:
    server, _, _ = site
    with httpx.Client(base_url=server.url) as client:
        archive = client.get("/")
        assert archive.status_code == 200 and "arXiv 每日速递 2026-05-22" in archive.text
        assert "<script>alert" not in archive.text and "&lt;script&gt;" in archive.text
        ranking = client.get("/ranking").text
        assert "Unpicked paper number 3" in ranking and "&lt;b&gt;tokenizers&lt;/b&gt;" in ranking
        assert ranking.count('class="badge ok"') == 2  # the two picks are marked
        assert "只命中了宽泛的关键词" in ranking  # the reasons of what was not picked
        paper = client.get("/paper/2605.10001").text
        assert "Counterfactual replay" in paper and "Table 2" in paper  # document outline
        assert "反事实回放" in paper  # the brief from the digest
        assert "https://arxiv.org/pdf/2605.10001v1" in paper
        hits = client.get("/search", params={"q": "ArkTS"}).text
        assert "/digest/2026-05-22" in hits and "/paper/2605.10002" in hits
        stored = client.get("/digest/2026-05-22/file")
        assert stored.text.startswith("<!DOCTYPE html>") and "<base" not in stored.text
        assert "script-src" not in stored.headers["content-security-policy"]  # none allowed
        assert '<base target="_blank">' in client.get("/digest/2026-05-22/file?framed=1").text
        headers = client.get("/").headers
        assert "script-src 'self'" in headers["content-security-policy"]
        assert client.get("/paper/9999.99999").status_code == 404


def test_feedback_goes_to_the_store_with_note(site) -> None:
    server, store_path, _ = site
    with httpx.Client(base_url=server.url) as client:
        token = _csrf(client, "/ranking")
        answer = client.post(
            "/feedback",
            data={"csrf": token, "paper_id": "2605.30003", "signal": "hide",
                  "note": "太偏 NLP", "next": "/ranking"},
        )  # fmt: skip
        assert answer.status_code == 303
        assert answer.headers["location"] == "/ranking#p-2605.30003"
        evil = client.post(
            "/feedback",
            data={"csrf": token, "paper_id": "2605.10001", "signal": "up",
                  "next": "//evil.example/x"},
        )  # fmt: skip
        assert evil.headers["location"].startswith("/#p-")  # never redirects off-site
        assert (
            client.post(
                "/feedback", data={"csrf": token, "paper_id": "2605.10001", "signal": "boom"}
            ).status_code
            == 400
        )
        client.post(
            "/feedback",
            data={"csrf": token, "paper_id": "2605.30004", "signal": "save",
                  "note": "<img src=x onerror=alert(1)>", "next": "/ranking"},
        )  # fmt: skip
        page = client.get("/ranking?hidden=1").text  # the hidden paper, shown on request
        assert 'class="fb fb-hide" aria-pressed="true"' in page and "太偏 NLP" in page
        assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    with open_store(store_path) as store:
        events = [(e.paper_id, e.signal, e.note, e.source) for e in store.feedback.events()]
    assert events == [
        ("2605.30003", "hide", "太偏 NLP", "web"),
        ("2605.10001", "up", None, "web"),
        ("2605.30004", "save", "<img src=x onerror=alert(1)>", "web"),
    ]


def test_post_without_csrf_token_or_from_another_origin_is_refused(site) -> None:
    server, store_path, _ = site
    with httpx.Client(base_url=server.url) as client:
        data = {"paper_id": "2605.10001", "signal": "up"}
        assert client.post("/feedback", data=data).status_code == 403  # no cookie yet
        token = _csrf(client, "/")
        assert client.post("/feedback", data={**data, "csrf": "x" * 43}).status_code == 403
        foreign = client.post(
            "/feedback", data={**data, "csrf": token}, headers={"Origin": "https://evil.example"}
        )
        assert foreign.status_code == 403
    with open_store(store_path) as store:
        assert store.feedback.events() == []


def test_profile_edit_shows_errors_in_place_and_saves_only_valid_text(site) -> None:
    server, _, profile_path = site
    original = profile_path.read_text(encoding="utf-8")
    with httpx.Client(base_url=server.url) as client:
        token = _csrf(client, "/profile")
        bad = original.replace('language = "zh"', 'language = "zh"\npicks_per_day = 99')
        answer = client.post("/profile", data={"csrf": token, "text": bad, "action": "save"})
        assert answer.status_code == 422
        assert "picks_per_day" in answer.text and "第 4 行" in answer.text
        assert "picks_per_day = 99" in answer.text  # the edited text stays in the editor
        assert profile_path.read_text(encoding="utf-8") == original
        broken = client.post(
            "/profile", data={"csrf": token, "text": "name = [", "action": "validate"}
        )
        assert broken.status_code == 422 and "TOML" in broken.text
        good = original.replace('language = "zh"', 'language = "zh"\npicks_per_day = 5')
        saved = client.post("/profile", data={"csrf": token, "text": good, "action": "save"})
        assert saved.status_code == 200 and "已保存" in saved.text
    assert "picks_per_day = 5" in profile_path.read_text(encoding="utf-8")


def test_token_is_required_for_every_request_when_configured(tmp_path: Path) -> None:
    store_path, profile_path = seed_store(tmp_path)
    secret = "t0ken-for-tests-1234567890"
    with (
        RunningServer(store_path, profile_path, token=secret) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        assert client.get("/").status_code == 401
        # the style sheet and script hold nothing of the reader's: the token page uses them
        assert client.get("/static/style.css").status_code == 200
        assert client.get("/?token=wrong").status_code == 401
        headers = {"Authorization": f"Bearer {secret}"}
        assert client.get("/ranking", headers=headers).status_code == 200
        login = client.get(f"/search?q=x&token={secret}")
        assert login.status_code == 303 and login.headers["location"] == "/search?q=x"
        assert client.get("/").status_code == 200  # the cookie from the login
        assert "token" not in login.headers["location"]


def test_loopback_only_without_token(site) -> None:
    server, _, _ = site
    answer = httpx.get(server.url + "/", headers={"Host": "attacker.example"})
    assert answer.status_code == 403  # DNS rebinding cannot reach the UI


def test_web_feedback_reaches_the_ranking_learner(site) -> None:
    from paperbrief.rank.feedback import examples_from_events

    server, store_path, _ = site
    with httpx.Client(base_url=server.url) as client:
        token = _csrf(client, "/ranking")
        for paper_id, signal in [("2605.30001", "up"), ("2605.30001", "hide"),
                                 ("2605.30002", "save")]:  # fmt: skip
            data = {"csrf": token, "paper_id": paper_id, "signal": signal, "next": "/ranking"}
            assert client.post("/feedback", data=data).status_code == 303
        page = client.get("/ranking?hidden=1").text
    row = page.split('id="p-2605.30001"', 1)[1].split("</tr>", 1)[0]
    assert 'fb-hide" aria-pressed="true"' in row and 'fb-up" aria-pressed="false"' in row
    with open_store(store_path) as store:
        events = store.feedback.events()
        papers = store.listings.papers(e.paper_id for e in events)
    examples = examples_from_events(((e.paper_id, e.signal, e.created_at) for e in events), papers)
    labels = {example.paper.id: example.label for example in examples}
    assert labels == {"2605.30001": 0, "2605.30002": 1}  # the latest verdict wins


def test_rate_to_start_keeps_its_selection_while_the_reader_rates(site) -> None:
    server, store_path, _ = site
    with httpx.Client(base_url=server.url) as client:
        first = client.get("/start")
        assert first.status_code == 303 and first.headers["location"].startswith("/start?papers=")
        url = first.headers["location"]
        chosen = url.split("=", 1)[1].split(",")
        page = client.get(url).text
        assert all(f'id="p-{pid}"' in page for pid in chosen)
        assert f"已评 0 / {len(chosen)} 篇" in page
        assert "<b>tokenizers</b>" not in page  # paper text is escaped here too
        token = _csrf(client, url)
        answer = client.post(
            "/feedback",
            data={"csrf": token, "paper_id": chosen[0], "signal": "up", "next": url},
        )
        assert answer.status_code == 303 and answer.headers["location"].startswith(url)
        again = client.get(url).text
        assert f"已评 1 / {len(chosen)} 篇" in again
        assert all(f'id="p-{pid}"' in again for pid in chosen)  # the same papers stay
        fresh = client.get("/start").headers["location"].split("=", 1)[1].split(",")
        assert chosen[0] not in fresh  # a new selection skips what was rated
    with open_store(store_path) as store:
        (event,) = store.feedback.events()
    assert (event.paper_id, event.signal, event.source) == (chosen[0], "up", "web")


def test_every_word_a_page_names_is_in_its_table():
    """A misspelt or removed label would render as nothing: the pages name only words the
    digest's table (``t``) or the web UI's own (``ui``) has."""
    import dataclasses
    import re

    from paperbrief.labels import Labels
    from paperbrief.web.labels import WebLabels

    tables = {"t": Labels, "ui": WebLabels}
    known = {
        name: {f.name for f in dataclasses.fields(table)} | set(vars(table))
        for name, table in tables.items()
    }
    templates = Path(__file__).parent.parent / "src" / "paperbrief" / "web" / "templates"
    named = [
        (page.name, match.group(0))
        for page in sorted(templates.glob("*.html"))
        for match in re.finditer(r"\b(t|ui)\.(\w+)", page.read_text(encoding="utf-8"))
        if match.group(2) not in known[match.group(1)]
    ]
    assert named == []


def test_a_date_means_the_digest_date_in_every_route(site) -> None:
    """issue 20 (9): /ranking/<digest date> was a 404 while /digest/<digest date> worked."""
    from tests.support.web import DIGEST_DAY, LISTING_DAY

    server, _, _ = site
    digest = httpx.get(f"{server.url}/digest/{DIGEST_DAY}")
    ranking = httpx.get(f"{server.url}/ranking/{DIGEST_DAY}")
    assert digest.status_code == ranking.status_code == 200
    assert f'href="/digest/{DIGEST_DAY}"' in ranking.text and str(LISTING_DAY) in ranking.text
    old = httpx.get(f"{server.url}/ranking/{LISTING_DAY}", follow_redirects=False)
    assert old.status_code == 301 and old.headers["location"] == f"/ranking/{DIGEST_DAY}"
    picker = httpx.get(f"{server.url}/ranking", params={"day": str(DIGEST_DAY)})
    assert picker.status_code == 200 and f'href="/digest/{DIGEST_DAY}"' in picker.text
