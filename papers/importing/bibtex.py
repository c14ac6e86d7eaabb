r"""Reader for BibTeX files: Zotero, JabRef and Mendeley exports, and our own reading-list export.

Every entry is one paper, whatever its type; `@comment`, `@preamble` and text between entries are
not papers, and `@string` definitions are expanded where they are used (also inside `#`
concatenations), each one from where it is defined on, as BibTeX does. bibtexparser 2 splits the
file into entries and fields (with the line each starts on) and splits author lists into names;
pylatexenc, which it brings, decodes LaTeX.

Field by field:

- title, abstract: LaTeX decoded to Unicode (`{\"u}` -> ü, `\&` -> &, `{BERT}` -> BERT) with
  mathematics kept as written (`$\alpha$-VAE` stays) and TeX's ligatures (`--`, ``` `` ```) as
  typed, since our export and Zotero's write those as they are. The title becomes one line; the
  abstract keeps its paragraphs (blank lines) and joins the lines within each, as LaTeX does.
  Citations (`\cite{...}`, `~\citep[...]{...}`, `(\cite{...})`) are dropped with the space
  before them: there is no bibliography to point to.
- author: "von Last, Jr, First" and "First von Last" both become "First von Last Jr"; a name in
  braces (`{OpenAI}`) stays whole; "and others" is not a name.
- booktitle, else journal: the venue, the record's one tag. A well-known venue becomes its
  acronym and year ("Advances in Neural Information Processing Systems" of 2023 and
  "NeurIPS-2023" -> "NeurIPS 2023"), as the other sources name it; arXiv ("arXiv preprint
  arXiv:2301.01234", "CoRR", "ArXiv") is no venue, though it may give the arXiv id. Any other
  venue is kept as written (papers.venues.venue_from_reference).
- year, else date: the year as a number, from the first four digits.
- crossref: a paper without a venue or year of its own takes its @proceedings' (booktitle, else
  title; year), as BibTeX does. An @proceedings entry is a volume, never a paper.
- url: an OpenReview forum URL is the forum URL, an arXiv abs/pdf URL gives the arXiv id, a URL
  ending in .pdf (or OpenReview's /pdf?id=) is the PDF link, as is PMLR's `pdf` field; other
  URLs are not kept. `eprint`
  with `archiveprefix` (or biblatex's `eprinttype`) arXiv, or an arXiv DOI, gives the arXiv id.
- doi; keywords split on commas and semicolons.
- the entry type: the publication type (@article a journal article, @inproceedings a
  conference paper, @misc with an arXiv eprint a preprint, ...: papers.importing.
  publication_types.from_bibtex).

A value (or a name) whose LaTeX pylatexenc fails on (`\href{a}{b}` in a name) is kept as written,
noted among the record's cleanings (cleaning.converted): the rest of the file still imports.

A record's line is the line of its `@type{`. An entry bibtexparser cannot read, an `@string`
name that is not defined, a field we read that is given twice, a malformed name or LaTeX nested
deeper than latex_text.MAX_NESTING fails with ImportFailed at the line of the entry or of the field.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from urllib.parse import urlsplit

import bibtexparser
from bibtexparser.exceptions import BlockAbortedException, ParsingException
from bibtexparser.middlewares.names import (
    InvalidNameError,
    parse_single_name_into_parts,
    split_multiple_persons_names,
)
from bibtexparser.model import Block, Entry, Field, ParsingFailedBlock, String

from papers.importing.cleaning import converted
from papers.importing.latex_text import latex_to_text
from papers.importing.limits import RecordSize, numbered_lines
from papers.importing.publication_types import from_bibtex
from papers.importing.records import ImportFailed, PaperRecord
from papers.text import ARXIV_ID, MAX_ABSTRACT, MAX_AUTHOR_LIST, forum_id_from_url
from papers.venues import is_preprint_server, venue_from_reference

# looks_like reads no further than this into a file.
HEAD = 10_000

# Entry types of a whole volume rather than a paper: a Zotero or DBLP export brings the
# proceedings its papers' `crossref` names along with them.
VOLUME_TYPES = frozenset({"proceedings", "mvproceedings"})
# The longest a value may be once its @string names are expanded. Each @string may join two
# earlier ones, so 30 lines could otherwise double a value 30 times (BibTeX's billion laughs);
# an author list written with LaTeX accents ({\"u}, 5 characters a letter) stays well below it.
MAX_EXPANDED = 8 * MAX_AUTHOR_LIST
# The most characters other than whitespace a field we decode as LaTeX may have as written:
# decoding takes about 7 seconds a megabyte, and 20 characters a letter of the longest field's
# limit is far more than any real value (an accent, {\'{\i}}, is 8).
MAX_WRITTEN = 20 * MAX_ABSTRACT
_ENTRY_START = re.compile(r"@[A-Za-z]\w*[ \t]*[{(]")
_FIELDS_READ = frozenset(
    {
        "title",
        "author",
        "abstract",
        "booktitle",
        "journal",
        "year",
        "date",
        "url",
        "pdf",
        "doi",
        "eprint",
        "archiveprefix",
        "eprinttype",
        "keywords",
    }
)

_SPACES = re.compile(r"\s+")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_KEYWORD_SEPARATOR = re.compile(r"[,;]")
_LEADING_YEAR = re.compile(r"\s*(\d{4})(?!\d)")
# What follows `#` in a concatenation: a bare @string name or number.
_BARE_WORD = re.compile(r"[^\s#{}\",]+")
_BRACE = re.compile(r"(?<!\\)[{}]")
_PARENTHESES = re.compile(r"(?<!\\)[()]")
_BRACE_OR_QUOTE = re.compile(r"(?<!\\)[{}\"]")

_ARXIV_ID = f"({ARXIV_ID})"
_ARXIV_PATH = re.compile(rf"/(?:abs|pdf)/{_ARXIV_ID}(?:v\d+)?(?:\.pdf)?/?")
_ARXIV_EPRINT = re.compile(rf"(?:arxiv:)?{_ARXIV_ID}(?:v\d+)?", re.IGNORECASE)
_ARXIV_IN_VENUE = re.compile(rf"(?:arxiv:|abs/){_ARXIV_ID}(?:v\d+)?(?![\w.])", re.IGNORECASE)
_ARXIV_DOI = re.compile(rf"10\.48550/arxiv\.{_ARXIV_ID}(?:v\d+)?", re.IGNORECASE)


def looks_like(text: str) -> bool:
    """The first content that is neither blank nor a `%` comment line opens an entry."""
    for line in text[:HEAD].split("\n"):
        stripped = line.strip()
        if stripped and not stripped.startswith("%"):
            return _ENTRY_START.match(stripped) is not None
    return False


def measure_entries(lines: Iterable[tuple[int, str]], source: str) -> None:
    """Refuse an entry over IMPORT_MAX_RECORD_BYTES, before the text is parsed: bibtexparser
    takes the whole text (so that @string definitions and crossrefs reach every entry), and
    would hold the entry's fields whole. An entry runs from its `@type{` (or `@type(`) to the
    bracket that closes it, counted outside escapes; lines between entries are bounded each
    (formats.text_lines). A field that hides such a bracket only gains its file's bound."""
    size = RecordSize(source, "this entry")
    depth = 0
    brackets: re.Pattern[str] | None = None  # of the open entry
    for number, line in lines:
        text = line
        if brackets is None:
            start = _ENTRY_START.search(line)
            if start is None:
                continue
            brackets = _PARENTHESES if start.group().endswith("(") else _BRACE
            size.start(number)
            depth = 0
            text = line[start.end() - 1 :]
        size.add(line)
        for bracket in brackets.findall(text):
            depth += 1 if bracket in "{(" else -1
        if depth <= 0:
            brackets = None


