"""Reader for RIS files: Zotero, EndNote and Mendeley exports and publishers' downloads.

A record runs from a `TY  - ` line to an `ER  - ` line, and every line in it is `XX  - value`
(a capital letter and a capital or digit, two spaces, a dash, a space). Two kinds of value go on
over further lines: the free text of AB, N1 and N2, whose line breaks (a Zotero abstract's
paragraphs) are kept, and any value wrapped after WRAP_WIDTH characters as the 2001 spec allows,
whose pieces are joined back as they were. Any other line in a record is an error. Blank lines
are allowed anywhere, and so is text between records (publishers put a "Provider: ..." header
before the first), but not a line that looks like a tag: it would belong to a record whose `TY`
line is missing.

rispy is not used: it has no line numbers, silently drops a record without `ER`, takes a
malformed line for the previous value's continuation and joins lines with spaces; what would be
left of it, names for the dozen tags read here, is clearer as the tags themselves.

Field by field: title TI (or T1); authors AU and A1 in file order, "Last, First" and "Last,
First, Suffix" written "First Last Suffix", a name without a comma as it is; abstract AB (or N2);
venue T2, JF, JO or BT, the record's one tag, named as for BibTeX (a well-known venue by its
acronym and year, arXiv none); year from PY, Y1 or DA ("2024/05/07/");
links from UR and L1 (several may share a line, separated by ";") as for BibTeX: OpenReview
forum, arXiv id, PDF; doi DO; keywords one per KW line; the publication type from TY (JOUR a
journal article, CPAPER a conference paper, UNPB a preprint, ...: papers.importing.
publication_types.from_ris).

A record's line is the line of its `TY  - `.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from papers.importing.bibtex import (
    arxiv_id_from_doi,
    arxiv_id_from_venue,
    reference_links,
    year_from_date,
)
from papers.importing.limits import RecordSize, numbered_lines
from papers.importing.publication_types import from_ris
from papers.importing.records import ImportFailed, PaperRecord
from papers.venues import venue_from_reference

# looks_like reads no further than this into a file.
HEAD_LINES = 20
# Free text, where exporters keep the line breaks of a multi-paragraph abstract or note.
MULTILINE_TAGS = frozenset({"AB", "N1", "N2"})
# The 2001 RIS spec lets a value longer than this go on over the next line.
WRAP_WIDTH = 70

_TAG_LINE = re.compile(r"([A-Z][A-Z0-9])  -(?: (.*))?")
# A tag line with the spacing wrong ("TY - JOUR", "AU -Doe"): a mistake, not text.
_LOOSE_TAG_LINE = re.compile(r"[A-Z][A-Z0-9] *-( |$)")
_LINE_FORMAT = "'XX  - value' (a two-character tag, two spaces, a dash, a space)"


def looks_like(text: str) -> bool:
    """A `TY  - ` line among the first lines, after blank lines or a publisher's header."""
    return any(line.startswith("TY  - ") for line in text.split("\n", HEAD_LINES)[:HEAD_LINES])


def read(text: str, source: str) -> Iterator[PaperRecord]:
    return read_lines(numbered_lines(text), source)


def read_lines(lines: Iterable[tuple[int, str]], source: str) -> Iterator[PaperRecord]:
    """Records from the numbered lines of a RIS file, a record at a time."""
    found = False
    for line, tags in _records(lines, source):
        found = True
        yield _record(line, tags, source)
    if not found:
        raise ImportFailed(source, None, "no RIS records in the file (a record starts 'TY  - ')")


