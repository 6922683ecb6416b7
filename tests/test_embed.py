"""The bundled embedding model: unit rows, 128-token inputs, a checked model file, one cache
key per model (vectors of the two backends never mix)."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from paperbrief.cli import cli
from paperbrief.errors import EXIT_FALLBACKS, PaperbriefError
from paperbrief.install import reinstall_command
from paperbrief.labels import labels_for
from paperbrief.rank import embed
from paperbrief.rank.embed import (
    DEFAULT_MODEL,
    LONG_MODEL,
    TORCH_MODEL,
    Embedder,
    EmbeddingModelError,
    load_encoder,
)
from paperbrief.rank.text import text_hash
from paperbrief.store import open_store
from tests.support import EXAMPLE_PROFILE, ROOT
from tests.support.embedding import (
    SAMPLE_VECTORS,
    sample_day_texts,
    sample_vectors,
    unseen_listing,
)

SHIPPED = embed._model_file


def model_file_replaced_by(monkeypatch: pytest.MonkeyPatch, replacement: Path) -> None:
    """The package's model.onnx seen as ``replacement`` (the tokenizer stays the real one)."""
    monkeypatch.setattr(
        embed,
        "_model_file",
        lambda name: replacement if name == "model.onnx" else SHIPPED(name),
    )


def damaged_copy(folder: Path) -> Path:
    damaged = folder / "model.onnx"
    shutil.copy(SHIPPED("model.onnx"), damaged)
    with damaged.open("r+b") as file:
        file.seek(4096)
        file.write(b"\x00\x01\x02\x03")
    return damaged


def test_rows_are_unit_vectors_and_similar_texts_are_close(encoder):
    texts = [
        "Automated program repair with large language models",
        "LLM-based patch generation for fixing software bugs",
        "Galaxy cluster masses from weak gravitational lensing",
    ]
    vectors = Embedder(encoder=encoder).embed(texts)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3


def test_inputs_are_cut_at_128_tokens(encoder):
    head = " ".join(["software testing"] * 80)  # well over 128 word pieces
    same = encoder.encode([head + " galaxies", head + " proteins"], 16)
    assert float(same[0] @ same[1]) > 0.9999  # the tails are never read
    short = encoder.encode(["software testing galaxies", "software testing proteins"], 16)
    assert float(short[0] @ short[1]) < 0.99


def test_the_long_variant_reads_past_128_tokens(encoder):
    long = load_encoder(LONG_MODEL)
    head = " ".join(["software testing"] * 80)  # ~160 word pieces: past 128, within 256
    tails = long.encode([head + " galaxies", head + " proteins"], 16)
    assert float(tails[0] @ tails[1]) < 0.9999  # the tails are read
    short = ["Automated program repair with large language models"]
    assert np.allclose(long.encode(short, 1), encoder.encode(short, 1), atol=1e-5)


