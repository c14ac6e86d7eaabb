"""Reader for arXiv API responses: the Atom 1.0 feed of `export.arxiv.org/api/query?...`.

Per `<entry>` (arXiv API User's Manual, sections 3.3.2 and 3.4):

- `<id>` is the abstract URL; its path gives `arxiv_id` without the version
  ("http://arxiv.org/abs/2310.01234v2" -> "2310.01234", ".../abs/hep-th/9901001v1" ->
  "hep-th/9901001"). An id that is no arXiv abstract URL fails: the file is not an arXiv feed.
- `<title>` and `<summary>` have every whitespace run collapsed to one space (arXiv wraps them at
  about 80 columns); LaTeX and Unicode are kept as given.
- `<author><name>` in order; `<arxiv:affiliation>` is ignored.
- `<link rel="alternate">` is the abstract page (`forum_url`), the link titled "pdf" (or typed
  application/pdf) the PDF; both are made https and keep the version arXiv gave. `forum_id`
  stays "": arXiv is not OpenReview.
- `<published>` (the first version's date) gives `year`; a value that is no ISO date fails.
- `<arxiv:primary_category>` gives `primary_area`; it and every `<category>` term, without
  repeats, give `keywords` (the primary one first).
- `<arxiv:doi>` gives `doi`. `<arxiv:journal_ref>` is free text, usually a citation
  ("Eur.Phys.J. C31 (2003) 17-29"); it becomes the venue tag only when it is nothing but an
  acronym and a year ("ICLR 2024", "NeurIPS, 2023" -> "NeurIPS 2023"). Anything else leaves
  `tags` empty rather than inventing a venue from a journal volume.

For fetching (papers.sources.arxiv_api), `read_page` gives each record with what arXiv adds:
the version of its `<id>`, `<published>` (the first version's submission) and `<updated>` (this
version's) as dates, and the feed's `<opensearch:totalResults>`; a page without entries is no
error there, since paging past the last result gives one, and an entry that cannot be read can
be left out (`skip`) rather than fail the page.

The entry arXiv returns for a bad query (id "http://arxiv.org/api/errors#...") fails with its
summary as the message. A feed without entries fails too ("no entries in the feed"), as an empty
JSON file does: a query that matched nothing is a mistake worth reporting, not a silent no-op.

Each record's `line` is the line of its `<entry>` start tag. Parsing is expat, fed in chunks, so
records come out as the text is read and only the current entry is held: an entry (or anything
else between two entries) over IMPORT_MAX_RECORD_BYTES fails once that much of it is read. Any
DTD is refused the moment `<!DOCTYPE` is seen, before an entity can be declared, let alone
expanded (billion laughs, external entities); arXiv never sends one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from xml.parsers import expat

from papers.choices import PublicationType
from papers.importing import limits
from papers.importing.records import ImportFailed, PaperRecord
from papers.importing.safe_json import skip_space
from papers.text import collapse_whitespace, utf8_size

ATOM = "http://www.w3.org/2005/Atom"
ARXIV = "http://arxiv.org/schemas/atom"
OPENSEARCH = "http://a9.com/-/spec/opensearch/1.1/"

# expat joins namespace and local name with this; a namespace URI cannot contain a space.
_SEPARATOR = " "
FEED = f"{ATOM} feed"
ENTRY = f"{ATOM} entry"
AUTHOR = f"{ATOM} author"
NAME = f"{ATOM} name"
LINK = f"{ATOM} link"
CATEGORY = f"{ATOM} category"
PRIMARY_CATEGORY = f"{ARXIV} primary_category"
TOTAL_RESULTS = f"{OPENSEARCH} totalResults"
# Child elements of an entry whose text is kept, by the key it is kept under.
_TEXT_FIELDS = {
    f"{ATOM} id": "id",
    f"{ATOM} title": "title",
    f"{ATOM} summary": "summary",
    f"{ATOM} published": "published",
    f"{ATOM} updated": "updated",
    f"{ARXIV} doi": "doi",
    f"{ARXIV} journal_ref": "journal_ref",
}

# Characters handed to expat at a time: records are yielded between chunks.
_CHUNK = 1 << 16
# How much of the text looks_like examines; a real feed's <feed> tag follows the declaration.
_PROBE = 4096

_ABS_URL = re.compile(
    r"https?://(?:www\.|export\.)?arxiv\.org/abs/"
    r"(?P<id>\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v(?P<version>\d+))?"
)
_ERROR_URL = re.compile(r"https?://(?:www\.|export\.)?arxiv\.org/api/errors\b")
_DATE = re.compile(r"(?P<year>\d{4})-(?P<month>\d\d)-(?P<day>\d\d)(?!\d)")
# An acronym with at least two capitals ("ICLR", "NeurIPS", "ACL") and a year, nothing else:
# the journal_ref forms that name a conference the way the other sources' venue tags do. The
# letters split one way only, so a long hostile value cannot make the match backtrack.
_VENUE = re.compile(r"(?P<venue>[A-Z][a-z]*[A-Z][A-Za-z]*) ?,? ?(?P<year>19[5-9]\d|20\d\d)")

_FEED_TAG = re.compile(r"<(?:(?P<prefix>[A-Za-z_][\w.\-]*):)?feed(?=[\s/>])")
_NAMESPACE_DECLARATION = re.compile(
    r"""\sxmlns(?::(?P<prefix>[A-Za-z_][\w.\-]*))?\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)')"""
)


