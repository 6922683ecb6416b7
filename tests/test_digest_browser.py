"""The rendered digest page in a real headless Chromium, at desktop and phone width.

Screenshots land in test-artifacts/ (digest-llm-*.png, digest-offline-*.png) for a human
look; skips with a message where no Chromium is installed (CI installs it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperbrief.deliver.mail import build_email
from paperbrief.models import Listing
from paperbrief.render import render_html
from paperbrief.render.markdown import render_markdown
from paperbrief.store import open_store
from tests.support import EXAMPLE_PROFILE, model_answers
from tests.support.browser import ARTIFACTS, screenshot
from tests.support.openai_server import OpenAIServer
from tests.support.web import RunningServer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pages")
    profile = model_answers.profile()
    route = model_answers.route(*model_answers.cited_answers())
    with open_store(folder / "llm.db") as store, OpenAIServer(route) as server:
        llm, _ = model_answers.write_llm_day(server, store)
    offline, _ = model_answers.offline_day()
    out = {}
    for name, digest in (("llm", llm), ("offline", offline)):
        path = folder / f"{name}.html"
        # images stay remote (https://arxiv.org/...): the page must read well without them
        path.write_text(render_html(digest, profile), encoding="utf-8")
        out[name] = path
    web = folder / "web.db"
    with open_store(web) as store:
        papers = tuple(b.paper for b in llm.briefs)
        store.listings.save(Listing(model_answers.LISTING_DAY, papers, "test"))
        store.picks.save(llm.digest_date, llm.listing_day, [b.scored for b in llm.briefs])
        store.digests.save(
            llm, "strong-model", render_markdown(llm, profile), render_html(llm, profile)
        )
    out["web-store"] = web
    message = build_email("digest", "a@example.org", ["b@example.org"],
                          render_markdown(llm, profile), render_html(llm, profile))  # fmt: skip
    mail = folder / "mail.html"
    mail.write_text(message.get_body(("html",)).get_content(), encoding="utf-8")
    out["mail"] = mail
    return out


def test_the_web_pages_of_an_llm_digest_show_no_literal_tag_or_mark(browser, pages, tmp_path):
    profile_path = tmp_path / "profile.toml"
    profile_path.write_text(EXAMPLE_PROFILE.read_text(encoding="utf-8"), encoding="utf-8")
    with RunningServer(pages["web-store"], profile_path) as server:
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.goto(server.url + "/paper/2501.11120")
        text = page.inner_text("main")
        assert not [mark for mark in _LEAKS if mark in text]
        assert page.locator("li strong", has_text="HomeCheck").count() >= 1
        hrefs = page.eval_on_selector_all("a.src", "els => els.map(e => e.href)")
        assert hrefs and all(h.startswith("https://arxiv.org/") for h in hrefs)
        page.goto(server.url + f"/digest/{model_answers.DIGEST_DATE.isoformat()}")
        frame = page.frame_locator("iframe.digest-frame")
        body = frame.locator("body").inner_text()
        assert "局限 1" in body and not [mark for mark in _LEAKS if mark in body]
        screenshot(page, "digest-llm-web")
        page.close()


# what a reader must never see: an escaped tag, a Markdown mark, a raw citation marker
_LEAKS = ("<strong", "</strong", "<code", "&lt;", "**", "`", "[E", "[T", "](http")


@pytest.mark.parametrize("name", ["llm", "mail"])
def test_an_llm_written_digest_shows_no_literal_tag_or_mark(browser, pages, name):
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    page.route("**/*", lambda route: route.abort() if route.request.url.startswith("http")
               else route.continue_())  # fmt: skip
    page.goto(pages[name].as_uri())
    text = page.inner_text("body")
    leaks = [mark for mark in _LEAKS if mark in text]
    assert not leaks, leaks
    # the labelled items render bold (the str + Markup bug printed their tags as text)
    assert page.locator("li strong", has_text="局限 1").count() >= 1
    # citations are links to the paper's paragraph, table or page
    hrefs = page.eval_on_selector_all("a.src", "els => els.map(e => e.href)")
    assert len(hrefs) >= 30 and all(h.startswith("https://arxiv.org/") for h in hrefs)
    assert any("#S3.T2" in h for h in hrefs) and any("#page=" in h for h in hrefs)
    page.close()


@pytest.mark.parametrize("name", ["llm", "offline"])
@pytest.mark.parametrize(("width", "label"), [(1200, "desktop"), (390, "phone")])
def test_digest_page_reads_at_desktop_and_phone_width(browser, pages, name, width, label):
    page = browser.new_page(viewport={"width": width, "height": 900}, device_scale_factor=1)
    page.route("**/*", lambda route: route.abort() if route.request.url.startswith("http")
               else route.continue_())  # fmt: skip
    page.goto(pages[name].as_uri())
    # the page never scrolls sideways: wide tables scroll inside their own box
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    # row labels of the comparison are words, not a column of single characters
    widths = page.evaluate(
        "[...document.querySelectorAll('table.compare tbody th')].map(e => e.offsetWidth)"
    )
    assert widths and min(widths) >= 56, widths
    # bold and lists render as such; no Markdown marks leak into the page
    assert page.locator("strong").count() > 10 and page.locator("li").count() > 10
    if name == "llm":  # (the offline page shows the paper's own significance stars, 0.0111***)
        assert "**" not in page.inner_text("main")
        assert page.locator("p", has_text="此前的工作主要研究模型").count() == 1
        assert page.locator("li strong", has_text="HomeCheck").count() >= 1
    screenshot(page, f"digest-{name}-{label}")
    page.close()


# Each overview row as a card must show whole at 390 px: its title, line, contribution and
# stars inside the screen (the table was 470 px in a 341 px frame: contributions cut, stars
# off screen).
_OVERVIEW_CELLS = {
    "llm": "table.overview td",
    "offline": "table.overview td",
    "mail": "div[style*='border-radius:8px'] > div",
}


@pytest.mark.parametrize("name", ["llm", "offline", "mail"])
def test_the_overview_shows_whole_at_phone_width(browser, pages, name):
    page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    page.route("**/*", lambda route: route.abort() if route.request.url.startswith("http")
               else route.continue_())  # fmt: skip
    page.goto(pages[name].as_uri())
    boxes = page.eval_on_selector_all(
        _OVERVIEW_CELLS[name],
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return [r.left, r.right, r.width, e.innerText.trim()]; })",
    )
    assert len(boxes) >= 8, boxes  # two papers at least, four fields each
    for left, right, width, text in boxes:
        assert left >= 0 and right <= 390, (left, right, text[:40])  # nothing off screen
        assert width <= 390
    assert any("⭐" in text for *_, text in boxes)  # the stars are among what shows
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    first = page.locator(_OVERVIEW_CELLS[name]).first
    first.scroll_into_view_if_needed()
    region = page.evaluate(
        f"(() => {{ const cells = [...document.querySelectorAll({_OVERVIEW_CELLS[name]!r})];"
        " const top = Math.min(...cells.map(c => c.getBoundingClientRect().top));"
        " const bottom = Math.max(...cells.map(c => c.getBoundingClientRect().bottom));"
        " return [top + window.scrollY, bottom + window.scrollY]; })()"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(
        path=str(ARTIFACTS / f"overview-{name}-phone.png"),
        full_page=True,
        clip={
            "x": 0,
            "y": max(region[0] - 60, 0),
            "width": 390,
            "height": region[1] - region[0] + 80,
        },
    )
    page.close()
