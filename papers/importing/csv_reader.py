"""Reader for CSV with a header row naming the same fields as the JSON lines format.

Cells are separated by commas, or by semicolons or tabs when the header is (Excel's CSV where
the decimal separator is a comma; tab-separated values as spreadsheets save them). Quoted
cells may span lines; a record's line is the line its row starts on. Authors and tags are
comma-separated strings (or a JSON list written into the cell); keywords too, or
semicolon-separated when the cell holds a ";" (records.split_list).
"""

from __future__ import annotations

import csv
import io
import itertools
from collections import Counter
from collections.abc import Iterable, Iterator

from papers.importing.limits import RecordSize, numbered_lines
from papers.importing.records import ImportFailed, PaperRecord, record_from_mapping, short_list

# Excel writes CSV with the list separator of the machine's locale: ";" where "," is the
# decimal comma (most of Europe); spreadsheets save tab-separated values (.tsv) too.
DELIMITERS = (",", ";", "\t")


def delimiter(first_line: str) -> str | None:
    """The delimiter under which the header line names an 'abstract' column among two or
    more, tried in DELIMITERS order; None if there is none."""
    for candidate in DELIMITERS:
        try:
            header = next(csv.reader(io.StringIO(first_line), delimiter=candidate))
        except (csv.Error, StopIteration):
            continue
        if len(header) >= 2 and "abstract" in {cell.strip().casefold() for cell in header}:
            return candidate
    return None


def read(text: str, source: str) -> Iterator[PaperRecord]:
    return read_lines(numbered_lines(text), source)


def read_lines(lines: Iterable[tuple[int, str]], source: str) -> Iterator[PaperRecord]:
    """Records from the numbered lines of a CSV file, read as the rows need them."""
    lines = iter(lines)
    first = next(lines, None)
    separator = (delimiter(first[1]) if first else None) or ","
    # A row can span lines inside quotes: its size is counted as the reader asks for them.
    size = RecordSize(source, "this row")
    rows = _measured(itertools.chain([first] if first else [], lines), size)
    reader = csv.reader(rows, delimiter=separator, strict=True)
    # The line the row being read starts on: a quote left open is reported where it opened,
    # not at the end of the file where the reader gives up.
    start = 1
    try:
        header = next(reader, None)
        if header is None:
            raise ImportFailed(source, None, "file is empty")
        names = [name.strip().casefold() for name in header]
        if "abstract" not in names:
            raise ImportFailed(
                source, 1, f"no 'abstract' column in the header (columns: {short_list(header)})"
            )
        # Counted once: names.count() per column is quadratic in a hostile header's width.
        repeated = sorted(name for name, n in Counter(names).items() if name and n > 1)
        if repeated:
            raise ImportFailed(
                source, 1, f"column {repeated[0]!r} appears more than once in the header"
            )
        found = False
        start = reader.line_num + 1
        size.start(start)
        for row in reader:
            line = start
            start = reader.line_num + 1
            size.start(start)
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(names):
                raise ImportFailed(
                    source, line, f"row has {len(row)} columns, the header has {len(names)}"
                )
            found = True
            yield record_from_mapping(dict(zip(names, row, strict=True)), source=source, line=line)
    except csv.Error as error:
        # Every csv.Error, including a cell over csv.field_size_limit(), is the file's fault.
        raise ImportFailed(source, start, f"malformed CSV: {error}") from None
    if not found:
        raise ImportFailed(source, None, "no data rows after the header")


def _measured(lines: Iterable[tuple[int, str]], size: RecordSize) -> Iterator[str]:
    for _, line in lines:
        size.add(line)
        yield line + "\n"
