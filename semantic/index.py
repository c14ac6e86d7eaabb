"""The vector index of one app server: a usearch HNSW file beside the Tantivy index.

It lives in settings.SEARCH_INDEX_DIR/vectors/ and follows the same change log as the Tantivy
index (SearchChange): writing an embedding records its paper there (semantic.services), so a
vector computed on one server reaches every server's index. Each process memory-maps the
current file (`Index.restore(path, view=True)`): gunicorn workers share its pages.

    state.json           the current file and the change seq, token and database it reflects
    writer.lock          flock of the one process catching the file up
    vectors-<id>.usearch the index; a catch-up writes a new file and renames state.json over,
                         so a reader never sees a half-written one; older files are removed
                         by the writer (a process still mapping one keeps its pages).
    vectors-<id>.keys.npy, vectors-<id>.matrix.npy
                         the same vectors as a plain matrix, rows in paper id order: what an
                         exact scan of a few thousand papers reads (a search inside a filter,
                         Vectors.nearest_among); usearch 2.26's Python API has no filtered
                         search, and reading its vectors key by key costs 5 us each.

The state file, its check against the change log and the chunked catch-up are the derived
index base's (papers/derived_index.py), shared with the Tantivy index; this module adds the
file and what a chunk of changed papers does to it (_VectorChanges).
"""

from __future__ import annotations

import contextlib
import secrets
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

# onnxruntime 1.32 segfaults on import when usearch 2.26 was imported before it (measured here,
# in the site's venv and in a clean one): the model's runtime is loaded first when installed.
with contextlib.suppress(ImportError):
    import onnxruntime  # noqa: F401

from usearch.index import Index  # noqa: E402
from usearch.index import search as exact_search  # noqa: E402

from papers.derived_index import WRITER_LOCK, DerivedIndex, LogState  # noqa: E402
from papers.models import SearchChange  # noqa: E402
from semantic.models import PaperEmbedding, vector_from_bytes  # noqa: E402

STATE_FORMAT = 1
FILE_PREFIX = "vectors-"
INDEX_SUFFIX = ".usearch"
# Embeddings read per query while (re)building.
READ_CHUNK = 2000


@dataclass(frozen=True)
class VectorState(LogState):
    file: str
    model: str

    def valid(self) -> bool:
        return super().valid() and self.file.startswith(FILE_PREFIX) and "/" not in self.file