def looks_like(text: str) -> bool:
    """An Atom <feed> start tag, after only an XML declaration (or other processing
    instructions), comments and whitespace."""
    head = text[:_PROBE]
    position = skip_space(head, 1 if head.startswith("\ufeff") else 0)
    while head.startswith(("<?", "<!--"), position):
        closing = "?>" if head.startswith("<?", position) else "-->"
        end = head.find(closing, position + 2)
        if end == -1:
            return False
        position = skip_space(head, end + len(closing))
    tag = _FEED_TAG.match(head, position)
    if tag is None:
        return False
    end = head.find(">", tag.end())
    if end == -1:
        return False
    for declaration in _NAMESPACE_DECLARATION.finditer(head, tag.end(), end):
        if declaration["prefix"] == tag["prefix"]:
            uri = declaration["dq"] if declaration["dq"] is not None else declaration["sq"]
            return uri == ATOM
    return False


def is_error_answer(text: str) -> bool:
    """Whether an API answer holds arXiv's error entry (e.g. for an id it does not know)."""
    return _ERROR_URL.search(text) is not None


def read(text: str, source: str) -> Iterator[PaperRecord]:
    return read_pieces(_pieces(text), source)


def _pieces(text: str) -> Iterator[str]:
    return (text[start : start + _CHUNK] for start in range(0, len(text), _CHUNK))


@dataclass(frozen=True)
class ArxivEntry:
    """One entry's record with what arXiv says of its version."""

    record: PaperRecord
    version: int | None  # the "2" of ".../abs/2310.01234v2"; None when the id has none
    published: date | None  # the first version's submission
    updated: date | None  # this version's


@dataclass(frozen=True)
class FeedPage:
    entries: list[ArxivEntry]
    total_results: int | None  # <opensearch:totalResults>: the query's matches, all pages


class ArxivErrorEntry(ImportFailed):
    """arXiv's answer to a query it refuses: an entry saying what is wrong with the query."""


def read_page(
    text: str, source: str, *, skip: Callable[[ImportFailed], None] | None = None
) -> FeedPage:
    """One response of the API: every entry (none is no error) and the query's total.

    With `skip` (a fetch, which keeps what it can of a page), an entry that cannot be read
    (an id that is no arXiv abstract URL, a date that is no date) is handed to it and left
    out; arXiv's error entry, and XML that is not well formed, still fail the page."""
    feed = _Feed(source, skip)
    for piece in _pieces(text):
        feed.parse(piece)
    feed.parse("", final=True)
    return FeedPage(feed.take_entries(), feed.total_results())


def read_pieces(pieces: Iterable[str], source: str) -> Iterator[PaperRecord]:
    """Records from the feed's text given a piece at a time, as a file is read."""
    feed = _Feed(source)
    for piece in pieces:
        feed.parse(piece)
        yield from feed.take_records()
    feed.parse("", final=True)
    yield from feed.take_records()
    if not feed.entries:
        raise ImportFailed(source, None, "no entries in the feed")


@dataclass
class _Entry:
    line: int
    texts: dict[str, str] = field(default_factory=dict)
    authors: list[str] = field(default_factory=list)
    links: list[dict[str, str]] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    primary_category: str = ""


