"""Shared set-up of the ranking tests: the fixtures folder and a store whose embedding cache
already holds the real model's vectors for the fixture texts (so tests skip re-embedding),
and the ``embedder`` and ``profile`` fixtures a ranking test module imports to use them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paperbrief.models import Paper
from paperbrief.profile import Profile, load_profile
from paperbrief.rank.embed import DEFAULT_MODEL, Embedder
from paperbrief.store import Store, open_store
from tests.support import FIXTURES
from tests.support.embedding import sample_vectors

RANK_FIXTURES = FIXTURES / "rank"


def seeded_store(path: Path) -> Store:
    """A store whose embedding cache holds tests/fixtures/rank/embeddings.npz (vectors made
    by the bundled model from the same texts) and the committed vectors of the sample day
    (the reference a day is ranked against when few listings are stored)."""
    store = open_store(path)
    data = np.load(RANK_FIXTURES / "embeddings.npz")
    vectors = dict(zip(data["hashes"].tolist(), data["vectors"], strict=True))
    store.embeddings.put(DEFAULT_MODEL, {**sample_vectors(), **vectors})
    return store


@pytest.fixture(scope="module", name="embedder")
def rank_embedder(tmp_path_factory: pytest.TempPathFactory, encoder: object) -> Embedder:
    """An embedder over a seeded store (the real model only for texts it does not hold)."""
    store = seeded_store(tmp_path_factory.mktemp("cache") / "db.sqlite")
    return Embedder(cache=store.embeddings, encoder=encoder)  # type: ignore[arg-type]


@pytest.fixture(scope="module", name="profile")
def rank_profile() -> Profile:
    return load_profile(RANK_FIXTURES / "profile.toml")


def listed_paper(i: int, title: str = "", abstract: str = "We study program repair.") -> Paper:
    """Paper number ``i`` of a made-up cs.SE listing (id 2605.0000i)."""
    return Paper(
        id=f"2605.{i:05d}",
        title=title or f"Paper {i}",
        authors=("A",),
        abstract=abstract,
        categories=("cs.SE",),
        primary_category="cs.SE",
    )