def _records(
    lines: Iterable[tuple[int, str]], source: str
) -> Iterator[tuple[int, list[tuple[str, str]]]]:
    """(line of `TY`, [(tag, value), ...] in file order) for each record."""
    start = 0  # line of the open record's TY, 0 between records
    tags: list[tuple[str, list[str]]] = []
    last_length = 0  # of the value's text on the line before
    size = RecordSize(source, "this record")
    for number, line in lines:
        if start:
            size.add(line)
        match = _TAG_LINE.fullmatch(line)
        if not start:
            if match and match.group(1) == "TY":
                start = number
                size.start(number)
                size.add(line)
                tags = [("TY", [match.group(2) or ""])]
            elif match or _LOOSE_TAG_LINE.match(line):
                raise ImportFailed(
                    source, number, f"{_shown(line)} is outside a record; records start 'TY  - '"
                )
            continue
        if match:
            tag, value = match.group(1), match.group(2) or ""
            if tag == "TY":
                raise ImportFailed(
                    source, number, f"a new record starts before the record of line {start} ends"
                )
            if tag == "ER":
                yield start, [(name, _joined(name, lines)) for name, lines in tags]
                start = 0
                continue
            tags.append((tag, [value]))
            last_length = len(value)
        elif not line.strip():
            if tags[-1][0] in MULTILINE_TAGS:
                tags[-1][1].append("")
            last_length = 0
        elif _LOOSE_TAG_LINE.match(line) or not (
            tags[-1][0] in MULTILINE_TAGS or last_length >= WRAP_WIDTH
        ):
            raise ImportFailed(
                source,
                number,
                f"expected {_LINE_FORMAT}, got {_shown(line)}; only AB, N1, N2 and values wrapped "
                f"after {WRAP_WIDTH} characters go on over several lines",
            )
        else:
            tags[-1][1].append(line)
            last_length = len(line)
    if start:
        raise ImportFailed(source, start, "the file ends before this record's 'ER  - ' line")


def _joined(tag: str, lines: list[str]) -> str:
    """A free-text value keeps its line breaks; any other was only wrapped to fit the line (the
    spec's "insert a carriage return/line feed at the end of 70 characters"), so the pieces are
    put back together as they were."""
    if tag in MULTILINE_TAGS:
        return "\n".join(line.rstrip() for line in lines).strip()
    return "".join(lines).strip()


def _record(line: int, tags: list[tuple[str, str]], source: str) -> PaperRecord:
    values: dict[str, list[str]] = {}
    for tag, value in tags:
        if value:
            values.setdefault(tag, []).append(value)

    def first(*names: str) -> str:
        """The first value of the first of these tags the record has: a repeated TI or PY is
        taken as written first."""
        return next((values[name][0] for name in names if name in values), "")

    authors = [value for tag, value in tags if tag in ("AU", "A1") and value]
    # L1 is the spec's "link to PDF"; a reference manager's local file there is no http(s)
    # URL, which reference_links ignores.
    urls = [
        url for tag in ("UR", "L1") for value in values.get(tag, []) for url in value.split(";")
    ]
    forum_url, pdf_url, arxiv_id = reference_links(urls)
    doi = first("DO")
    # T2 is Zotero's and the 2011 spec's; of the older tags, JF (the full journal name in the
    # 2001 spec) comes before JO, which exporters use for the full or the abbreviated name.
    cited_venue = _one_line(first("T2", "JF", "JO", "BT"))
    year = year_from_date(first("PY", "Y1", "DA"))
    venue = venue_from_reference(cited_venue, year)
    arxiv_id = arxiv_id or arxiv_id_from_doi(doi) or arxiv_id_from_venue(cited_venue)
    return PaperRecord(
        title=_one_line(first("TI", "T1")),
        forum_id="",
        forum_url=forum_url,
        pdf_url=pdf_url,
        authors=[_first_name_first(name) for name in authors],
        tags=[venue] if venue else [],
        abstract=first("AB", "N2"),
        source=source,
        line=line,
        keywords=[_one_line(word) for word in values.get("KW", [])],
        arxiv_id=arxiv_id,
        year=year,
        doi=doi,
        publication_type=from_ris(first("TY"), cited_venue, arxiv_id),
    )


def _first_name_first(name: str) -> str:
    """ "Vaswani, Ashish" -> "Ashish Vaswani"; "King, Martin Luther, Jr." -> "Martin Luther King
    Jr."; a name without a comma (an organisation) or with more than two is kept as written."""
    parts = [_one_line(part) for part in name.split(",")]
    if len(parts) not in (2, 3):
        return _one_line(name)
    last, first, *suffix = parts
    return " ".join(part for part in (first, last, *suffix) if part)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _shown(text: str, limit: int = 60) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."