def read(text: str, source: str) -> Iterator[PaperRecord]:
    measure_entries(numbered_lines(text), source)
    try:
        # No middleware: @string expansion and enclosing removal happen in _expand, the same
        # way for every entry (bibtexparser leaves the entries it flags as duplicates raw).
        library = bibtexparser.parse_string(text, parse_stack=[])
    except ParsingException as error:
        raise ImportFailed(source, None, f"the BibTeX parser failed: {error}") from None
    strings: dict[str, str] = {}
    found = False
    # A volume cited by its papers' `crossref` (BibTeX writes it after them): not a paper itself,
    # but where those papers' venue and year are.
    volumes = {
        block.key.lower(): block
        for block in library.blocks
        if isinstance(block, Entry) and block.entry_type.lower() in VOLUME_TYPES
    }
    for block in library.blocks:
        line = _line(block)
        if isinstance(block, ParsingFailedBlock):
            inner = block.ignore_error_block
            if not isinstance(inner, Entry | String):
                raise ImportFailed(source, line, _failure_message(block))
            # A repeated entry key or @string name is no obstacle: keys mean nothing here and
            # BibTeX lets a later @string replace an earlier one. Repeated fields are checked
            # in _fields, against the fields we read.
            block = inner
        if isinstance(block, String):
            try:
                strings[block.key.lower()] = _expand(block.value, strings)
            except ValueError as error:
                raise ImportFailed(source, line, f"@string {block.key}: {error}") from None
        elif isinstance(block, Entry) and block.entry_type.lower() not in VOLUME_TYPES:
            found = True
            yield _record(block, strings, source, volumes)
    if not found:
        raise ImportFailed(source, None, "no BibTeX entries in the file (such as '@article{')")