def test_the_committed_sample_day_vectors_are_the_models(encoder):
    """The vectors tests seed instead of embedding the sample day (tests/support/embedding.py)
    are the model's: every text they cover, a spread of them embedded again here."""
    texts = sample_day_texts()
    committed = sample_vectors()
    assert set(committed) == {text_hash(text) for text in texts}, "texts changed: rewrite them"
    spread = texts[:: len(texts) // 24]
    fresh = encoder.encode(spread, 4)
    again = np.stack([committed[text_hash(text)] for text in spread])
    assert np.allclose(fresh, again, atol=1e-5), f"{SAMPLE_VECTORS.name} is stale: rewrite it"


def test_batching_and_padding_do_not_change_vectors(encoder):
    texts = ["a", "program repair " * 30, "fault localization", "x " * 200]
    one_by_one = np.stack([encoder.encode([t], 1)[0] for t in texts])
    assert np.allclose(encoder.encode(texts, 64), one_by_one, atol=1e-5)


def test_the_shipped_model_is_the_built_one_with_its_licence_and_notice():
    assert embed._checked_onnx_model()  # size and sha256 as ONNX_SHA256 says
    for name in ("LICENSE", "NOTICE", "README.md", "tokenizer.json"):
        assert SHIPPED(name).is_file(), name
    assert "Apache License" in SHIPPED("LICENSE").read_text(encoding="utf-8")
    assert embed.ONNX_SHA256 in SHIPPED("README.md").read_text(encoding="utf-8")


def test_a_damaged_model_file_is_refused_with_the_installers_fix(tmp_path, monkeypatch):
    model_file_replaced_by(monkeypatch, damaged_copy(tmp_path))
    with pytest.raises(EmbeddingModelError, match="damaged") as caught:
        load_encoder()
    assert "reinstall paperbrief" in caught.value.hint
    assert "pip install --force-reinstall" in caught.value.hint  # this .venv is pip's


def test_a_fifo_or_a_truncated_file_in_its_place_is_refused_at_once(tmp_path, monkeypatch):
    fifo = tmp_path / "model.onnx"
    os.mkfifo(fifo)  # opening it would block forever
    model_file_replaced_by(monkeypatch, fifo)
    with pytest.raises(EmbeddingModelError, match="not a regular file"):
        load_encoder()
    short = tmp_path / "short.onnx"
    short.write_bytes(SHIPPED("model.onnx").read_bytes()[:1000])
    model_file_replaced_by(monkeypatch, short)
    with pytest.raises(EmbeddingModelError, match="wrong size"):
        load_encoder()


def test_without_a_loadable_model_the_day_is_ranked_lexically_exit_8_and_the_footer_says_so(
    tmp_path, monkeypatch, isolated_home
):
    """A damaged install costs the day nothing: the lexical scorers rank it, the digest
    says why, the run exits 8; the next run with the model mended ranks as usual."""
    listing = unseen_listing(tmp_path)
    args = ["run", "--listing", str(listing), "--profile", str(EXAMPLE_PROFILE), "--offline"]
    args += ["--out", str(tmp_path / "out")]
    model_file_replaced_by(monkeypatch, damaged_copy(tmp_path))
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == EXIT_FALLBACKS, result.output
    assert "fell back: embedding (model)" in result.output
    assert f"(hint: reinstall paperbrief: {reinstall_command()})" in result.output  # whole
    (markdown,) = (tmp_path / "out").glob("*.md")
    footer = labels_for("zh").fallback_embedding.split("（")[0]
    assert footer in markdown.read_text(encoding="utf-8")
    monkeypatch.setattr(embed, "_model_file", SHIPPED)
    mended = CliRunner().invoke(cli, [*args, "--force"])
    assert mended.exit_code == 0, mended.output
    assert footer not in markdown.read_text(encoding="utf-8")


BROKEN_RUNTIMES = {
    # a release whose native part fails as it is imported (an ABI break with numpy, say)
    "import": 'raise AttributeError("_ARRAY_API not found")\n',
    # a release that imports and makes sessions but fails on this graph when it runs
    "run": (
        "class SessionOptions:\n"
        "    log_severity_level = 0\n"
        "    def add_session_config_entry(self, key, value): pass\n"
        "class InferenceSession:\n"
        "    def __init__(self, model, options=None, providers=None): pass\n"
        "    def run(self, names, feeds):\n"
        "        raise RuntimeError('[ONNXRuntimeError] : 1 : FAIL : Non-zero status code')\n"
    ),
}


@pytest.mark.parametrize("breaks_at", sorted(BROKEN_RUNTIMES))
def test_a_new_onnxruntime_release_that_breaks_still_gives_a_lexical_digest(
    tmp_path, isolated_home, breaks_at
):
    """paperbrief pins no onnxruntime: a release that cannot run the model (staged as a
    package of that name, version 9.0.0, ahead of the real one on the path) costs the day
    nothing. The run exits 8 with the lexical digest and a hint that goes back one release."""
    shadow = tmp_path / "site"
    (shadow / "onnxruntime").mkdir(parents=True)
    (shadow / "onnxruntime" / "__init__.py").write_text(
        '__version__ = "9.0.0"\n' + BROKEN_RUNTIMES[breaks_at], encoding="utf-8"
    )
    info = shadow / "onnxruntime-9.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: onnxruntime\nVersion: 9.0.0\n", encoding="utf-8"
    )
    listing = unseen_listing(tmp_path)
    out = tmp_path / "out"
    command = [sys.executable, "-m", "paperbrief", "run", "--listing", str(listing)]
    command += ["--profile", str(EXAMPLE_PROFILE), "--offline", "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shadow), str(ROOT / "src")])}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == EXIT_FALLBACKS, done.stderr[-2000:]
    (line,) = [x for x in done.stderr.splitlines() if "fell back: embedding (model)" in x]
    assert ("onnxruntime 9.0.0 cannot run" if breaks_at == "run" else "AttributeError") in line
    assert "go back one:" in line and "'onnxruntime<9.0.0'" in line, line
    (markdown,) = out.glob("*.md")
    footer = labels_for("zh").fallback_embedding.split("（")[0]
    assert footer in markdown.read_text(encoding="utf-8")


def test_unknown_model_names_fail_with_the_bundled_names(tmp_path):
    with pytest.raises(PaperbriefError) as caught:
        load_encoder("bge-large")
    assert not isinstance(caught.value, EmbeddingModelError)  # no lexical fallback for a typo
    assert DEFAULT_MODEL in caught.value.hint and TORCH_MODEL in caught.value.hint


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="torch is installed")
def test_the_torch_model_without_the_extra_says_how_to_get_it():
    with pytest.raises(EmbeddingModelError) as caught:
        load_encoder(TORCH_MODEL)
    assert "make minilm" in caught.value.hint and DEFAULT_MODEL in caught.value.hint


def test_each_model_has_its_own_cache_key(tmp_path, encoder):
    text = "Automated program repair with large language models"
    with open_store(tmp_path / "paperbrief.db") as store:
        stale = np.zeros(384, dtype=np.float32)
        stale[0] = 1.0
        store.embeddings.put(TORCH_MODEL, {text_hash(text): stale})  # an old fp32 vector
        fresh = Embedder(store.embeddings, DEFAULT_MODEL, encoder=encoder).embed([text])[0]
        assert float(fresh @ stale) < 0.5  # the torch vector was not taken
        assert text_hash(text) in store.embeddings.get(DEFAULT_MODEL, [text_hash(text)])


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is None,
    reason="the optional torch extra is not installed (make minilm)",
)
def test_both_backends_agree(encoder):
    texts = [f"{t} for code generation" for t in ("Repair", "Testing", "Agents", "Benchmarks")]
    torch_vectors = load_encoder(TORCH_MODEL).encode(texts, 8)
    onnx_vectors = encoder.encode(texts, 8)
    assert np.all(np.sum(torch_vectors * onnx_vectors, axis=1) > 0.99)
    assert embed.MODELS.keys() == {DEFAULT_MODEL, LONG_MODEL, TORCH_MODEL}
