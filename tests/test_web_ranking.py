"""The day's ranking view reflects the reader's feedback at once; published picks stay."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from paperbrief.store import open_store
from paperbrief.web import reading
from tests.support.web import DIGEST_DAY, LISTING_DAY, RunningServer, seed_store

PICKS = ("2605.10001", "2605.10002")  # the seeded digest's picks


@pytest.fixture()
def site(tmp_path: Path):
    store_path, profile_path = seed_store(tmp_path)
    with RunningServer(store_path, profile_path) as server:
        yield server, store_path


def feedback(client: httpx.Client, paper_id: str, signal: str) -> None:
    page = client.get("/ranking")
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert token
    data = {"csrf": token.group(1), "paper_id": paper_id, "signal": signal, "next": "/ranking"}
    assert client.post("/feedback", data=data).status_code == 303


def rows(page: str) -> list[str]:
    return re.findall(r'<tr id="p-([^"]+)"', page)


def test_a_hidden_paper_leaves_the_days_ranking_view_at_once(site) -> None:
    server, store_path = site
    with httpx.Client(base_url=server.url) as client:
        before = rows(client.get("/ranking").text)
        assert "2605.30002" in before and set(PICKS) <= set(before)
        feedback(client, "2605.30002", "hide")
        after = client.get("/ranking").text
        assert rows(after) == [pid for pid in before if pid != "2605.30002"]
        assert "🙈 不感兴趣 (1)" in after
        # On request the hidden paper is listed again, marked.
        listed = client.get("/ranking?hidden=1").text
        assert rows(listed) == before and 'class=" hidden-paper"' in listed

        # The picks of the published digest stay as published, even when hidden later.
        feedback(client, PICKS[0], "hide")
        page = client.get("/ranking").text
        assert set(PICKS) <= set(rows(page)) and page.count('class="badge ok"') == 2
        row = page.split(f'id="p-{PICKS[0]}"', 1)[1].split("</tr>", 1)[0]
        assert 'fb-hide" aria-pressed="true"' in row
        assert "2605.30002" not in rows(page)
        # An 👍 after the hide brings the paper back: the latest verdict stands.
        feedback(client, "2605.30002", "up")
        assert "2605.30002" in rows(client.get("/ranking").text)
    with open_store(store_path) as store:
        digest = store.digests.load(DIGEST_DAY)
        assert digest is not None
        assert [b.paper.id for b in digest.digest.briefs] == list(PICKS)  # untouched


def test_the_ranking_view_flags_what_earlier_days_already_picked(tmp_path: Path) -> None:
    store_path, _ = seed_store(tmp_path)
    with open_store(store_path) as store:
        day = reading.ranking_day(store, reading.digest_date_of(store, LISTING_DAY))
        assert day is not None and day.picked == set(PICKS) and day.hidden == 0
        # The same papers re-listed on a later day are flagged as picked before.
        later = LISTING_DAY.replace(day=LISTING_DAY.day + 4)
        store.rankings.save(later, "fp", [s for s in day.ranking])
        again = reading.ranking_day(store, reading.digest_date_of(store, later), language="en")
        assert again is not None and again.picked == set()
        flagged = {s.paper.id for s in again.ranking if s.components.get("picked_before")}
        assert flagged == set(PICKS)
