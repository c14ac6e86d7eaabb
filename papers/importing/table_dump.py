"""Reader for the Hugging Face dataset-viewer page copied as text (seed fixtures/000_*.txt).

Layout: header cells separated by "|", each cell's first line is the column name and the lines
after it a type annotation ("stringlengths" / "15" / "138"); a "|---|---|" separator line; then
one row per record, "cell | cell | ... |", where a cell (the abstract) may run over several
lines; the page ends with viewer text ("Subsets and Splits", ...) that is not data.

Columns are found by name, so dumps with another column order or extra columns parse too.

Splitting rows: cells are separated by " | " and a row ends at the first line ending in " |".
An abstract may itself contain " | "; extra separators are therefore given to the abstract
column, but only when every other cell then still looks right (URL columns hold URLs, no other
cell spans lines). A row that cannot be read that way has the wrong number of columns and fails
with its line number. (An abstract line that itself ends in " |" cannot be told from a row end;
such a row fails loudly rather than importing a wrong paper.)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator

from papers.importing.limits import RecordSize, numbered_lines
from papers.importing.records import ImportFailed, PaperRecord, record_from_mapping, short_list

SEPARATOR = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$")
CELL_SEPARATOR = " | "
FREE_TEXT_COLUMN = "abstract"
URL_COLUMNS = {"url", "detail_url", "forum_url", "pdf", "pdf_url"}
VIEWER_TEXT = (
    "Subsets and Splits",
    "No community queries yet",
    "The top public SQL queries",
)


def read(text: str, source: str) -> Iterator[PaperRecord]:
    return read_lines(numbered_lines(text), source)


def read_lines(lines: Iterable[tuple[int, str]], source: str) -> Iterator[PaperRecord]:
    """Records from the numbered lines of a table dump, a row at a time."""
    lines = iter(lines)
    # The header runs to the separator line; its size is bounded like a row's.
    header = RecordSize(source, "the header (up to the '|---|' line)")
    header_lines: list[str] = []
    for number, line in lines:
        if SEPARATOR.match(line):
            separator_line = number
            columns = _header_columns(header_lines, line, source)
            leading_bar = (header_lines[0] if header_lines else line).lstrip().startswith("|")
            break
        header.add(line)
        header_lines.append(line)
    else:
        raise ImportFailed(source, 1, "no '|---|---|' line after the header: not a table dump")
    del header_lines

    found = False
    row_lines: list[str] = []
    size = RecordSize(source, "this row")
    start = 0
    for number, line in lines:
        if not row_lines:
            if not line.strip():
                continue
            if line.strip().startswith(VIEWER_TEXT):
                break  # the viewer's own text: the data is over
            start = number
            size.start(start)
        size.add(line)
        row_lines.append(line)
        stripped = line.rstrip(" ")
        if stripped.endswith(" |") or stripped == "|":
            found = True
            yield _parse_row("\n".join(row_lines), columns, source, start, leading_bar)
            row_lines = []
    if row_lines:
        raise ImportFailed(
            source, start, "row never ends: its last line should end with ' |' (cut off?)"
        )
    if not found:
        raise ImportFailed(source, separator_line, "the table has no rows")


def _header_columns(header_lines: list[str], separator: str, source: str) -> list[str]:
    names = []
    for piece in "\n".join(header_lines).split("|"):
        first = next((line.strip() for line in piece.split("\n") if line.strip()), "")
        if first:
            names.append(re.sub(r"\s+", "_", first.casefold()))
    expected = separator.count("|") - 1
    line = len(header_lines) + 1
    if len(names) != expected:
        raise ImportFailed(
            source, line, f"header names {len(names)} columns but the separator has {expected}"
        )
    if FREE_TEXT_COLUMN not in names:
        raise ImportFailed(
            source, 1, f"the table has no 'abstract' column (columns: {short_list(names)})"
        )
    duplicates = sorted(name for name, count in Counter(names).items() if count > 1)
    if duplicates:
        raise ImportFailed(source, 1, f"column named twice in the header: {short_list(duplicates)}")
    return names


def _parse_row(
    body: str, columns: list[str], source: str, line: int, leading_bar: bool
) -> PaperRecord:
    body = body.rstrip(" ")[:-1]  # the row's closing "|"
    body = body.removesuffix(" ")
    if leading_bar:
        body = body.removeprefix("|").removeprefix(" ")
    split = body.split(CELL_SEPARATOR)
    cells = _join_free_text(split, columns) if len(split) > len(columns) else split
    if cells is None or len(cells) != len(columns):
        raise ImportFailed(
            source,
            line,
            f"row has {len(split)} columns, expected {len(columns)} ({', '.join(columns)}); "
            "cells are separated by ' | '",
        )
    return record_from_mapping(dict(zip(columns, cells, strict=True)), source=source, line=line)


def _join_free_text(cells: list[str], columns: list[str]) -> list[str] | None:
    """Give surplus " | " separators to the abstract if every other cell still fits."""
    at = columns.index(FREE_TEXT_COLUMN)
    surplus = len(cells) - len(columns)
    joined = cells[:at] + [CELL_SEPARATOR.join(cells[at : at + surplus + 1])]
    joined += cells[at + surplus + 1 :]
    for name, cell in zip(columns, joined, strict=True):
        if name == FREE_TEXT_COLUMN:
            continue
        if "\n" in cell:
            return None
        if name in URL_COLUMNS and cell.strip() and not re.match(r"https?://", cell.strip()):
            return None
    return joined