def _failure_message(block: ParsingFailedBlock) -> str:
    start = _ENTRY_START.match(block.raw or "")
    what = "this " + start.group().rstrip(" \t{(") + " entry" if start else "this entry"
    error = block.error
    reason = error.abort_reason if isinstance(error, BlockAbortedException) else str(error)
    return f"cannot read {what}: {reason.strip()}"


def _line(block: Block) -> int:
    """The line `block` starts on, counted from 1 (bibtexparser counts from 0)."""
    assert block.start_line is not None  # known for every block the parser read
    return block.start_line + 1


def _record(
    entry: Entry, strings: Mapping[str, str], source: str, volumes: Mapping[str, Entry]
) -> PaperRecord:
    line = _line(entry)
    fields = _fields(entry, source, line)
    notes: list[str] = []  # values kept as written (cleaning.converted)
    parent = _crossref(fields, volumes, source)
    # What the paper does not give itself it takes from its volume, as BibTeX does; the
    # volume's title is the paper's booktitle (biblatex's rule for @proceedings).
    inherited = (("booktitle", "booktitle"), ("booktitle", "title"), ("year", "year"))
    for name, parent_name in inherited:
        given = ("booktitle", "journal") if name == "booktitle" else ("year", "date")
        if parent_name in parent and not any(own in fields for own in given):
            fields[name] = parent[parent_name]

    def value(name: str) -> str:
        field = fields.get(name)
        if field is None:
            return ""
        try:
            expanded = _expand(field.value, strings)
            written = len(expanded) - sum(map(len, _SPACES.findall(expanded)))
            if written > MAX_WRITTEN:
                raise ValueError(
                    f"the value has {written} characters besides spaces as written; at most "
                    f"{MAX_WRITTEN} are read"
                )
            # url is verbatim in biblatex, and a LaTeX decoder would take its `%` for a comment.
            if name in ("url", "pdf"):
                return expanded.strip()
            return converted(expanded, latex_to_text, name, notes)
        except ValueError as error:
            raise ImportFailed(source, field.start_line + 1, f"{name}: {error}") from None

    try:
        authors = _authors(fields["author"].value, strings, notes) if "author" in fields else []
    except ValueError as error:
        raise ImportFailed(source, fields["author"].start_line + 1, f"author: {error}") from None
    # PMLR's own BibTeX gives the paper's PDF in `pdf` and its landing page in `url`.
    forum_url, pdf_url, url_arxiv_id = reference_links([value("url"), value("pdf")])
    doi = _one_line(value("doi"))
    eprint_arxiv_id = ""
    if "arxiv" in {value("archiveprefix").lower(), value("eprinttype").lower()}:
        eprint_arxiv_id = arxiv_id_from_eprint(value("eprint"))
    cited_venue = _one_line(value("booktitle") or value("journal"))
    year = year_from_date(value("year") or value("date"))
    venue = venue_from_reference(cited_venue, year)
    keywords = [_one_line(word) for word in _KEYWORD_SEPARATOR.split(value("keywords"))]
    arxiv_id = (
        eprint_arxiv_id
        or url_arxiv_id
        or arxiv_id_from_doi(doi)
        or arxiv_id_from_venue(cited_venue)
    )
    return PaperRecord(
        title=_one_line(value("title")),
        forum_id="",
        forum_url=forum_url,
        pdf_url=pdf_url,
        authors=authors,
        tags=[venue] if venue else [],
        abstract=_paragraphs(value("abstract")),
        source=source,
        line=line,
        keywords=[word for word in keywords if word],
        arxiv_id=arxiv_id,
        year=year,
        doi=doi,
        publication_type=from_bibtex(entry.entry_type, cited_venue, arxiv_id),
        cleaned=notes,
    )


