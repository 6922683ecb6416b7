"""Debian's Chromium, headless, through Playwright: one launcher for the browser tests.

Skips with a clear message when no Chromium is installed (CI installs it: see .ci/run).
Screenshots land in test-artifacts/ for a human look.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARTIFACTS = Path(__file__).resolve().parent.parent.parent / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def launch_chromium() -> Iterator[Any]:
    """A running headless Chromium (a Playwright Browser), closed afterwards."""
    if CHROMIUM is None:
        pytest.skip("no chromium on PATH: install Debian's `chromium` to run the browser tests")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


def screenshot(page: Any, name: str) -> None:
    """A full-page screenshot test-artifacts/<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
