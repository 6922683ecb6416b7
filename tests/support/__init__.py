"""What the tests share: paths, loopback servers, prepared data and seeded stores.

Import as ``from tests.support import ...`` / ``from tests.support.openai_server import ...``.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_PROFILE = ROOT / "examples" / "profile.toml"
EXAMPLE_LISTING = ROOT / "examples" / "listings" / "2026-05-22.jsonl.gz"
FIXTURES = ROOT / "tests" / "fixtures"
