"""One work by its DOI from Crossref's REST API (`GET {CROSSREF_API_URL}/works/{doi}`), as a record.

The answer is `{"status": "ok", "message-type": "work", "message": {...}}`; of the work we read:
- `title` (a list: the first is the title), `author` (each `given` and `family`, or `name` for
  an organisation; `ORCID`, "http://orcid.org/0000-0002-1825-0097", kept as the bare iD);
- `type` (journal-article, proceedings-article, posted-content, book-chapter, ...): the
  publication type (papers.importing.publication_types.from_crossref);
- the year: of the first of `issued`, `published`, `published-print`, `published-online`,
  `posted` and `created` that gives one (each `{"date-parts": [[2024, 3, 5]]}`; a date Crossref
  does not know is `[[null]]`). `issued` is the earliest of the print and online publication;
  `created`, when the DOI was registered, is the last resort. None when no date gives a year:
  never the day it was fetched;
- `container-title` (a list: the journal or proceedings), made a venue tag as a reference's
  journal is (papers.venues.venue_from_reference), with that year;
- `abstract`, when the publisher deposited one: JATS XML (`<jats:p>`, `<jats:title>Abstract`),
  read as plain paragraphs;
- `URL` (the doi.org link), `DOI`, `subject` (keywords), and the first `link` whose
  content-type is application/pdf.

`work_record` is pure (a decoded answer in, a record out); `fetch_work` asks Crossref. A DOI
Crossref does not know is answered 404, which is None here, not an error.
"""

from __future__ import annotations

import html
import re
from typing import Any
from urllib.parse import quote

from papers.importing.orcids import orcid_of
from papers.importing.publication_types import from_crossref
from papers.importing.records import ImportFailed, PaperRecord
from papers.sources.client import FetchClient, FetchError
from papers.text import collapse_whitespace
from papers.venues import venue_from_reference

SOURCE = "crossref"
# A work's dates, in the order a citation's year is taken from them (see the docstring).
YEAR_DATES = (
    "issued",
    "published",
    "published-print",
    "published-online",
    "posted",
    "created",
)

# JATS: the abstract's own heading goes (the page says "Abstract" already); paragraphs end
# in a blank line; every other tag (italics, sub/superscripts) goes, its text kept.
_JATS_TITLE = re.compile(r"<(?:jats:)?title\b[^>]*>.*?</(?:jats:)?title>", re.DOTALL)
_PARAGRAPH_END = re.compile(r"</(?:jats:)?(?:p|sec)>")
_TAG = re.compile(r"<[^>]*>")


def fetch_work(doi: str, client: FetchClient) -> PaperRecord | None:
    """The record of `doi` (normalised), None when Crossref has no such work; FetchError when
    Crossref fails or answers something else than a work."""
    # One path segment: a "/" of the DOI encoded too, so no dot segment ("10.5555/../../x")
    # can take the request out of /works/ (papers.sources.identifiers refuses those first).
    path = f"/works/{quote(doi, safe='')}"
    try:
        fetched = client.get_json(path)
    except FetchError as error:
        if error.status == 404:
            return None
        raise
    message = fetched.data.get("message")
    if fetched.data.get("message-type") != "work" or not isinstance(message, dict):
        raise FetchError(fetched.url, 'expected {"message-type": "work", "message": {...}}')
    try:
        return work_record(message, SOURCE, 1)
    except ImportFailed as error:
        raise FetchError(fetched.url, error.message) from None


def work_record(work: dict[str, Any], source: str, line: int) -> PaperRecord:
    """The record of one Crossref work (the answer's `message`)."""
    doi = _text(work.get("DOI"))
    if not doi:
        raise ImportFailed(source, line, "the work has no DOI")
    year = next(filter(None, (_year(work.get(name)) for name in YEAR_DATES)), None)
    container = _first(work.get("container-title"))
    venue = venue_from_reference(container, year) if container else ""
    people = [
        (name, orcid_of(author.get("ORCID")))
        for author in _list(work.get("author"))
        if isinstance(author, dict) and (name := _author_name(author))
    ]
    return PaperRecord(
        title=collapse_whitespace(_first(work.get("title"))),
        forum_id="",
        forum_url=_text(work.get("URL")),
        pdf_url=_pdf_link(work.get("link")),
        authors=[name for name, _ in people],
        author_orcids=[orcid for _, orcid in people] if any(o for _, o in people) else [],
        tags=[venue] if venue else [],
        abstract=jats_text(_text(work.get("abstract"))),
        source=source,
        line=line,
        keywords=[_text(subject) for subject in _list(work.get("subject")) if _text(subject)],
        year=year,
        doi=doi,
        publication_type=from_crossref(_text(work.get("type"))),
    )


def jats_text(abstract: str) -> str:
    """A JATS abstract as plain text, paragraphs apart."""
    text = _PARAGRAPH_END.sub("\n\n", _JATS_TITLE.sub("", abstract))
    text = html.unescape(_TAG.sub("", text))
    paragraphs = (collapse_whitespace(paragraph) for paragraph in text.split("\n\n"))
    return "\n\n".join(paragraph for paragraph in paragraphs if paragraph)


def _author_name(author: Any) -> str:
    if not isinstance(author, dict):
        return ""
    given, family = _text(author.get("given")), _text(author.get("family"))
    return collapse_whitespace(f"{given} {family}") or _text(author.get("name"))


def _pdf_link(links: Any) -> str:
    for link in _list(links):
        if isinstance(link, dict) and link.get("content-type") == "application/pdf":
            return _text(link.get("URL"))
    return ""


def _year(date: Any) -> int | None:
    # {"date-parts": [[2019, 7, 25]]}; a date Crossref does not know is [[null]].
    parts = date.get("date-parts") if isinstance(date, dict) else None
    first = parts[0] if isinstance(parts, list) and parts else None
    year = first[0] if isinstance(first, list) and first else None
    # Four digits at most: the column is a small integer, and no citation has a fifth.
    is_year = isinstance(year, int) and not isinstance(year, bool) and 0 < year < 10_000
    return year if is_year else None


def _first(values: Any) -> str:
    texts = [_text(value) for value in _list(values)]
    return next((text for text in texts if text), "")


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
