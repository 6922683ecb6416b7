"""Shared set-up of the ranking tests: the fixtures folder and a store whose embedding cache
already holds the real model's vectors for the fixture texts (so tests skip re-embedding)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from paperbrief.rank.embed import DEFAULT_MODEL
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
