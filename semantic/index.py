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
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import threading
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

# onnxruntime 1.32 segfaults on import when usearch 2.26 was imported before it (measured here,
# in the site's venv and in a clean one): the model's runtime is loaded first when installed.
with contextlib.suppress(ImportError):
    import onnxruntime  # noqa: F401

from usearch.index import Index  # noqa: E402

from papers.models import SearchChange, SearchPosition
from semantic.models import PaperEmbedding, vector_from_bytes

STATE_FILE = "state.json"
WRITER_LOCK = "writer.lock"
# Embeddings read per query while (re)building.
READ_CHUNK = 2000


@dataclass(frozen=True)
class VectorState:
    file: str
    model: str
    applied_seq: int
    applied_token: int
    database_id: str

    def reflects(self, position: SearchPosition) -> bool:
        return (self.applied_seq, self.applied_token, self.database_id) == (
            position.value,
            position.token,
            position.database_id,
        )


class VectorIndex:
    """One process's view of one vectors directory; thread-safe."""

    def __init__(self, directory: Path | str, model: str, dimensions: int):
        self.directory = Path(directory)
        self.model = model
        self.dimensions = dimensions
        self.pid = os.getpid()
        self._lock = threading.Lock()
        self._view: Index | None = None
        self._state: VectorState | None = None
        # What this instance did: tests check that a catch-up applies only what changed.
        self.vectors_applied = 0
        self.builds = 0

    def current(self) -> Index:
        """A read-only index reflecting every embedding committed before the call."""
        position = SearchChange.objects.position()
        with self._lock:
            if self._view is None or self._state is None or not self._state.reflects(position):
                self._state, self._view = self._catch_up()
            return self._view

    def _catch_up(self) -> tuple[VectorState, Index]:
        """The current state and a view of its file, mapped under the writer lock so that no
        writer removes the file first (once mapped, its pages outlive the removal)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        with _flock(self.directory / WRITER_LOCK):
            state = self._read_state()
            position = SearchChange.objects.position()
            if state is None or not state.reflects(position):
                state = self._write_caught_up(state, position)
            return state, _restore(self.directory / state.file, view=True)

    def _write_caught_up(self, state: VectorState | None, position: SearchPosition) -> VectorState:
        """Under the writer lock: a new file reflecting `position`, from `state`'s or anew."""
        changed: list[int] | None
        if state is None or not self._can_catch_up(state, position):
            index, changed = self._new_index(), None  # every stored vector
            self.builds += 1
        else:
            changed = SearchChange.objects.paper_ids_between(state.applied_seq, position.value)
            if not self._vectors_differ(state, changed):
                # Most changes are not to vectors (a lab tag, a venue): the file stays, and
                # only the position it reflects moves on.
                advanced = replace(state, applied_seq=position.value, applied_token=position.token)
                self._write_state(advanced)
                return advanced
            index = _restore(self.directory / state.file, view=False)
            index.remove(np.asarray(changed, dtype=np.uint64))
        self._add_embeddings(index, changed)
        new_state = VectorState(
            file=f"vectors-{secrets.token_hex(6)}.usearch",
            model=self.model,
            applied_seq=position.value,
            applied_token=position.token,
            database_id=position.database_id,
        )
        index.save(str(self.directory / new_state.file))
        self._write_state(new_state)
        self._remove_old_files(keep=new_state.file)
        return new_state

    def _vectors_differ(self, state: VectorState, paper_ids: list[int]) -> bool:
        """Whether the stored vectors of these papers differ from those in the state's file
        (one added, changed or deleted): read from the mapped file, one query for the rest."""
        if not paper_ids:
            return False
        stored = dict(
            PaperEmbedding.objects.filter(model=self.model, paper_id__in=paper_ids).values_list(
                "paper_id", "vector"
            )
        )
        view = _restore(self.directory / state.file, view=True)
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

    def _can_catch_up(self, state: VectorState, position: SearchPosition) -> bool:
        """False when the log cannot say what changed since the state: rebuild instead."""
        if state.model != self.model or state.database_id != position.database_id:
            return False
        if not (self.directory / state.file).exists() or position.value < state.applied_seq:
            return False
        if position.pruned_through and state.applied_seq <= position.pruned_through:
            return False
        if state.applied_seq == 0:
            return True
        # A token that differs: that change was rolled back or the database restored over it.
        return SearchChange.objects.token_at(state.applied_seq) == state.applied_token

    def _new_index(self) -> Index:
        return Index(ndim=self.dimensions, metric="cos", dtype="f16")

    def _add_embeddings(self, index: Index, paper_ids: list[int] | None) -> None:
        """Add the stored vectors of these papers (None: all) made by this index's model."""
        rows = PaperEmbedding.objects.filter(model=self.model).order_by("paper_id")
        if paper_ids is not None:
            rows = rows.filter(paper_id__in=paper_ids)
        keys: list[int] = []
        vectors: list[np.ndarray] = []
        for paper_id, vector in rows.values_list("paper_id", "vector").iterator(READ_CHUNK):
            keys.append(paper_id)
            vectors.append(vector_from_bytes(bytes(vector)))
        if keys:
            index.add(np.asarray(keys, dtype=np.uint64), np.vstack(vectors))
        self.vectors_applied += len(keys)

    def _read_state(self) -> VectorState | None:
        try:
            return VectorState(**json.loads((self.directory / STATE_FILE).read_text()))
        except (OSError, ValueError, TypeError):
            return None

    def _write_state(self, state: VectorState) -> None:
        temporary = self.directory / f"{STATE_FILE}.{os.getpid()}.tmp"
        with temporary.open("w") as file:
            json.dump(asdict(state), file)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self.directory / STATE_FILE)

    def _remove_old_files(self, keep: str) -> None:
        for path in self.directory.glob("vectors-*.usearch"):
            if path.name != keep:
                path.unlink(missing_ok=True)


def _f16(vector: bytes | memoryview) -> np.ndarray:
    return np.frombuffer(bytes(vector), dtype="<f2").astype(np.float16)


def _restore(path: Path, *, view: bool) -> Index:
    index = Index.restore(str(path), view=view)
    if index is None:
        raise FileNotFoundError(f"No vector index in {path}")
    return index


@contextlib.contextmanager
def _flock(path: Path):
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