def _crossref(
    fields: Mapping[str, Field], volumes: Mapping[str, Entry], source: str
) -> dict[str, Field]:
    """The fields of the @proceedings the entry's `crossref` names; {} without one. A key that
    names no volume in the file is no error: BibTeX only warns, and the volume may be in
    another file."""
    if "crossref" not in fields:
        return {}
    volume = volumes.get(fields["crossref"].value.strip('{}" ').lower())
    if volume is None:
        return {}
    return _fields(volume, source, _line(volume))


def _fields(entry: Entry, source: str, line: int) -> dict[str, Field]:
    """The entry's fields by lower-cased name (Zotero writes `archivePrefix`)."""
    fields: dict[str, Field] = {}
    for field in entry.fields:
        name = field.key.lower()
        if name in fields and name in _FIELDS_READ:
            raise ImportFailed(
                source,
                field.start_line + 1,
                f"the field {name!r} is given twice in this entry (first on line "
                f"{fields[name].start_line + 1}); which one is meant is unclear",
            )
        fields.setdefault(name, field)
    return fields


def _expand(raw: str, strings: Mapping[str, str]) -> str:
    """A field value as BibTeX reads it: `{...}` and `"..."` pieces, numbers and @string names,
    joined by `#`. Braces count as the splitter counts them, so an escaped one (`\\{`) does not."""
    parts: list[str] = []
    length = 0
    position = _skip_space(raw, 0)
    while True:
        if position == len(raw):
            raise ValueError("a value is missing (around '#')" if parts else "the value is empty")
        opening = raw[position]
        if opening in '{"':
            close = _closing(raw, position)
            parts.append(raw[position + 1 : close])
            position = close + 1
        else:
            word = _BARE_WORD.match(raw, position)
            if word is None:
                raise ValueError(f"unexpected {opening!r} in the value")
            name = word.group()
            if not name.isdigit() and name.lower() not in strings:
                raise ValueError(f"{name!r} is not a defined @string")
            parts.append(name if name.isdigit() else strings[name.lower()])
            position = word.end()
        length += len(parts[-1])
        if length > MAX_EXPANDED:
            raise ValueError(
                f"the value is longer than {MAX_EXPANDED} characters (@string names expanded)"
            )
        position = _skip_space(raw, position)
        if position == len(raw):
            return "".join(parts)
        if raw[position] != "#":
            raise ValueError(
                f"expected '#' between the parts of the value, found {raw[position]!r}"
            )
        position = _skip_space(raw, position + 1)


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _closing(raw: str, start: int) -> int:
    """Where the `{` or `"` at `start` is closed; a quote only closes outside braces."""
    depth = 0
    pattern = _BRACE if raw[start] == "{" else _BRACE_OR_QUOTE
    for mark in pattern.finditer(raw, start + 1):
        char = mark.group()
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == "}" and raw[start] == '"':
            raise ValueError("a '}' in the value closes a brace that was never opened")
        else:  # the closing brace, or a quote outside braces
            return mark.start()
    raise ValueError(f"the {raw[start]!r} opening the value is not closed")


