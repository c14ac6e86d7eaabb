"""Reader for an abstract-only list (seed fixtures/001_*.txt).

The first non-blank line is a heading naming the venue ("ICLR 2024 Papers" -> venue tag
"ICLR 2024"); after it come abstracts as paragraphs separated by blank lines. A paragraph's
lines are kept exactly as written (joined with "\\n"). Nothing else is known about these papers:
they get no invented title and are flagged for curation by the loader.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from papers.importing.limits import RecordSize, numbered_lines
from papers.importing.records import ImportFailed, PaperRecord
from papers.importing.tags import venue_from_heading

MAX_HEADING = 200


def _paragraphs(
    lines: Iterable[tuple[int, str]], size: RecordSize | None = None
) -> Iterator[tuple[int, str]]:
    """(first line number, paragraph text) for each run of non-blank lines, each measured by
    `size` as it grows."""
    current: list[str] = []
    start = 0
    for number, line in lines:
        if line.strip():
            if not current:
                start = number
                if size:
                    size.start(number)
            if size:
                size.add(line)
            current.append(line)
        elif current:
            yield start, "\n".join(current)
            current = []
    if current:
        yield start, "\n".join(current)


def looks_like(text: str) -> bool:
    paragraphs = _paragraphs(numbered_lines(text))
    heading = next(paragraphs, None)
    return (
        heading is not None
        and "\n" not in heading[1]
        and len(heading[1].strip()) <= MAX_HEADING
        and next(paragraphs, None) is not None
    )


def read(text: str, source: str) -> Iterator[PaperRecord]:
    return read_lines(numbered_lines(text), source)


def read_lines(lines: Iterable[tuple[int, str]], source: str) -> Iterator[PaperRecord]:
    """Records from the numbered lines of an abstract list, a paragraph at a time."""
    paragraphs = _paragraphs(lines, RecordSize(source, "this paragraph"))
    first = next(paragraphs, None)
    if first is None:
        raise ImportFailed(source, None, "file is empty")
    line, heading = first
    if "\n" in heading or len(heading.strip()) > MAX_HEADING:
        raise ImportFailed(
            source,
            line,
            "expected a one-line heading such as 'ICLR 2024 Papers' followed by a blank line",
        )
    venue = venue_from_heading(heading)
    tags = [venue] if venue else []
    found = False
    for line, paragraph in paragraphs:
        found = True
        yield PaperRecord(
            title="",
            forum_id="",
            forum_url="",
            pdf_url="",
            authors=[],
            tags=tags,
            abstract=paragraph,
            source=source,
            line=line,
        )
    if not found:
        raise ImportFailed(source, line, "no abstracts after the heading")
