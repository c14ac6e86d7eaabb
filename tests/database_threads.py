"""Threads that each open their own connection to the test database, as concurrent requests
or workers do: the `shared_database` fixture (tests/conftest.py) hands out a SharedDatabase.

PostgreSQL's test database is shared as it is. SQLite's lives in this process's memory, where
connections lock whole tables and fail rather than wait: `share()` copies it to a file, which
new connections open instead (with the site's settings: IMMEDIATE transactions and a busy
timeout, so writers queue as on a server). The test's own connection stays on the in-memory
copy, so results are read in a thread too (`read`).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.db import connection


class SharedDatabase:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.settings_dict = connection.settings_dict  # what every new connection is made from
        self.name = self.settings_dict["NAME"]

    def share(self) -> None:
        """Call it once the test's data is written: threads see that data from then on."""
        if connection.vendor != "sqlite":
            return
        connection.ensure_connection()
        copy = sqlite3.connect(self.folder / "threads.sqlite3")
        connection.connection.backup(copy)
        # In WAL mode before the threads open it: each connection's init_command asks for WAL,
        # and ten connections switching a rollback-journal file at once fail with "database
        # is locked" (seen once in CI); in WAL the switch is a no-op and readers never wait.
        copy.execute("PRAGMA journal_mode=WAL")
        copy.close()
        self.settings_dict["NAME"] = str(self.folder / "threads.sqlite3")

    def restore(self) -> None:
        self.settings_dict["NAME"] = self.name

    def at_once(self, works: list[Callable[[], Any]]) -> list[Any]:
        """Run each of `works` in a thread of its own, all released at the same moment; their
        results in order. An exception in any is raised here."""
        start = threading.Barrier(len(works))
        results: list[Any] = [None] * len(works)
        errors: list[BaseException] = []

        def run(index: int, work: Callable[[], Any]) -> None:
            try:
                start.wait()
                results[index] = work()
            except BaseException as error:  # noqa: BLE001 - raised again below
                errors.append(error)
            finally:
                connection.close()

        threads = [
            threading.Thread(target=run, args=(index, work)) for index, work in enumerate(works)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        if errors:
            raise errors[0]
        return results

    def read(self, work: Callable[[], Any]) -> Any:
        """`work()` run on a connection of the shared database; its result."""
        return self.at_once([work])[0]
