"""A PDF's text, page by page, read by pypdf in a child process with a time and memory limit.

A hostile or broken PDF (a decompression bomb, a cycle of objects, 10,000 pages of glyphs)
can make a reader run for minutes or take gigabytes; in a child process it is stopped at
PDF_TEXT_TIMEOUT seconds and PDF_TEXT_MEMORY_MB of address space (`resource.setrlimit` in the
child), and the worker that asked only sees a failure with its reason. The child counts the
pages first (no text read) and reads none past PDF_TEXT_MAX_PAGES: such a file is "too long
to index". `count_pages` runs only that count, for an upload's check.

The child runs in a process group of its own, killed whole at the time limit, and dies with
the worker that started it (see `_die_with_parent`): a killed worker leaves nothing reading.

No Django here: the parent side (`extract_text`) takes bytes and limits, and the child runs
this module (`python -m pdfs.extraction PARENT_PID MEMORY_MB SECONDS MAX_CHARS MAX_PAGES`,
the PDF on its standard input), so the child imports nothing but the standard library and
pypdf. Why pypdf rather than pdfminer.six: docs/pdfs.md, "Text for search".
"""

from __future__ import annotations

import errno
import json
import math
import os
import re
import signal
import subprocess
import sys
import unicodedata
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

# Pages are kept apart by a form feed, as pdftotext does: no page's text holds one.
PAGE_BREAK = "\f"


class Failure(StrEnum):
    """Why a stored PDF has no text (shown to curators in admin, never to members)."""

    NOT_A_PDF = "not a PDF"
    BROKEN = "broken PDF"
    TIME_LIMIT = "time limit"
    MEMORY_LIMIT = "memory limit"
    FILE_MISSING = "file missing"
    TOO_LONG = "too long to index"  # over PDF_TEXT_MAX_PAGES or PDF_TEXT_MAX_BYTES: not read


@dataclass(frozen=True)
class Extracted:
    pages: list[str] = field(default_factory=list)
    page_count: int = 0
    truncated: bool = False  # stopped at max_chars: the last pages are left out
    failure: Failure | None = None
    message: str = ""

    @property
    def text(self) -> str:
        return PAGE_BREAK.join(self.pages)


def extract_text(
    data: bytes, *, timeout: float, memory_mb: int, max_chars: int, max_pages: int
) -> Extracted:
    """The text of the PDF `data`, at most `max_chars` characters (page breaks included);
    none of a PDF of more than `max_pages` pages (Failure.TOO_LONG, its page count kept)."""
    answer = _run_child(data, timeout=timeout, memory_mb=memory_mb, limits=(max_chars, max_pages))
    if isinstance(answer, Extracted):
        return answer
    if answer.get("too_long"):
        count = answer["page_count"]
        return Extracted(
            page_count=count,
            failure=Failure.TOO_LONG,
            message=f"{count:,} pages, more than the limit of {max_pages:,}",
        )
    return Extracted(
        pages=answer["pages"], page_count=answer["page_count"], truncated=answer["truncated"]
    )


def count_pages(data: bytes, *, timeout: float, memory_mb: int) -> Extracted:
    """The page count of the PDF `data`, read in the child as extraction reads it, no text."""
    # No page may be read: the child answers with the count alone.
    answer = _run_child(data, timeout=timeout, memory_mb=memory_mb, limits=(0, 0))
    if isinstance(answer, Extracted):
        return answer
    return Extracted(page_count=answer["page_count"])


