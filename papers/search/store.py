"""The search index of one app server: a directory that follows the database's change log.

Every process of an app server shares `settings.SEARCH_INDEX_DIR` (each app server has its
own); the database is the only source of truth. Before it answers, a process compares the
database's change counter (one query, `SearchChange.objects.position()`) with what its
searcher reflects, and brings the directory up to date when the database is ahead.

Layout of the directory:

    state.json        which generation is current and what it reflects: applied seq and its
                      token, schema version, database id. Rewritten (temporary file, fsync,
                      rename) only after the Tantivy commit it describes succeeded, so it never
                      claims more than the index holds; it may claim less (a writer killed
                      between the two), and re-applying a change is harmless: its documents are
                      deleted by id and added again from the database.
    writer.lock       flock held by the one process applying changes or publishing a
                      generation. Readers never take it: a searcher keeps reading the commit
                      it was opened on while a writer commits the next one.
    build.lock        flock held by the one process building a new generation.
    gen-<id>/         a complete Tantivy index. A rebuild writes a new one in tmp-<id>/,
                      renames it when complete, catches it up and then points state.json at
                      it, so no process ever opens a half-built index.
      in-use.lock     shared flock held by every process that has this generation open; a
                      generation is deleted only by whoever gets it exclusively (nobody uses
                      it) and finds that state.json names another one.

An index is rebuilt, never used, when state.json is missing or unreadable, the generation or
its meta.json is missing or Tantivy cannot open it, the schema version differs, it was built
from another database, the database's counter is lower than the applied seq (a restored
backup), the applied seq's token is not the database's (that bump was rolled back or replaced:
an index never keeps data that did not commit), or the changes after it were pruned.

The state file, that check against the change log and the chunked catch-up are
papers/derived_index.py's, shared with the vector index (semantic/index.py); this module adds
Tantivy's generations, their locks and builds, and what a chunk of changed papers does here.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import secrets
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, overload

import tantivy
from django.db import connections

from papers.derived_index import (
    WRITER_LOCK,
    DerivedIndex,
    LogState,
    fsync_directory,
)
from papers.models import Paper, SearchChange, SearchPosition
from papers.search import counting, schema
from papers.search.documents import paper_documents

logger = logging.getLogger(__name__)

STATE_FORMAT = 1
BUILD_LOCK = "build.lock"
IN_USE_LOCK = "in-use.lock"
GENERATION_PREFIX = "gen-"
BUILDING_PREFIX = "tmp-"
REBUILD_COMMAND = "python manage.py rebuild_search_index"

# Papers per delete-and-add round of a catch-up (documents.paper_documents reads them by
# chunks of its own).
APPLY_CHUNK = 2000
# A catch-up applies a few changes: one indexing thread, a small arena.
UPDATE_HEAP_BYTES = 32_000_000
# A full build: the arena is split between the threads (Tantivy wants >= 15 MB each).
BUILD_HEAP_BYTES = 256_000_000
BUILD_THREADS = max(1, min(4, os.cpu_count() or 1))
# Below this many papers a request that finds no usable index builds one itself (well under
# a second per 10,000 papers); above it the build runs in a background thread and requests
# get IndexUnavailable (503) until it is published.
INLINE_REBUILD_MAX_PAPERS = 20_000


class IndexUnavailable(Exception):
    """No usable search index right now. The page says so and names REBUILD_COMMAND."""

    command = REBUILD_COMMAND


@dataclass(frozen=True)
class IndexState(LogState):
    """The contents of state.json: the change it reflects, and which generation does."""

    generation: str
    schema_version: int

    def valid(self) -> bool:
        return (
            super().valid()
            and self.generation.startswith(GENERATION_PREFIX)
            and "/" not in self.generation
        )


@dataclass(frozen=True)
class BuildReport:
    papers: int
    seconds: float
    generation: str


class _Unusable(Exception):
    """The generation named by the state cannot be opened: rebuild."""


class _Retry(Exception):
    """The generation went away between reading the state and opening it: read it again."""


def _key(position: SearchPosition) -> tuple[int, int, str]:
    return (position.value, position.token, position.database_id)


def _usable(state: IndexState | None) -> IndexState:
    """`state`, once _rebuild_reason found no reason to rebuild (it gives one for no state)."""
    assert state is not None
    return state


class SearchIndex(DerivedIndex[IndexState]):
    """One process's view of one index directory; thread-safe, one per process and directory."""

    state_class = IndexState
    state_format = STATE_FORMAT
    chunk_size = APPLY_CHUNK

    def __init__(self, directory: Path | str):
        super().__init__(directory)
        self._lock = threading.RLock()
        self._index: tantivy.Index | None = None
        self._generation: str | None = None
        self._in_use_fd: int | None = None
        self._loaded: tuple[int, int, str] | None = None  # (seq, token, database id)
        self._searcher: tantivy.Searcher | None = None
        self._background: threading.Thread | None = None

    # --- Reading ---------------------------------------------------------------------------

    def catch_up(self) -> tantivy.Searcher:
        """A searcher reflecting every change committed before this call (in a request,
        before the request's first read: SearchChange.objects.request_position);
        IndexUnavailable."""
        position = SearchChange.objects.request_position()
        with self._lock:
            if self._searcher is not None and self._loaded == _key(position):
                return self._searcher
            try:
                return self._advance()
            except (OSError, ValueError) as exc:
                # An unwritable directory, a full disk, an index Tantivy refuses.
                logger.exception("Search index in %s is unusable", self.directory)
                raise IndexUnavailable(f"The search index cannot be used: {exc}") from exc

    searcher = catch_up

    @property
    def applied_seq(self) -> int | None:
        """The change seq this process's searcher reflects (None before the first use)."""
        return None if self._loaded is None else self._loaded[0]

    def _advance(self) -> tantivy.Searcher:
        for _attempt in range(5):
            state = self.read_state()
            position = SearchChange.objects.position()
            reason = self._rebuild_reason(state, position)
            if reason is None and not _usable(state).reflects(position):
                with self._flock(WRITER_LOCK):
                    # Another process may have done the work, or rebuilt, while we waited.
                    state, reason = self._catch_up_locked()
            if reason is not None:
                self._rebuild_for_request(reason)
                continue
            state = _usable(state)
            try:
                return self._load(state)
            except _Retry:
                continue
            except _Unusable as exc:
                self._rebuild_for_request(str(exc), broken=state.generation)
        raise IndexUnavailable("The search index kept changing while this process opened it.")

    def _unusable_reason(self, state: IndexState) -> str | None:
        if state.schema_version > schema.SCHEMA_VERSION:
            # Newer code published it (a deploy under way): rebuilding it back would make the
            # two versions take turns. This process is the one to restart.
            raise IndexUnavailable(
                f"The search index has schema version {state.schema_version}, newer than this "
                f"process's {schema.SCHEMA_VERSION}: restart it with the new code."
            )
        if state.schema_version != schema.SCHEMA_VERSION:
            return f"it was built for schema version {state.schema_version}"
        if not _has_index(self._path(state.generation)):
            return f"generation {state.generation} has no index files"
        return None

    def _load(self, state: IndexState) -> tantivy.Searcher:
        """Point this process's searcher at `state` (it may reflect more; never less)."""
        if self._index is None or self._generation != state.generation:
            index, fd = self._open_generation(state.generation)
            old_fd = self._in_use_fd
            self._index, self._generation, self._in_use_fd = index, state.generation, fd
            if old_fd is not None:
                os.close(old_fd)
                self._remove_unused_generations()
            logger.info("Search index: opened generation %s", state.generation)
        else:
            self._index.reload()
        self._loaded = (state.applied_seq, state.applied_token, state.database_id)
        # One searcher per loaded state, kept: the engine computes statistics of the catalogue
        # once per searcher (counting.catalogue_authors), which must describe the same snapshot.
        self._searcher = self._index.searcher()
        return self._searcher

    def _open_generation(self, generation: str) -> tuple[tantivy.Index, int]:
        path = self._path(generation)
        try:
            fd = os.open(path / IN_USE_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        except FileNotFoundError:
            raise _Retry from None
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:  # being deleted
            os.close(fd)
            raise _Retry from None
        try:
            if not _has_index(path):
                raise _Unusable(f"generation {generation} has no index files")
            try:
                index = _open_index(path)
            except (OSError, ValueError) as exc:
                raise _Unusable(f"generation {generation} cannot be opened: {exc}") from exc
        except BaseException:
            os.close(fd)
            raise
        return index, fd

    # --- Catching up -----------------------------------------------------------------------

    @contextlib.contextmanager
    def _changes(self, state: IndexState, count: int) -> Iterator[_DocumentChanges]:
        """One commit for the whole catch-up; the caller holds the writer lock."""
        if self._index is not None and self._generation == state.generation:
            index = self._index
        else:
            index = _open_index(self._path(state.generation))
        # A big batch (an import) gets the resources of a full build.
        big = count > APPLY_CHUNK
        heap, threads = (BUILD_HEAP_BYTES, BUILD_THREADS) if big else (UPDATE_HEAP_BYTES, 1)
        # The documents added name the popular authors the index already names, so that each
        # author stays on all of their papers in POPULAR_AUTHOR_IDS or on none.
        index.reload()
        popular = counting.indexed_popular_authors(index.searcher())
        with _writer(index, heap, threads) as writer:
            yield _DocumentChanges(writer, index.schema, popular)

    # --- Rebuilding ------------------------------------------------------------------------

    @overload
    def rebuild(
        self,
        *,
        only_if_needed: Literal[False] = False,
        broken: str | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> BuildReport: ...

    @overload
    def rebuild(
        self,
        *,
        only_if_needed: bool,
        broken: str | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> BuildReport | None: ...

    def rebuild(
        self,
        *,
        only_if_needed: bool = False,
        broken: str | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> BuildReport | None:
        """Build a new generation from the database and publish it; None if not needed.

        only_if_needed: unless another process has meanwhile published a usable generation
        (one other than `broken`, a generation found unusable).

        Holds the build lock throughout, the writer lock only to catch the new generation up
        with what changed during the build and to publish it: processes keep catching up and
        searching the current generation meanwhile.
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        with self._flock(BUILD_LOCK):
            if only_if_needed:
                state = self.read_state()
                reason = self._rebuild_reason(state, SearchChange.objects.position())
                if reason is None and _usable(state).generation != broken:
                    return None  # usable, or another process rebuilt it while we waited
            for leftover in self.directory.glob(f"{BUILDING_PREFIX}*"):
                shutil.rmtree(leftover, ignore_errors=True)  # a build that died
            for _attempt in range(3):
                report = self._build_and_publish(progress)
                if report is not None:
                    self.builds += 1
                    self._remove_unused_generations()
                    return report
        raise IndexUnavailable("The database changed in a way that kept invalidating the build.")

    def _build_and_publish(self, progress) -> BuildReport | None:
        started = time.perf_counter()
        # Read the counter first: every change up to it has committed, so the documents read
        # next reflect at least that much. Changes committed during the build are applied
        # after it (possibly again: that is harmless).
        position = SearchChange.objects.position()
        generation = _new_generation_name()
        building = self.directory / f"{BUILDING_PREFIX}{generation}"
        building.mkdir()
        # Hold this generation from its creation until state.json names it.
        fd = os.open(building / IN_USE_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            count = _build(building, progress)
            final = self._path(generation)
            os.rename(building, final)
            fsync_directory(self.directory)
            state = IndexState(
                generation=generation,
                schema_version=schema.SCHEMA_VERSION,
                database_id=position.database_id,
                applied_seq=position.value,
                applied_token=position.token,
            )
            with self._flock(WRITER_LOCK):
                latest = SearchChange.objects.position()
                if self._rebuild_reason(state, latest) is not None:
                    logger.warning("Search index: the database moved back during the build")
                    return None
                if not state.reflects(latest):
                    state = self._apply(state, latest)
                else:
                    self._write_state(state)
        finally:
            os.close(fd)
        seconds = time.perf_counter() - started
        logger.info("Search index: built %s, %d papers in %.1f s", generation, count, seconds)
        return BuildReport(papers=count, seconds=seconds, generation=generation)

    def _rebuild_for_request(self, reason: str, broken: str | None = None) -> None:
        """Rebuild now if the catalogue is small, else in the background and answer 503."""
        logger.warning("Search index in %s must be rebuilt: %s", self.directory, reason)
        if Paper.objects.count() <= INLINE_REBUILD_MAX_PAPERS:
            self.rebuild(only_if_needed=True, broken=broken)
            return
        if self._background is None or not self._background.is_alive():
            self._background = threading.Thread(
                target=self._rebuild_in_background,
                args=(broken,),
                name="search-index-build",
                daemon=True,
            )
            self._background.start()
        raise IndexUnavailable(
            f"The search index is being rebuilt ({reason}); this takes about a minute."
        )

    def _rebuild_in_background(self, broken: str | None) -> None:
        try:
            self.rebuild(only_if_needed=True, broken=broken)
        except Exception:
            logger.exception("Search index: the background rebuild failed")
        finally:
            connections.close_all()  # this thread's own connections

    def _remove_unused_generations(self) -> None:
        """Delete every generation that no process has open and state.json does not name."""
        for path in sorted(self.directory.glob(f"{GENERATION_PREFIX}*")):
            if path.name == self._generation:
                continue
            try:
                fd = os.open(path / IN_USE_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError:
                continue
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue  # some process still reads it
                # Read the state only now: a generation is published while its builder holds
                # it, so one we hold exclusively and state.json does not name is garbage.
                state = self.read_state()
                if state is None or state.generation != path.name:
                    shutil.rmtree(path, ignore_errors=True)
            finally:
                os.close(fd)

    # --- Files -----------------------------------------------------------------------------

    def _path(self, generation: str) -> Path:
        return self.directory / generation

    def close(self) -> None:
        """Let go of the open generation (tests; a process that is done searching)."""
        with self._lock:
            self._index = None
            self._searcher = None
            self._generation = None
            self._loaded = None
            if self._in_use_fd is not None:
                os.close(self._in_use_fd)
                self._in_use_fd = None


@dataclass
class _DocumentChanges:
    """What a chunk of changed papers does to the Tantivy index: their documents are deleted
    by id and added again from the database (a deleted paper's are not)."""

    writer: tantivy.IndexWriter
    fields: tantivy.Schema
    popular: frozenset[int]

    def apply(self, paper_ids: list[int]) -> None:
        # By query, not delete_documents_by_term: tantivy-py 0.27 turns a Python int into an
        # i64 term there, which matches nothing in our u64 id field.
        self.writer.delete_documents_by_query(
            tantivy.Query.term_set_query(self.fields, schema.ID, paper_ids)
        )
        for document in paper_documents(paper_ids, self.popular):
            self.writer.add_document(document)

    def finish(self, advanced: IndexState) -> IndexState:
        return advanced  # committed when the writer's block ends, before the state is written


def _new_generation_name() -> str:
    return f"{GENERATION_PREFIX}{time.strftime('%Y%m%d%H%M%S')}-{secrets.token_hex(4)}"


def _has_index(path: Path) -> bool:
    return (path / "meta.json").is_file()


def _open_index(path: Path) -> tantivy.Index:
    index = schema.open_index(str(path))
    # Reload only when told to: a process reloads when state.json says there is more.
    index.config_reader(reload_policy="manual")
    index.searcher()  # opens every segment now: a damaged one fails here, not in a search
    return index


@contextlib.contextmanager
def _writer(index: tantivy.Index, heap_bytes: int, threads: int) -> Iterator[tantivy.IndexWriter]:
    """A writer whose work is committed on success and rolled back on any error.

    Either way the writer is finished (wait_merging_threads) before the caller lets go of the
    writer lock, which releases Tantivy's own writer lock too: a failed writer kept alive by a
    traceback would otherwise block the next one.
    """
    writer = index.writer(heap_size=heap_bytes, num_threads=threads)
    try:
        yield writer
        writer.commit()
    except BaseException:
        with contextlib.suppress(Exception):
            writer.rollback()
        raise
    finally:
        with contextlib.suppress(Exception):
            writer.wait_merging_threads()


def _build(path: Path, progress: Callable[[int], None] | None) -> int:
    index = schema.create_index(str(path), reuse=False)
    count = 0
    with _writer(index, BUILD_HEAP_BYTES, BUILD_THREADS) as writer:
        for document in paper_documents():
            writer.add_document(document)
            count += 1
            if progress is not None and count % 10_000 == 0:
                progress(count)
    return count