class _Feed:
    """expat callbacks that build one entry at a time and turn it into a record at its end."""

    def __init__(self, source: str, skip: Callable[[ImportFailed], None] | None = None):
        self.source = source
        self.skip = skip
        self.parser = expat.ParserCreate(namespace_separator=_SEPARATOR)
        self.parser.buffer_text = True
        self.parser.StartDoctypeDeclHandler = self._refuse_doctype
        self.parser.StartElementHandler = self._start
        self.parser.EndElementHandler = self._end
        self.parser.CharacterDataHandler = self._characters
        self.path: list[str] = []
        self.entry: _Entry | None = None
        # Text of the element being captured, and its depth, so nested markup joins in.
        self.captured: list[str] | None = None
        self.captured_key = ""
        self.captured_depth = 0
        self.pending: list[ArxivEntry] = []  # read, not yet taken
        self.entries = 0
        # Texts of the <feed>'s own children that are kept (the opensearch total).
        self.feed_texts: dict[str, str] = {}
        # Each child of <feed> (an entry above all), and whatever lies between two of them, is
        # a record for IMPORT_MAX_RECORD_BYTES: measured in UTF-8 bytes from where the last one
        # ended (`mark`) to what has been handed to expat, which holds an unfinished tag, text
        # or comment in memory until it ends.
        self.limit = limits.max_record_bytes()
        self.fed = 0
        self.mark = 0
        self.mark_line = 1
        self.lines_fed = 0

    def parse(self, text: str, *, final: bool = False) -> None:
        try:
            self.parser.Parse(text, final)
        except expat.ExpatError as error:
            message = f"malformed XML: {expat.ErrorString(error.code)} (column {error.offset + 1})"
            raise ImportFailed(self.source, error.lineno, message) from None
        except UnicodeEncodeError as error:
            # Only a str built in memory can hold one; files are decoded strictly.
            line = self.lines_fed + text.count("\n", 0, error.start) + 1
            raise ImportFailed(self.source, line, "unpaired surrogate character") from None
        self.lines_fed += text.count("\n")
        self.fed += utf8_size(text)
        if self.fed - self.mark > self.limit:
            what = "this entry" if self.entry is not None else "this part of the feed"
            raise limits.record_too_large(self.source, self.mark_line, what)

    def _set_mark(self) -> None:
        self.mark = self.parser.CurrentByteIndex
        self.mark_line = self.parser.CurrentLineNumber

    def take_records(self) -> list[PaperRecord]:
        return [entry.record for entry in self.take_entries()]

    def take_entries(self) -> list[ArxivEntry]:
        entries, self.pending = self.pending, []
        return entries

    def total_results(self) -> int | None:
        value = self.feed_texts.get("total", "").strip()
        if not value:
            return None
        if not (value.isascii() and value.isdigit()):
            raise self.fail(f"opensearch:totalResults {value[:40]!r} is not a number")
        return int(value)

    def fail(self, message: str, line: int | None = None) -> ImportFailed:
        return ImportFailed(self.source, line or self.parser.CurrentLineNumber, message)

    def _refuse_doctype(self, name, system_id, public_id, has_internal_subset) -> None:
        raise self.fail(
            "DTDs are not allowed (<!DOCTYPE ...>): an arXiv feed has none, and the entities "
            "one declares can expand without bound or read other files"
        )

    def _start(self, name: str, attributes: dict[str, str]) -> None:
        self.path.append(name)
        depth = len(self.path)
        if depth <= 2:
            self._set_mark()
        if depth == 1:
            if name != FEED:
                raise self.fail(
                    f"not an Atom feed: the root element is {_describe(name)}, "
                    f'expected <feed xmlns="{ATOM}">'
                )
        elif depth == 2:
            if name == ENTRY:
                self.entry = _Entry(line=self.parser.CurrentLineNumber)
            elif name == TOTAL_RESULTS:
                self._capture("total", depth)
        elif self.entry is not None and self.captured is None:
            if depth == 3:
                self._entry_child(self.entry, name, attributes)
            elif depth == 4 and name == NAME and self.path[2] == AUTHOR:
                self._capture("author", depth)

    def _entry_child(self, entry: _Entry, name: str, attributes: dict[str, str]) -> None:
        if name in _TEXT_FIELDS:
            self._capture(_TEXT_FIELDS[name], 3)
        elif name == LINK:
            entry.links.append(attributes)
        elif name == CATEGORY:
            entry.categories.append(attributes.get("term", ""))
        elif name == PRIMARY_CATEGORY and not entry.primary_category:
            entry.primary_category = attributes.get("term", "")

    def _capture(self, key: str, depth: int) -> None:
        self.captured = []
        self.captured_key = key
        self.captured_depth = depth

    def _characters(self, data: str) -> None:
        if self.captured is not None:
            self.captured.append(data)

    def _end(self, name: str) -> None:
        depth = len(self.path)
        entry = self.entry
        if self.captured is not None and depth == self.captured_depth:
            value = "".join(self.captured)
            self.captured = None
            if entry is None:  # a child of <feed> itself
                self.feed_texts.setdefault(self.captured_key, value)
            elif self.captured_key == "author":
                author = collapse_whitespace(value)
                if author:
                    entry.authors.append(author)
            else:
                entry.texts.setdefault(self.captured_key, value)
        elif entry is not None and depth == 2 and name == ENTRY:
            size = self.parser.CurrentByteIndex - self.mark
            if size > self.limit:
                raise limits.record_too_large(self.source, entry.line, "this entry", size)
            self.entries += 1
            try:
                self.pending.append(self._record(entry))
            except ArxivErrorEntry:
                raise
            except ImportFailed as error:
                if self.skip is None:
                    raise
                self.skip(error)
            self.entry = None
        if depth <= 2:
            self._set_mark()
        self.path.pop()

    def _record(self, entry: _Entry) -> ArxivEntry:
        texts = {key: collapse_whitespace(value) for key, value in entry.texts.items()}
        raw_id = texts.get("id", "")
        if _ERROR_URL.match(raw_id):
            message = texts.get("summary") or "the arXiv API reported an error"
            raise ArxivErrorEntry(self.source, entry.line, message)
        match = _ABS_URL.fullmatch(raw_id)
        if match is None:
            raise self.fail(
                f"entry id {raw_id[:100]!r} is not an arXiv abstract URL "
                "such as http://arxiv.org/abs/2310.01234v2",
                entry.line,
            )
        forum_url, pdf_url = _links(entry.links)
        published = self._date("published", texts.get("published", ""), entry.line)
        venues = _venue_tags(texts.get("journal_ref", ""))
        record = PaperRecord(
            title=texts.get("title", ""),
            forum_id="",
            forum_url=forum_url,
            pdf_url=pdf_url,
            authors=entry.authors,
            tags=venues,
            abstract=texts.get("summary", ""),
            source=self.source,
            line=entry.line,
            keywords=_keywords(entry.primary_category, entry.categories),
            primary_area=entry.primary_category.strip(),
            arxiv_id=match["id"],
            year=published.year if published else None,
            doi=texts.get("doi", ""),
            # A preprint, unless its journal reference names the venue that published it
            # (then the venue's kind: validate_record reads it from the tags).
            publication_type="" if venues else PublicationType.PREPRINT,
        )
        version = int(match["version"]) if match["version"] else None
        updated = self._date("updated", texts.get("updated", ""), entry.line)
        return ArxivEntry(record, version, published, updated)

    def _date(self, what: str, value: str, line: int) -> date | None:
        if not value:
            return None
        match = _DATE.match(value)
        if match is not None:
            try:
                return date(int(match["year"]), int(match["month"]), int(match["day"]))
            except ValueError:  # a month or day out of range
                pass
        raise self.fail(
            f"{what} date {value[:40]!r} is not a date such as 2023-10-02T17:59:58Z", line
        )