def _authors(raw: str, strings: Mapping[str, str], notes: list[str]) -> list[str]:
    names = []
    for name in split_multiple_persons_names(_expand(raw, strings)):
        if name.strip() == "others":  # BibTeX's "et al."
            continue
        try:
            parts = parse_single_name_into_parts(name)
        except InvalidNameError as error:
            raise ValueError(f"cannot read the name {_shown(name)}: {error.reason}") from None
        full = _one_line(
            converted(parts.merge_first_name_first, latex_to_text, "author name", notes)
        )
        if full:
            names.append(full)
    return names


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _paragraphs(text: str) -> str:
    return "\n\n".join(
        _one_line(part) for part in _PARAGRAPH_BREAK.split(text.strip()) if part.strip()
    )


def _shown(text: str, limit: int = 60) -> str:
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def reference_links(urls: Iterable[str]) -> tuple[str, str, str]:
    """(forum URL, PDF URL, arXiv id) from a reference's URLs, "" for each that none gives.

    Shared with the RIS reader.
    """
    forum_url = pdf_url = arxiv_id = ""
    for url in urls:
        url = url.strip()
        try:
            parts = urlsplit(url)
            host = (parts.hostname or "").lower()
        except ValueError:  # e.g. an unclosed "[" of an IPv6 host
            continue
        openreview = host in ("openreview.net", "www.openreview.net")
        if openreview and parts.path == "/forum" and forum_id_from_url(url):
            forum_url = forum_url or url
        if host == "arxiv.org" or host.endswith(".arxiv.org"):
            match = _ARXIV_PATH.fullmatch(parts.path)
            if match:
                arxiv_id = arxiv_id or match.group(1)
        is_pdf = parts.path.lower().endswith(".pdf") or (openreview and parts.path == "/pdf")
        if is_pdf and parts.scheme.lower() in ("http", "https"):
            pdf_url = pdf_url or url
    return forum_url, pdf_url, arxiv_id


def arxiv_id_from_eprint(eprint: str) -> str:
    match = _ARXIV_EPRINT.fullmatch(eprint.strip())
    return match.group(1) if match else ""


def arxiv_id_from_doi(doi: str) -> str:
    """arXiv's own DOIs (10.48550/arXiv.2310.01234) name the preprint."""
    match = _ARXIV_DOI.fullmatch(doi.strip())
    return match.group(1) if match else ""


def arxiv_id_from_venue(cited: str) -> str:
    """Google Scholar cites a preprint as journal "arXiv preprint arXiv:2301.01234", DBLP as
    "CoRR abs/2301.01234": the id, when the venue is a preprint server's."""
    if not is_preprint_server(cited):
        return ""
    match = _ARXIV_IN_VENUE.search(cited)
    return match.group(1) if match else ""


def year_from_date(text: str) -> int | None:
    """2024 from "2024", "2024-05-07" or RIS's "2024/05/07/"; None without a leading year."""
    match = _LEADING_YEAR.match(text)
    return int(match.group(1)) if match else None
