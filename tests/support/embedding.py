"""One embedding model per test session, the sample day's vectors committed once, and
stores seeded with them.

Embedding the sample day (480 abstracts of 2026-05-22 and the example profile's texts)
costs ~15 s of CPU; it used to be paid by several tests of every run. The vectors are
committed instead (``paperbrief/data/sample/2026-05-22.vectors.npz``, package data: the
reference a first run ranks against reads them too, ``rank.reference``) and one test
checks them against the model (``tests/test_embed.py``). A test that
needs the model for other texts shares one ``SharedEncoder`` (loaded on first use) through
``Services.build(..., encoder=...)``; tests that go through the CLI (which builds its own
services) get a data home whose vector cache already holds what they embed.

    python -m tests.support.embedding     # rewrite the committed vectors from the model
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import numpy as np

from paperbrief.profile import Profile, load_profile
from paperbrief.rank.embed import DEFAULT_MODEL, Embedder, TextEncoder, load_encoder
from paperbrief.rank.reference import BUNDLED_VECTORS
from paperbrief.rank.scorers import line_query_text
from paperbrief.rank.text import paper_text, text_hash
from paperbrief.sources import load_snapshot
from paperbrief.store import Store, open_store
from tests.support import EXAMPLE_LISTING, EXAMPLE_PROFILE, FIXTURES

SAMPLE_VECTORS = BUNDLED_VECTORS


class SharedEncoder:
    """The real bundled model, loaded once on first use."""

    def __init__(self) -> None:
        self._loaded: TextEncoder | None = None

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        if self._loaded is None:
            self._loaded = load_encoder()
        return self._loaded.encode(texts, batch_size)


def profile_texts(profile: Profile) -> list[str]:
    """The texts the scorers embed for a profile: each line's query text and key phrases."""
    texts = []
    for line in profile.research_lines:
        texts.append(line_query_text(line))
        texts.extend(line.keywords)
    return texts


def sample_day_texts() -> list[str]:
    """What ranking the sample day for the example profile embeds (the demo's texts)."""
    texts = profile_texts(load_profile(EXAMPLE_PROFILE))
    texts += [paper_text(paper) for paper in load_snapshot(EXAMPLE_LISTING).papers]
    return list(dict.fromkeys(texts))


@cache
def sample_vectors() -> dict[str, np.ndarray]:
    """The committed vectors of ``sample_day_texts()`` by text hash (``DEFAULT_MODEL``)."""
    with np.load(SAMPLE_VECTORS) as data:
        assert str(data["model"]) == DEFAULT_MODEL, "rewrite: python -m tests.support.embedding"
        return dict(zip((str(h) for h in data["hashes"]), data["vectors"], strict=True))


class VectorCache:
    """An ``EmbeddingCache`` in memory, holding the committed vectors (and what is added)."""

    def __init__(self, vectors: dict[str, np.ndarray] | None = None) -> None:
        self._vectors = dict(sample_vectors() if vectors is None else vectors)

    def get(self, model: str, text_hashes: Iterable[str]) -> dict[str, np.ndarray]:
        if model != DEFAULT_MODEL:
            return {}
        return {h: self._vectors[h] for h in text_hashes if h in self._vectors}

    def put(self, model: str, vectors: dict[str, np.ndarray]) -> None:
        if model == DEFAULT_MODEL:
            self._vectors.update(vectors)


class VectorSeed:
    """The vectors of a profile's texts and some listings' papers, put into any store's
    cache (a test's fresh store then never asks the model). The committed vectors cover
    the sample day; only texts they lack are embedded, once."""

    def __init__(self, encoder: TextEncoder, profile: Profile, listings: list[Path]) -> None:
        self.model = profile.rank.embedding_model
        texts = profile_texts(profile)
        for listing in listings:
            texts.extend(paper_text(paper) for paper in load_snapshot(listing).papers)
        self._texts = list(dict.fromkeys(texts))
        self.encoder = encoder
        self._vectors: dict[str, np.ndarray] | None = None

    def vectors(self) -> dict[str, np.ndarray]:
        if self._vectors is None:
            embedder = Embedder(VectorCache(), self.model, encoder=self.encoder)
            embedded = embedder.embed(self._texts)
            self._vectors = {text_hash(t): v for t, v in zip(self._texts, embedded, strict=True)}
        return self._vectors

    def seed(self, store: Store) -> Store:
        store.embeddings.put(self.model, self.vectors())
        return store

    def seed_file(self, store_path: Path) -> None:
        with open_store(store_path) as store:
            self.seed(store)


def write_sample_vectors(encoder: TextEncoder | None = None) -> Path:
    """Embed ``sample_day_texts()`` with the model and commit them to ``SAMPLE_VECTORS``."""
    texts = sample_day_texts()
    vectors = Embedder(None, DEFAULT_MODEL, encoder=encoder).embed(texts)
    SAMPLE_VECTORS.parent.mkdir(parents=True, exist_ok=True)
    hashes = np.array([text_hash(text) for text in texts])
    np.savez_compressed(SAMPLE_VECTORS, model=DEFAULT_MODEL, hashes=hashes, vectors=vectors)
    return SAMPLE_VECTORS


if __name__ == "__main__":
    print(f"wrote {write_sample_vectors()}")


def unseen_listing(folder: Path) -> Path:
    """The pipeline's day (``tests/fixtures/pipeline``) with every title changed, written
    to ``folder``: none of its texts has a vector shipped with paperbrief (the sample day's
    are), so ranking it runs the model."""
    source = FIXTURES / "pipeline" / "2026-05-22.jsonl"
    items = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line]
    path = folder / "2026-05-22.jsonl"
    path.write_text(
        "".join(json.dumps({**i, "title": i["title"] + " (revised)"}) + "\n" for i in items),
        encoding="utf-8",
    )
    return path
