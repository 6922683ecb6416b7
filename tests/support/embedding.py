"""One embedding model per test session, and stores seeded with its vectors.

Loading the bundled model costs seconds; tests share one ``SharedEncoder`` (loaded on its
first use) through ``Services.build(..., encoder=...)``, and tests that go through the CLI
(which builds its own services) get a data home whose vector cache already holds the
fixture listing and the example profile, so the CLI never has to load the model.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from paperbrief.profile import Profile
from paperbrief.rank.embed import Embedder, TextEncoder, load_encoder
from paperbrief.rank.scorers import line_query_text
from paperbrief.rank.text import paper_text, text_hash
from paperbrief.sources import load_snapshot
from paperbrief.store import Store, open_store


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


class VectorSeed:
    """The vectors of a profile's texts and some listings' papers, computed once and put
    into any store's cache (a test's fresh store then never asks the model)."""

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
            embedded = Embedder(None, self.model, encoder=self.encoder).embed(self._texts)
            self._vectors = {text_hash(t): v for t, v in zip(self._texts, embedded, strict=True)}
        return self._vectors

    def seed(self, store: Store) -> Store:
        store.embeddings.put(self.model, self.vectors())
        return store

    def seed_file(self, store_path: Path) -> None:
        with open_store(store_path) as store:
            self.seed(store)
