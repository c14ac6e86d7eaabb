"""An export written whole before a byte of it is sent.

A file streamed as it is written cannot take back its "200 OK" when the writing fails or the
worker is stopped halfway: the client kept a cut-off file that looked complete. So the file
is written first, into a temporary file that moves from memory to disk past a few megabytes
(memory stays flat), and only a complete file is answered, with its Content-Length, so even a
connection that drops is seen to be short. Writing that outlasts EXPORT_TIME_LIMIT is
abandoned (`ExportTooSlow`) and the request answered with an error instead.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO

from annotations import exports
from annotations.export_data import Row

# Past this, the temporary file moves from memory to disk.
_IN_MEMORY_BYTES = 8 * 1024 * 1024


class ExportTooSlow(Exception):
    """The export did not finish within its time limit."""


@dataclass
class WrittenExport:
    file: IO[bytes]  # positioned at its start
    entries: int
    size: int


def write_export(
    extension: str,
    batches: Iterable[Sequence[Row]],
    *,
    list_columns: bool = False,
    time_limit: float | None = None,
) -> WrittenExport:
    """The export as a complete UTF-8 file. Raises ExportTooSlow once writing has taken more
    than `time_limit` seconds (checked between batches), leaving nothing behind."""
    fmt = exports.FORMATS[extension]
    deadline = None if time_limit is None else time.monotonic() + time_limit
    entries = 0

    def counted(batches: Iterable[Sequence[Row]]) -> Iterable[Sequence[Row]]:
        nonlocal entries
        for batch in batches:
            if deadline is not None and time.monotonic() > deadline:
                raise ExportTooSlow
            entries += len(batch)
            yield batch

    file = tempfile.SpooledTemporaryFile(max_size=_IN_MEMORY_BYTES)  # noqa: SIM115
    try:
        for piece in exports.stream(fmt, counted(batches), list_columns=list_columns):
            file.write(piece.encode())
    except BaseException:
        file.close()
        raise
    size = file.tell()
    file.seek(0)
    return WrittenExport(file, entries, size)
