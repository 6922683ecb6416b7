"""The web UI in a real headless Chromium (Debian's package, driven by Playwright).

Screenshots land in test-artifacts/ for a human look. Skips with a clear message when no
Chromium is installed (CI installs it: see .ci/run).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paperbrief.store import open_store
from tests.support.browser import screenshot
from tests.support.web import RunningServer, seed_store

pytestmark = pytest.mark.browser


@pytest.fixture()
def site(tmp_path: Path):
    store_path, profile_path = seed_store(tmp_path)
    with RunningServer(store_path, profile_path) as server:
        yield server, store_path, profile_path


def _wait_until_taller(element, height: float, seconds: float = 10) -> None:
    """Wait for ``element`` to grow past ``height`` CSS pixels. Polled from here: the page's
    CSP forbids eval, which ``page.wait_for_function`` needs for its polling in the page."""
    for _ in range(int(seconds * 10)):
        box = element.bounding_box()
        if box is not None and box["height"] > height:
            return
        element.page.wait_for_timeout(100)
    box = element.bounding_box()
    raise AssertionError(f"still {box and box['height']} px high after {seconds} s")


def _shot(page, name: str) -> None:
    page.evaluate("window.scrollTo(0, 0)")  # the sticky header belongs at the top
    screenshot(page, name)


def test_read_a_digest_and_give_feedback_that_survives_a_reload(browser, site) -> None:
    server, store_path, _ = site
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.goto(server.url + "/")
    assert page.locator("h2 a", has_text="arXiv 每日速递 2026-05-22").is_visible()
    _shot(page, "archive-desktop")

    page.click("text=arXiv 每日速递 2026-05-22")
    page.wait_for_url("**/digest/2026-05-22")
    frame = page.frame_locator("iframe.digest-frame")
    assert frame.locator("h1").first.inner_text().startswith("arXiv 每日速递")
    _wait_until_taller(page.locator("iframe.digest-frame"), 900)  # grew to its content
    _shot(page, "digest-desktop")

    pick = page.locator("li#p-2605\\.10001")
    pick.locator("input.note").fill("想复现")
    pick.locator("button.fb-up").click()
    page.wait_for_url("**/digest/2026-05-22#p-2605.10001")
    page.reload()
    pressed = page.locator("li#p-2605\\.10001 button.fb-up")
    assert pressed.get_attribute("aria-pressed") == "true"
    assert "想复现" in page.locator("li#p-2605\\.10001").inner_text()
    with open_store(store_path) as store:
        events = [(e.signal, e.note, e.source) for e in store.feedback.for_paper("2605.10001")]
    assert events == [("up", "想复现", "web")]
    page.close()


def test_ranking_and_paper_pages_at_phone_width(browser, site) -> None:
    server, _, _ = site
    page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page.goto(server.url + "/ranking")
    assert page.locator("tr.picked").count() == 2
    # The page itself never scrolls sideways: wide tables scroll inside their own box.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.locator("tr#p-2605\\.30003 button.fb-hide").click()
    page.wait_for_load_state()
    assert page.locator("tr#p-2605\\.30003").count() == 0  # hidden: it leaves the ranking
    _shot(page, "ranking-phone")
    page.locator("a[href='?hidden=1']").click()  # ... and is listed again on request
    page.wait_for_load_state()
    assert page.locator("tr#p-2605\\.30003").get_attribute("class").find("hidden-paper") >= 0
    page.goto(server.url + "/paper/2605.10001")
    assert page.locator("text=Counterfactual replay").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    _shot(page, "paper-phone")
    page.goto(server.url + "/digest/2026-05-22")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # the first phone screen is the digest; the feedback buttons come after it
    frame_top = page.locator("iframe.digest-frame").bounding_box()["y"]
    assert frame_top < 844 / 3, frame_top
    panel_top = page.locator("#feedback").bounding_box()["y"]
    assert panel_top > frame_top + 844, (frame_top, panel_top)
    assert page.locator("a[href='#feedback']").is_visible()  # one tap to them
    _shot(page, "digest-phone")
    page.close()


def test_profile_with_an_invalid_value_shows_the_error_in_place(browser, site) -> None:
    server, _, profile_path = site
    original = profile_path.read_text(encoding="utf-8")
    page = browser.new_page(viewport={"width": 1000, "height": 900})
    page.goto(server.url + "/profile")
    editor = page.locator("textarea[name=text]")
    editor.fill(original.replace('language = "zh"', 'language = "fr"'))
    page.click("button[value=save]")
    alert = page.locator("[role=alert]")
    assert "language" in alert.inner_text()
    assert editor.get_attribute("aria-invalid") == "true"
    assert 'language = "fr"' in editor.input_value()  # the edit is kept for fixing
    _shot(page, "profile-error")
    assert profile_path.read_text(encoding="utf-8") == original
    editor.fill(original.replace('language = "zh"', 'language = "zh"\npicks_per_day = 3'))
    page.click("button[value=save]")
    assert page.locator("[role=status]").inner_text() == "已保存。"
    assert "picks_per_day = 3" in profile_path.read_text(encoding="utf-8")
    page.close()


def test_first_contact_the_token_page_and_the_profile_fields_on_a_phone(browser, tmp_path):
    """issue 20 (9): a styled, localised token page that says where the token is, and a
    profile editor with fields beside the TOML (390 px, a phone)."""
    import secrets

    store_path, profile_path = seed_store(tmp_path)
    token = secrets.token_urlsafe(32)
    where = str(tmp_path / "home" / "web-token")
    with RunningServer(store_path, profile_path, token, token_source=where) as server:
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(server.url + "/profile")
        assert page.locator("h1").inner_text() == "请输入访问令牌"
        assert where in page.locator("main").inner_text()
        card = page.locator("main.login-card").bounding_box()
        assert card is not None and card["width"] <= 390  # styled: a card that fits
        _shot(page, "token-page-phone")
        page.fill("input[name=token]", token)
        page.click("button[type=submit]")
        page.wait_for_url("**/profile")
        page.fill("input[name='field.picks_per_day']", "2")
        assert page.locator("input[name='field.name']").is_disabled()
        _shot(page, "profile-fields-phone")
        page.click("button[value=save]")
        assert page.locator("[role=status]").inner_text() == "已保存。"
        page.close()
    assert "picks_per_day = 2" in profile_path.read_text(encoding="utf-8")
