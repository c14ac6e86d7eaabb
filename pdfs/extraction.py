"""A PDF's text, page by page, read by pypdf in a child process with a time and memory limit.

A hostile or broken PDF (a decompression bomb, a cycle of objects, 300 pages of glyphs) can
make a reader run for minutes or take gigabytes; in a child process it is stopped at
PDF_TEXT_TIMEOUT seconds and PDF_TEXT_MEMORY_MB of address space (`resource.setrlimit` in the
child), and the worker that asked only sees a failure with its reason.

No Django here: the parent side (`extract_text`) takes bytes and limits, and the child runs
this module (`python -m pdfs.extraction MEMORY_MB MAX_CHARS`, the PDF on its standard input),
so the child imports nothing but the standard library and pypdf. Why pypdf rather than
pdfminer.six: docs/pdfs.md, "Text for search".
"""

from __future__ import annotations

import errno
import json
import re
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


def extract_text(data: bytes, *, timeout: float, memory_mb: int, max_chars: int) -> Extracted:
    """The text of the PDF `data`, at most `max_chars` characters (page breaks included)."""
    if b"%PDF-" not in data[:1024]:
        return Extracted(failure=Failure.NOT_A_PDF, message="the file does not start as a PDF")
    try:
        child = subprocess.run(
            [sys.executable, "-m", "pdfs.extraction", str(memory_mb), str(max_chars)],
            input=data,
            capture_output=True,
            timeout=timeout,
            cwd=_PROJECT,
            # Only what Python needs: the child has no business with the server's secrets.
            env={"PYTHONPATH": str(_PROJECT), "PYTHONIOENCODING": "utf-8"},
            check=False,
        )
    except subprocess.TimeoutExpired:  # subprocess.run has killed the child
        return Extracted(failure=Failure.TIME_LIMIT, message=f"no text within {timeout:g} s")
    if child.returncode == _OUT_OF_MEMORY or b"MemoryError" in child.stderr:
        return Extracted(
            failure=Failure.MEMORY_LIMIT, message=f"the reader needed more than {memory_mb} MB"
        )
    if child.returncode != 0:
        last = child.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
        return Extracted(
            failure=Failure.BROKEN, message=f"the reader stopped ({child.returncode}): {last[0]}"
        )
    try:
        answer = json.loads(child.stdout)
    except ValueError:  # not expected: the child prints one JSON line and nothing else
        return Extracted(failure=Failure.BROKEN, message="the reader's answer was unreadable")
    if "error" in answer:
        return Extracted(failure=Failure.BROKEN, message=answer["error"])
    return Extracted(
        pages=answer["pages"], page_count=answer["page_count"], truncated=answer["truncated"]
    )


_PROJECT = Path(__file__).resolve().parent.parent
_OUT_OF_MEMORY = 3

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


def _child(memory_mb: int, max_chars: int) -> int:
    """In the child: limit the address space, read the PDF from stdin, print JSON."""
    import io
    import resource

    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    try:
        import pypdf

        reader = pypdf.PdfReader(io.BytesIO(sys.stdin.buffer.read()))
        pages: list[str] = []
        used, truncated = 0, False
        page_count = len(reader.pages)
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


if __name__ == "__main__":
    sys.exit(_child(int(sys.argv[1]), int(sys.argv[2])))