@dataclass(frozen=True)
class Vectors:
    """One file's vectors: the HNSW graph and the same vectors as a matrix, both mapped."""

    index: Index
    keys: np.ndarray  # uint64, ascending: the papers of the matrix's rows
    matrix: np.ndarray  # float16, one row per key

    def __len__(self) -> int:
        return len(self.keys)

    def nearest(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The k nearest papers of the whole index (HNSW, approximate), with their cosine."""
        if k <= 0 or not len(self.index):
            return []
        found = self.index.search(vector, min(k, len(self.index)))
        return _scored(found.keys, found.distances)

    def rows_of(self, ids: Sequence[int]) -> np.ndarray:
        """The vectors of these papers (each has one: ids the index returned), as float32."""
        wanted = np.asarray(ids, dtype=np.uint64)
        rows = np.searchsorted(self.keys, wanted)
        return np.asarray(self.matrix[rows], dtype=np.float32)

    def nearest_among(
        self, vector: np.ndarray, k: int, among: Iterable[int]
    ) -> list[tuple[int, float]]:
        """The k nearest of the papers `among` (those with a vector), exactly: every one of
        their rows is compared with `vector` (usearch's SIMD kernels, float16)."""
        wanted = np.unique(np.fromiter(among, dtype=np.uint64))
        rows = np.searchsorted(self.keys, wanted)
        inside = rows < len(self.keys)
        rows = rows[inside][self.keys[rows[inside]] == wanted[inside]]
        if k <= 0 or not len(rows):
            return []
        query = np.asarray(vector, dtype=np.float16)
        found = exact_search(
            self.matrix[rows], query, min(k, len(rows)), "cos", exact=True, threads=1
        )
        return _scored(self.keys[rows][found.keys.astype(np.int64)], found.distances)


def _scored(keys: Iterable, distances: Iterable) -> list[tuple[int, float]]:
    return [
        (int(key), round(1.0 - float(distance), 6))
        for key, distance in zip(keys, distances, strict=True)
    ]


class VectorIndex(DerivedIndex[VectorState]):
    """One process's view of one vectors directory; thread-safe."""

    state_class = VectorState
    state_format = STATE_FORMAT

    def __init__(self, directory: Path | str, model: str, dimensions: int):
        super().__init__(directory)
        self.model = model
        self.dimensions = dimensions
        self._lock = threading.Lock()
        self._view: Vectors | None = None
        self._state: VectorState | None = None
        # Vectors added to a file: tests check that a catch-up adds only what changed.
        self.vectors_applied = 0

    def current(self) -> Index:
        """A read-only index reflecting every embedding committed before the call."""
        return self.vectors().index

    def vectors(self) -> Vectors:
        """The index and matrix reflecting every embedding committed before the call (in a
        request, before its first read of the change log, which the search index shares:
        SearchChange.objects.request_position)."""
        position = SearchChange.objects.request_position()
        with self._lock:
            if self._view is None or self._state is None or not self._state.reflects(position):
                self._state, self._view = self._catch_up()
            return self._view

    def _catch_up(self) -> tuple[VectorState, Vectors]:
        """The current state and a view of its file, mapped under the writer lock so that no
        writer removes the file first (once mapped, its pages outlive the removal)."""
        with self._flock(WRITER_LOCK):
            state, reason = self._catch_up_locked()
            if state is None or reason is not None:
                state = self._build()
            path = self.directory / state.file
            keys, matrix = _load_rows(path)
            return state, Vectors(_restore(path, view=True), keys, matrix)

    def _unusable_reason(self, state: VectorState) -> str | None:
        if state.model != self.model:
            return f"it holds the vectors of {state.model}"
        for path in _files(self.directory / state.file):
            if not path.exists():
                return f"{path.name} is missing"
        return None

    @contextlib.contextmanager
    def _changes(self, state: VectorState, count: int) -> Iterator[_VectorChanges]:
        yield _VectorChanges(self, self.directory / state.file)

    def _build(self) -> VectorState:
        """Under the writer lock: a new file of every stored vector."""
        # The position first: the vectors read next reflect at least that much.
        position = SearchChange.objects.position()
        index = self._new_index()
        vectors = self._stored_vectors(None)
        self._add(index, vectors)
        self.builds += 1
        state = VectorState(
            applied_seq=position.value,
            applied_token=position.token,
            database_id=position.database_id,
            file=self._save(index, *_rows(vectors, self.dimensions)),
            model=self.model,
        )
        self._write_state(state)
        return state

    def _save(self, index: Index, keys: np.ndarray, matrix: np.ndarray) -> str:
        """Save `index` and its matrix as new files (a reader never sees them half-written:
        state.json names them once they are whole); the index's name."""
        name = f"{FILE_PREFIX}{secrets.token_hex(6)}{INDEX_SUFFIX}"
        index.save(str(self.directory / name))
        _, keys_path, matrix_path = _files(self.directory / name)
        np.save(keys_path, keys)
        np.save(matrix_path, matrix)
        return name

    def _new_index(self) -> Index:
        return Index(ndim=self.dimensions, metric="cos", dtype="f16")

    def _stored_vectors(self, paper_ids: list[int] | None) -> dict[int, bytes]:
        """The stored vectors of these papers (None: all) made by this index's model."""
        rows = PaperEmbedding.objects.filter(model=self.model).order_by("paper_id")
        if paper_ids is not None:
            rows = rows.filter(paper_id__in=paper_ids)
        return {
            paper_id: bytes(vector)
            for paper_id, vector in rows.values_list("paper_id", "vector").iterator(READ_CHUNK)
        }

    def _add(self, index: Index, vectors: dict[int, bytes]) -> None:
        if vectors:
            index.add(
                np.asarray(list(vectors), dtype=np.uint64),
                np.vstack([vector_from_bytes(vector) for vector in vectors.values()]),
            )
        self.vectors_applied += len(vectors)

    def _write_state(self, state: VectorState) -> None:
        super()._write_state(state)
        kept = {path.name for path in _files(self.directory / state.file)}
        for path in self.directory.glob(f"{FILE_PREFIX}*"):
            if path.name not in kept:
                path.unlink(missing_ok=True)


class _VectorChanges:
    """What a chunk of changed papers does to the vector file. Most changes are not to
    vectors (a lab tag, a venue): a chunk whose stored vectors all equal the file's is
    skipped, and when every chunk is, the file stays and only the position moves on. The
    others are applied to a copy in memory, saved as a new file at the end."""

    def __init__(self, owner: VectorIndex, path: Path):
        self.owner = owner
        self.path = path
        self.view = _restore(path, view=True)
        self.copy: Index | None = None
        # What the matrix loses and gains, applied to a copy of it at the end.
        self.removed: list[int] = []
        self.added: dict[int, bytes] = {}

    def apply(self, paper_ids: list[int]) -> None:
        stored = self.owner._stored_vectors(paper_ids)
        if not _differ(self.view, paper_ids, stored):
            return
        if self.copy is None:
            self.copy = _restore(self.path, view=False)
        self.copy.remove(np.asarray(paper_ids, dtype=np.uint64))
        self.owner._add(self.copy, stored)
        self.removed += paper_ids
        self.added |= stored

    def finish(self, advanced: VectorState) -> VectorState:
        if self.copy is None:
            return advanced
        keys, matrix = _load_rows(self.path)
        kept = ~np.isin(keys, np.asarray(self.removed, dtype=np.uint64))
        added_keys, added_rows = _rows(self.added, self.owner.dimensions)
        keys = np.concatenate([keys[kept], added_keys])
        matrix = np.concatenate([matrix[kept], added_rows])
        order = np.argsort(keys, kind="stable")
        return replace(advanced, file=self.owner._save(self.copy, keys[order], matrix[order]))


def _differ(view: Index, paper_ids: list[int], stored: dict[int, bytes]) -> bool:
    """Whether the stored vectors of these papers differ from those in the file (one added,
    changed or deleted)."""
    for paper_id in paper_ids:
        indexed = view.get(paper_id) if view.contains(paper_id) else None
        vector = stored.get(paper_id)
        if indexed is None or vector is None:
            if indexed is not None or vector is not None:
                return True
            continue
        # The file keeps float16, as the table does: equal vectors read back equal.
        if not np.array_equal(np.asarray(indexed, dtype=np.float16).ravel(), _f16(vector)):
            return True
    return False


def _f16(vector: bytes) -> np.ndarray:
    return np.frombuffer(vector, dtype="<f2").astype(np.float16)


def _files(index_path: Path) -> tuple[Path, Path, Path]:
    """An index file and its matrix's two files (keys, rows)."""
    stem = index_path.name.removesuffix(INDEX_SUFFIX)
    return (
        index_path,
        index_path.with_name(f"{stem}.keys.npy"),
        index_path.with_name(f"{stem}.matrix.npy"),
    )


def _rows(vectors: dict[int, bytes], dimensions: int) -> tuple[np.ndarray, np.ndarray]:
    """Stored vectors (float16 bytes by paper id) as keys and a matrix, in the dict's order."""
    keys = np.fromiter(vectors, dtype=np.uint64, count=len(vectors))
    matrix = np.frombuffer(b"".join(vectors.values()), dtype="<f2").astype(np.float16)
    return keys, matrix.reshape(len(vectors), dimensions)


def _load_rows(index_path: Path) -> tuple[np.ndarray, np.ndarray]:
    """The keys and matrix saved beside an index file, memory-mapped (workers share pages)."""
    _, keys_path, matrix_path = _files(index_path)
    return np.load(keys_path, mmap_mode="r"), np.load(matrix_path, mmap_mode="r")


def _restore(path: Path, *, view: bool) -> Index:
    index = Index.restore(str(path), view=view)
    if index is None:
        raise FileNotFoundError(f"No vector index in {path}")
    return index