def _run_child(
    data: bytes, *, timeout: float, memory_mb: int, limits: tuple[int, int]
) -> dict | Extracted:
    """The child's JSON answer, or the failure that stopped it. `limits`: at most so many
    characters and pages read."""
    if b"%PDF-" not in data[:1024]:
        return Extracted(failure=Failure.NOT_A_PDF, message="the file does not start as a PDF")
    seconds = math.ceil(timeout)
    child = subprocess.Popen(
        [sys.executable, "-m", "pdfs.extraction", str(os.getpid()), str(memory_mb), str(seconds)]
        + [str(limit) for limit in limits],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=_PROJECT,
        # Only what Python needs: the child has no business with the server's secrets.
        env={"PYTHONPATH": str(_PROJECT), "PYTHONIOENCODING": "utf-8"},
        # Its own process group, so the time limit kills it and anything it started.
        start_new_session=True,
    )
    try:
        out, err = child.communicate(data, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(child)
        return Extracted(failure=Failure.TIME_LIMIT, message=f"no text within {timeout:g} s")
    except BaseException:  # interrupted (a worker's shutdown): the child goes first
        _kill_group(child)
        raise
    if child.returncode == _OUT_OF_MEMORY or b"MemoryError" in err:
        return Extracted(
            failure=Failure.MEMORY_LIMIT, message=f"the reader needed more than {memory_mb} MB"
        )
    if child.returncode == -signal.SIGXCPU:  # its own CPU limit, the guard behind the timeout
        return Extracted(failure=Failure.TIME_LIMIT, message=f"no text within {timeout:g} s")
    if child.returncode != 0:
        last = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return Extracted(
            failure=Failure.BROKEN, message=f"the reader stopped ({child.returncode}): {last[0]}"
        )
    try:
        answer = json.loads(out)
    except ValueError:  # not expected: the child prints one JSON line and nothing else
        return Extracted(failure=Failure.BROKEN, message="the reader's answer was unreadable")
    if "error" in answer:
        return Extracted(failure=Failure.BROKEN, message=answer["error"])
    return answer


def _kill_group(child: subprocess.Popen) -> None:
    """Kill the child's process group (its id is the child's: start_new_session) and reap
    the child."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except ProcessLookupError:  # gone already
        pass
    child.communicate()


_PROJECT = Path(__file__).resolve().parent.parent
_OUT_OF_MEMORY = 3
_PARENT_GONE = 4

# A word broken at a line's end by a hyphen, lower case on both sides ("classi-\nfication");
# "R-\nCNN" or "2-\n3" keep theirs.
_HYPHENATED = re.compile(r"(?<=[a-z])-\n(?=[a-z])")
# Control characters other than tab and newline (NUL cannot even be stored by PostgreSQL).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def normalise_page(text: str) -> str:
    """A page's text as search reads it: ligatures and other compatibility characters as
    their plain letters (NFKC: "ﬁ" is "fi", "ﬀ" "ff"), words a line break hyphenated joined
    again, control characters (page breaks among them) as spaces, no broken surrogates."""
    text = text.encode("utf-8", "replace").decode("utf-8")
    text = unicodedata.normalize("NFKC", text)
    text = _HYPHENATED.sub("", text)
    return _CONTROL.sub(" ", text).strip()


def _die_with_parent(parent_pid: int) -> None:
    """In the child, before any work: be killed when the worker that started it dies.

    The parent kills the child's process group at the time limit, but a parent killed
    outright (`kill -9`, the out-of-memory killer, a container stopped) kills nothing: its
    child was re-parented and read on for as long as its PDF took. Linux's PR_SET_PDEATHSIG
    has the kernel send SIGKILL when the parent goes, which the parent cannot forget; it is
    Linux only and covers this one process, so the group kill stays for the time limit (and
    the CPU limit below for other systems). The kernel watches the thread that started the
    child, which waits for it. A parent that died before the signal was set is seen by the
    parent id having changed.
    """
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent_pid:
        os._exit(_PARENT_GONE)


def _child(memory_mb: int, seconds: int, max_chars: int, max_pages: int) -> int:
    """In the child: limit the address space and CPU time, read the PDF from stdin, print
    JSON: the page count only when there are more than `max_pages`."""
    import io
    import resource

    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    # A bound of its own that needs no parent: the kernel stops it a second past the time
    # limit of CPU time (SIGXCPU), whoever is left to wait for it.
    resource.setrlimit(resource.RLIMIT_CPU, (seconds + 1, seconds + 2))
    try:
        import pypdf

        reader = pypdf.PdfReader(io.BytesIO(sys.stdin.buffer.read()))
        # Counted before any text is read. The count the file declares costs one object (0.4 s
        # for 10,000 pages on a loaded machine, where walking the page tree took 3.6 s): over
        # the limit, that is enough. A file that declares too few is caught by the walk.
        declared = _declared_page_count(reader)
        if 0 < max_pages < declared:
            print(json.dumps({"page_count": declared, "too_long": True}))
            return 0
        page_count = len(reader.pages)
        if page_count > max_pages:
            print(json.dumps({"page_count": page_count, "too_long": True}))
            return 0
        pages: list[str] = []
        used, truncated = 0, False
        for page in reader.pages:
            text = normalise_page(page.extract_text() or "")
            room = max_chars - used - (len(PAGE_BREAK) if pages else 0)
            if len(text) > room:
                if room > 0:
                    pages.append(text[:room])
                truncated = True
                break
            used += len(text) + (len(PAGE_BREAK) if pages else 0)
            pages.append(text)
    except MemoryError:
        return _OUT_OF_MEMORY
    except Exception as error:  # noqa: BLE001  (any reader error is a broken file, reported)
        # Past the limit the kernel refuses mappings too: reading a module or a file then
        # fails with ENOMEM rather than MemoryError (seen importing pypdf from a fresh venv).
        if isinstance(error, OSError) and error.errno == errno.ENOMEM:
            return _OUT_OF_MEMORY
        message = f"{type(error).__name__}: {error}"[:500]
        print(json.dumps({"error": message}))
        return 0
    out = {"pages": pages, "page_count": page_count, "truncated": truncated}
    print(json.dumps(out))
    return 0


def _declared_page_count(reader) -> int:
    """The page tree's /Count, or 0 when it has none that is a number."""
    try:
        count = reader.trailer["/Root"]["/Pages"]["/Count"]
    except Exception:  # noqa: BLE001  (any malformed tree: the walk will tell)
        return 0
    return count if isinstance(count, int) else 0


if __name__ == "__main__":
    _die_with_parent(int(sys.argv[1]))
    sys.exit(_child(*(int(argument) for argument in sys.argv[2:6])))
