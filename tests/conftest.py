"""Shared test fixtures: an isolated data home and the bundled example profile/listing."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_PROFILE = ROOT / "examples" / "profile.toml"
EXAMPLE_LISTING = ROOT / "examples" / "listings" / "2026-05-22.jsonl.gz"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own PAPERBRIEF_HOME so no test touches ~/.paperbrief."""
    home = tmp_path / "home"
    monkeypatch.setenv("PAPERBRIEF_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for variable in ("PAPERBRIEF_LLM_API_KEY", "OPENAI_API_KEY", "PAPERBRIEF_LLM_BASE_URL"):
        monkeypatch.delenv(variable, raising=False)
    return home