def _describe(name: str) -> str:
    namespace, _, local = name.rpartition(_SEPARATOR)
    return f"<{local}> in namespace {namespace}" if namespace else f"<{local}> with no namespace"


def _links(links: list[dict[str, str]]) -> tuple[str, str]:
    """(abstract page, PDF), the first of each, as https."""
    forum_url = pdf_url = ""
    for attributes in links:
        href = attributes.get("href", "").strip()
        if not href:
            continue
        if attributes.get("title") == "pdf" or attributes.get("type") == "application/pdf":
            pdf_url = pdf_url or _https(href)
        elif attributes.get("rel", "alternate") == "alternate":  # Atom's default rel
            forum_url = forum_url or _https(href)
    return forum_url, pdf_url


def _https(url: str) -> str:
    return "https://" + url[len("http://") :] if url.lower().startswith("http://") else url


def _keywords(primary: str, categories: list[str]) -> list[str]:
    keywords: list[str] = []
    seen: set[str] = set()
    for term in [primary, *categories]:
        term = term.strip()
        if term and term not in seen:
            seen.add(term)
            keywords.append(term)
    return keywords


def _venue_tags(journal_ref: str) -> list[str]:
    match = _VENUE.fullmatch(journal_ref)
    return [f"{match['venue']} {match['year']}"] if match else []
