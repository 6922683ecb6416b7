"""The rendered digest page in a real headless Chromium, at desktop and phone width.

Screenshots land in test-artifacts/ (digest-llm-*.png, digest-offline-*.png) for a human
look; skips with a message where no Chromium is installed (CI installs it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paperbrief.render import render_html
from paperbrief.store import open_store
from tests.support import model_answers
from tests.support.browser import screenshot
from tests.support.openai_server import OpenAIServer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pages")
    profile = model_answers.profile()
    with open_store(folder / "llm.db") as store, OpenAIServer(model_answers.route()) as server:
        llm, _ = model_answers.write_llm_day(server, store)
    offline, _ = model_answers.offline_day()
    out = {}
    for name, digest in (("llm", llm), ("offline", offline)):
        path = folder / f"{name}.html"
        # images stay remote (https://arxiv.org/...): the page must read well without them
        path.write_text(render_html(digest, profile), encoding="utf-8")
        out[name] = path
    return out


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
