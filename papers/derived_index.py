"""The base of the indexes derived from the database: the Tantivy store (papers/search/store.py)
and the vector index (semantic/index.py).

Each lives in a directory of one app server and follows the search change log (SearchChange):
its state.json says which change it reflects (the seq, that bump's token, the database's id).
Written once here:

- the state file: read leniently (None when missing, unreadable or malformed: rebuild), written
  atomically (temporary file, fsync, rename), by the caller only once what it describes is
  durable, so it never claims more than the index holds;
- whether the change log can bring a state up to the database's position, or why the index
  must be rebuilt (another database, a counter moved back, a rolled-back bump, pruned changes);
- the catch-up: the changed papers' ids, read in one query, are applied in chunks of at most
  `chunk_size` ids, so that no query holds more variables than SQLite or PostgreSQL allow
  however many changes piled up (an unbounded `IN` past those limits failed every catch-up,
  turning the feature off until a rebuild);
- the file locks.

What a chunk of changed papers does to an index is the subclass's: `_changes()` gives a
ChangeWriter for one catch-up.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import logging
import os
import secrets
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import ClassVar, Generic, Protocol, Self, TypeVar

from papers.models import SearchChange, SearchPosition

logger = logging.getLogger(__name__)

STATE_FILE = "state.json"
WRITER_LOCK = "writer.lock"
# Changed papers per chunk of a catch-up: every query of a chunk stays far below SQLite's
# lowest variable limit (999) and PostgreSQL's 65,535 parameters.
CHANGE_CHUNK = 500


@dataclass(frozen=True)
class LogState:
    """What an index reflects of the change log; each index's state adds its own fields."""

    applied_seq: int
    applied_token: int
    database_id: str

    def reflects(self, position: SearchPosition) -> bool:
        return (self.applied_seq, self.applied_token, self.database_id) == (
            position.value,
            position.token,
            position.database_id,
        )

    def advanced(self, position: SearchPosition) -> Self:
        """This state, moved on to reflect `position` (same database)."""
        return replace(self, applied_seq=position.value, applied_token=position.token)

    def valid(self) -> bool:
        """Whether the values read from a state file have the types the fields say."""
        for field in fields(self):
            value = getattr(self, field.name)
            wanted = str if field.type in ("str", str) else int
            if not isinstance(value, wanted) or isinstance(value, bool):
                return False
        return True


State = TypeVar("State", bound=LogState)


class ChangeWriter(Protocol[State]):
    """One catch-up of an index: the chunks of changed papers, then the state to record."""

    def apply(self, paper_ids: list[int]) -> None:
        """Bring these papers' entries in line with the database (a deleted paper's go)."""

    def finish(self, advanced: State) -> State:
        """Make what was applied durable; the state to record (`advanced`, or one naming a
        new file)."""


def log_gap(state: LogState, position: SearchPosition) -> str | None:
    """Why the change log cannot bring `state` up to `position` (None: it can)."""
    if state.database_id != position.database_id:
        return "it was built from another database"
    if position.value < state.applied_seq:
        return (
            f"the database's change counter ({position.value}) is below the index's "
            f"({state.applied_seq}): a restored or rolled-back database"
        )
    if position.value == state.applied_seq:
        if position.token != state.applied_token:
            return f"change {state.applied_seq} was rolled back or replaced"
        return None
    if position.pruned_through and state.applied_seq <= position.pruned_through:
        return f"the changes after {state.applied_seq} were pruned"
    if state.applied_seq and SearchChange.objects.token_at(state.applied_seq) != (
        state.applied_token
    ):
        return f"change {state.applied_seq} was rolled back or replaced"
    return None


class DerivedIndex(ABC, Generic[State]):
    """One process's view of one directory holding an index derived from the database."""

    state_class: ClassVar[type]
    # Written into state.json: a state of another format is not read (rebuild).
    state_format: ClassVar[int]
    chunk_size: ClassVar[int] = CHANGE_CHUNK

    def __init__(self, directory: Path | str):
        self.directory = Path(directory)
        self.pid = os.getpid()
        # What this instance did: tests check that each change is applied once.
        self.papers_applied = 0
        self.builds = 0

    # --- What each index says --------------------------------------------------------------

    def _unusable_reason(self, state: State) -> str | None:
        """Why this index cannot use `state` whatever the log says (None: it can)."""
        return None

    @abstractmethod
    def _changes(
        self, state: State, count: int
    ) -> contextlib.AbstractContextManager[ChangeWriter[State]]:
        """A ChangeWriter for catching `state` up with `count` changed papers; leaving the
        context with an error discards what was applied. Each index says what its own is."""

    # --- Catching up -----------------------------------------------------------------------

    def _rebuild_reason(self, state: State | None, position: SearchPosition) -> str | None:
        """Why `state` cannot be caught up to `position` (None: it can)."""
        if state is None:
            return "there is no readable index state"
        return self._unusable_reason(state) or log_gap(state, position)

    def _catch_up_locked(self) -> tuple[State | None, str | None]:
        """Under the writer lock: the state brought up to the database's position, or the
        reason to rebuild."""
        state = self.read_state()
        position = SearchChange.objects.position()
        reason = self._rebuild_reason(state, position)
        if reason is None and state is not None and not state.reflects(position):
            state = self._apply(state, position)
        return state, reason

    def _apply(self, state: State, position: SearchPosition) -> State:
        """Apply the changes in (state, position] chunk by chunk, then write the state.

        The caller holds the writer lock and has checked that `state` can be caught up.
        """
        paper_ids = SearchChange.objects.paper_ids_between(state.applied_seq, position.value)
        with self._changes(state, len(paper_ids)) as writer:
            for start in range(0, len(paper_ids), self.chunk_size):
                writer.apply(paper_ids[start : start + self.chunk_size])
            new_state = writer.finish(state.advanced(position))
        self._write_state(new_state)
        self.papers_applied += len(paper_ids)
        return new_state

    # --- Files -----------------------------------------------------------------------------

    def read_state(self) -> State | None:
        """state.json, or None when it is missing, unreadable or of another format."""
        try:
            raw = json.loads((self.directory / STATE_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            logger.warning("%s: unreadable %s: %s", self.directory, STATE_FILE, exc)
            return None
        try:
            if raw.pop("format") != self.state_format:
                return None
            state = self.state_class(**raw)
            valid = state.valid()
        except (AttributeError, KeyError, TypeError):
            valid = False
        if not valid:
            logger.warning("%s: malformed %s", self.directory, STATE_FILE)
            return None
        return state

    def _write_state(self, state: State) -> None:
        target = self.directory / STATE_FILE
        temporary = self.directory / f".{STATE_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
        payload = json.dumps({"format": self.state_format, **asdict(state)}, indent=1)
        try:
            with open(temporary, "w", encoding="utf-8") as out:
                out.write(payload + "\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, target)
        except BaseException:
            with contextlib.suppress(OSError):
                temporary.unlink()
            raise
        fsync_directory(self.directory)

    @contextlib.contextmanager
    def _flock(self, name: str) -> Iterator[None]:
        """An exclusive flock on the file `name` of the directory, held for the block."""
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.directory / name, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # releases the lock


def fsync_directory(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    except OSError as exc:  # some filesystems cannot fsync a directory
        if exc.errno not in (errno.EINVAL, errno.ENOTSUP):
            raise
    finally:
        os.close(fd)
