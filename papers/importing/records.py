"""The record every reader yields, the error every reader raises, and the checks all records pass.

Readers turn a file into `PaperRecord`s without touching the database; `validate_record` then
applies the rules the database would otherwise enforce (lengths, URL schemes) so a bad file fails
before anything is written.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import NoReturn
from urllib.parse import urlsplit

from papers.importing import safe_json
from papers.importing.cleaning import clean_record, converted
from papers.importing.latex_text import author_name_as_text
from papers.importing.publication_types import from_venue_tags
from papers.latex import accents_as_unicode
from papers.tags.identity import normalize_tag_name, tag_key, tag_name_problem
from papers.text import (
    FORUM_ID,
    MAX_ABSTRACT,
    MAX_AUTHOR_LIST,
    MAX_AUTHOR_NAME,
    MAX_AUTHORS_PER_PAPER,
    MAX_FORUM_ID,
    MAX_TAG_NAME,
    MAX_TAGS_PER_PAPER,
    MAX_TITLE,
    MAX_URL,
    author_name_problem,
    forum_id_from_url,
    is_arxiv_id,
    is_doi,
    is_placeholder_author,
    normalize_arxiv_id,
    normalize_author_name,
    normalize_doi,
    openreview_profile_id,
    paper_text_problem,
)


class ImportFailed(Exception):
    """A problem in an input file, located so a person can open the file and fix it."""

    def __init__(self, file: str, line: int | None, message: str):
        self.file = file
        self.line = line
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message}"


@dataclass
class PaperRecord:
    title: str
    forum_id: str
    forum_url: str
    pdf_url: str
    authors: list[str]
    # As the source lists them; the loader sorts them into venue/track (papers.importing.tags).
    tags: list[str]
    abstract: str
    source: str
    line: int
    # What some sources add (OpenReview, arXiv, reference managers). The arXiv id and the DOI
    # identify a paper too (after the forum id), so a record with one needs no abstract.
    keywords: list[str] = field(default_factory=list)
    primary_area: str = ""
    arxiv_id: str = ""  # e.g. "2310.01234" (new style) or "hep-th/9901001" (old), no version
    year: int | None = None
    doi: str = ""
    # What kind of publication the source says it is (papers.choices.PublicationType, "" if it
    # says nothing); validate_record fills it from the venue tags when the reader did not.
    publication_type: str = ""
    # OpenReview profile ids ("~Jane_Doe1") of `authors`, position by position, "" for an
    # author without one; empty when the source gives none. validate_record keeps only profile
    # ids (never e-mail addresses) and drops them all when they do not pair with the names.
    author_ids: list[str] = field(default_factory=list)
    # ORCID iDs ("0000-0002-1825-0097") of `authors`, position by position, "" for an author
    # without one; empty when the source gives none (Crossref's author.ORCID). The loader
    # gives them to the authors that have none (papers.importing.orcids).
    author_orcids: list[str] = field(default_factory=list)
    # What validate_record cleaned (papers.importing.cleaning), one note each, for the report.
    cleaned: list[str] = field(default_factory=list, compare=False, repr=False)


@dataclass
class ReviewRecord:
    """A reply note of an OpenReview forum that reviews or decides its paper (see
    papers.importing.openreview). Its paper is the one whose forum id is `forum_id`, in this
    import or already in the catalogue."""

    forum_id: str
    note_id: str
    kind: str  # "review", "meta_review" or "decision" (papers.models.Review.Kind)
    source: str
    line: int
    rating: float | None = None  # the leading number of "6: marginally above ..."
    confidence: float | None = None
    rating_label: str = ""  # the text as given, "6: marginally above ..."
    confidence_label: str = ""
    decision: str = ""  # a decision note's decision, a meta-review's recommendation
    created: datetime | None = None
    modified: datetime | None = None
    # The note's text fields in the venue's order: (name, Markdown text) pairs.
    texts: list[tuple[str, str]] = field(default_factory=list)
    # The note's readers as given; public when they include "everyone" (or are not given).
    readers: list[str] = field(default_factory=list)
    public: bool = True
    reviewer: str = ""  # "Reviewer a1Bc", from the note's signature
    # What the reader cleaned (a rating that is no number, a text cut), for the report.
    cleaned: list[str] = field(default_factory=list, compare=False, repr=False)


# What a reader yields: papers, and from OpenReview notes their reviews too.
Record = PaperRecord | ReviewRecord


def split_list(value, *, what: str, source: str, line: int, semicolons: bool = False) -> list[str]:
    """A list field given as a JSON list of strings or as one comma-separated string.

    With `semicolons` (keywords), a string holding a ";" is split on semicolons instead:
    reference managers and spreadsheets write "graph neural networks; message passing", and a
    keyword may itself hold a comma ("vision, language and audio") only where it is not the
    separator."""
    if value is None:
        return []
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith("["):
            try:
                value = safe_json.loads(stripped)
            except json.JSONDecodeError:
                value = _split_text(stripped, semicolons)
            except safe_json.JSONRejected as error:
                raise ImportFailed(source, line, f"{what}: {error.message}") from None
        else:
            value = _split_text(stripped, semicolons)
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ImportFailed(source, line, f"{what} must be a list of strings or a comma string")
    return [item.strip() for item in value if item.strip()]


def _split_text(text: str, semicolons: bool) -> list[str]:
    return text.split(";") if semicolons and ";" in text else text.split(",")


def text_field(mapping: Mapping, names: Iterable[str], *, source: str, line: int) -> str:
    """The first present, non-null value among `names`, which must be text."""
    for name in names:
        value = mapping.get(name)
        if value is None:
            continue
        if isinstance(value, int | float) and not isinstance(value, bool) and name == "forum_id":
            value = str(value)
        if not isinstance(value, str):
            raise ImportFailed(source, line, f"field {name!r} must be text, got {_kind(value)}")
        if value.strip():
            return value
    return ""


def _kind(value) -> str:
    return {dict: "an object", list: "a list", bool: "true/false"}.get(type(value), "a number")


def record_from_mapping(mapping: Mapping, *, source: str, line: int) -> PaperRecord:
    """Build a record from the shared JSONL/CSV field names; unknown fields are ignored."""
    forum_url = text_field(mapping, ["url", "forum_url", "detail_url"], source=source, line=line)
    forum_id = text_field(mapping, ["forum_id"], source=source, line=line).strip()
    pdf_url = text_field(mapping, ["pdf", "pdf_url"], source=source, line=line).strip()
    return PaperRecord(
        title=text_field(mapping, ["title"], source=source, line=line).strip(),
        forum_id=forum_id,
        forum_url=forum_url.strip(),
        pdf_url=pdf_url,
        authors=split_list(mapping.get("authors"), what="authors", source=source, line=line),
        tags=split_list(mapping.get("tags"), what="tags", source=source, line=line),
        abstract=text_field(mapping, ["abstract"], source=source, line=line),
        source=source,
        line=line,
        keywords=split_list(
            mapping.get("keywords"), what="keywords", source=source, line=line, semicolons=True
        ),
        primary_area=text_field(mapping, ["primary_area"], source=source, line=line).strip(),
        arxiv_id=text_field(mapping, ["arxiv_id"], source=source, line=line).strip(),
        doi=text_field(mapping, ["doi"], source=source, line=line).strip(),
    )


def validate_record(record: PaperRecord) -> PaperRecord:
    """Check one record against the model's rules; fills forum_id from the forum URL, normalises
    the arXiv id and DOI, drops placeholder authors ("Anonymous"), and cleans what real data
    brings (papers.importing.cleaning: invisible characters, several keywords in one, values
    over their limits), noting each cleaning in `record.cleaned`. The checks after cleaning
    still refuse what cleaning cannot mend (a record with neither title nor abstract)."""

    def fail(message: str) -> NoReturn:
        raise ImportFailed(record.source, record.line, message)

    texts = {
        "title": record.title,
        "abstract": record.abstract,
        "forum id": record.forum_id,
        "forum url": record.forum_url,
        "pdf url": record.pdf_url,
        "authors": "".join(record.authors),
        "tags": "".join(record.tags),
        "keywords": "".join(record.keywords) + record.primary_area,
        "arxiv id": record.arxiv_id,
        "doi": record.doi,
    }
    for label, text in texts.items():
        # JSON escapes can smuggle in what the file-level checks cannot see.
        if "\x00" in text:
            fail(f"{label} contains a NUL character (\\u0000)")
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            fail(f"{label} contains an unpaired surrogate (a broken \\ud800-style escape)")
    record.doi = normalize_doi(record.doi)
    if record.doi and not is_doi(record.doi):
        fail(f"doi {_quote(record.doi, 80)} is not a DOI (10.<registrant>/<suffix>)")
    record.arxiv_id = normalize_arxiv_id(record.arxiv_id)
    if record.arxiv_id and not is_arxiv_id(record.arxiv_id):
        fail(f"arxiv id {_quote(record.arxiv_id, 80)} is not an arXiv id (2310.01234)")
    # Schr\"odinger as Schrödinger, whichever source spelt it which way (math as written). An
    # accent ({\'{\i}}) is at most 8 characters a letter: longer text is over its limit anyway.
    # Each value is converted on its own, kept as written if the converter fails on it.
    notes = record.cleaned
    if len(record.title) <= 8 * MAX_TITLE:
        record.title = converted(record.title, accents_as_unicode, "title", notes)
    if len(record.abstract) <= 8 * MAX_ABSTRACT:
        record.abstract = converted(record.abstract, accents_as_unicode, "abstract", notes)
    # Erd\H{o}s as Erdős, S{\o}ren as Søren, whichever source spelt them so: one person is one
    # author whether arXiv, a RIS file or OpenReview names them (BibTeX's reader has decoded
    # its names already). Decoding takes about 15 ms a kilobyte of LaTeX, so only a list that
    # could be valid is decoded (as written it is longer than decoded, and no real list comes
    # near the limit): a hostile record costs a second at most, not minutes.
    if sum(map(len, record.authors)) <= MAX_AUTHOR_LIST:
        record.authors = [
            converted(name, author_name_as_text, "author name", notes) for name in record.authors
        ]
    record.cleaned.extend(clean_record(record))
    _check_length(fail, "abstract", record.abstract, MAX_ABSTRACT)
    _check_length(fail, "title", record.title, MAX_TITLE)
    for label, text in (("title", record.title), ("abstract", record.abstract)):
        if problem := paper_text_problem(label, text):
            fail(problem)
    for label, url in (("forum url", record.forum_url), ("pdf url", record.pdf_url)):
        if not url:
            continue
        _check_length(fail, label, url, MAX_URL)
        try:
            parts = urlsplit(url)
        except ValueError:  # an unclosed "[" of an IPv6 host: a clear error, not a traceback
            fail(f"{label} {_quote(url, 80)} is not an http(s) URL")
        if parts.scheme.lower() not in ("http", "https") or not parts.netloc or " " in url:
            fail(f"{label} {_quote(url, 80)} is not an http(s) URL")
    url_id = forum_id_from_url(record.forum_url) if record.forum_url else ""
    if record.forum_id and url_id and record.forum_id != url_id:
        fail(
            f"forum_id {_quote(record.forum_id, 80)} does not match the url's "
            f"id={_quote(url_id, 80)}"
        )
    record.forum_id = record.forum_id or url_id
    _check_length(fail, "forum id", record.forum_id, MAX_FORUM_ID)
    if not record.abstract.strip():
        record.abstract = ""
        # A paper is found again by its forum id, arXiv id, DOI or abstract: without any of
        # them an import could not tell it from a new one and would duplicate it every time.
        if not (record.forum_id or record.arxiv_id or record.doi):
            fail("record has no abstract, and no forum id, arXiv id or DOI to know it by")
        if not record.title:
            fail("record has neither an abstract nor a title")
    if record.forum_id and not FORUM_ID.fullmatch(record.forum_id):
        fail(f"forum id {record.forum_id!r} is not an OpenReview id (letters, digits, -, _)")
    # A placeholder is no person: stored, it would become an author page of every blind
    # submission, and a later source's real authors would count as replacing it.
    _keep_people(record)
    _check_authors(fail, record.authors)
    _check_tags(fail, record.tags)
    _check_tags(fail, record.keywords, "keyword")
    if record.primary_area:
        _check_tags(fail, [record.primary_area], "primary area")
    # OpenReview and the seed formats name a venue (and a status) but no type.
    record.publication_type = record.publication_type or from_venue_tags(record.tags)
    return record


def _keep_people(record: PaperRecord) -> None:
    """Drop placeholder authors, and with them their places in author_ids; keep only the
    profile ids there (an e-mail address is "")."""
    ids = record.author_ids
    if len(ids) != len(record.authors):  # ids that do not pair with the names name no one
        ids = [""] * len(record.authors)
    people = [
        (name, openreview_profile_id(profile))
        for name, profile in zip(record.authors, ids, strict=True)
        if not is_placeholder_author(name)
    ]
    record.authors = [name for name, _ in people]
    record.author_ids = [profile for _, profile in people] if any(p for _, p in people) else []


def _quote(text: str, limit: int = 40) -> str:
    """repr() of at most `limit` characters of `text`, marked when cut."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def short_list(names: list[str], limit: int = 10) -> str:
    """Column names for a message: a hostile header must not make a megabyte-long error."""
    shown = ", ".join(_quote(name) for name in names[:limit])
    return shown + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def _check_length(fail, label: str, text: str, limit: int, *, form: str = "") -> None:
    """`form` names the stored form `text` is, when it is not the value as given."""
    if len(text) > limit:
        how = f" {form}" if form else ""
        fail(f"{label} is {len(text)} characters long{how}; at most {limit} are allowed")


def _check_authors(fail, names: list[str]) -> None:
    if len(names) > MAX_AUTHORS_PER_PAPER:
        fail(f"{len(names)} authors; at most {MAX_AUTHORS_PER_PAPER} are allowed")
    for name in names:
        # The label quotes the name: built only for a name that fails, not for a million
        # that pass.
        if len(name) > MAX_AUTHOR_NAME:
            _check_length(fail, f"author name {_quote(name)}", name, MAX_AUTHOR_NAME)
        # The matching key is stored too, in a column of the same size; NFKC and case folding
        # can lengthen a name (U+FDFA alone becomes 18 characters).
        key = normalize_author_name(name)
        if len(key) > MAX_AUTHOR_NAME:
            form = "once normalised (NFKC, casefold)"
            _check_length(fail, f"author name {_quote(name)}", key, MAX_AUTHOR_NAME, form=form)
        problem = author_name_problem(name)
        if problem:
            fail(f"author name {_quote(name)}: {problem}")
    joined = sum(map(len, names)) + 2 * max(len(names) - 1, 0)
    if joined > MAX_AUTHOR_LIST:
        fail(
            f"the author list is {joined} characters long (names joined by ', '); "
            f"at most {MAX_AUTHOR_LIST} are allowed"
        )


def _check_tags(fail, names: list[str], what: str = "tag") -> None:
    if len(names) > MAX_TAGS_PER_PAPER:
        fail(f"{len(names)} {what}s; at most {MAX_TAGS_PER_PAPER} are allowed")
    for name in names:
        label = f"{what} {_quote(name)}"
        _check_length(fail, label, name, MAX_TAG_NAME)
        # Both the display name and the key are stored in columns of MAX_TAG_NAME.
        display = normalize_tag_name(name)
        _check_length(fail, label, display, MAX_TAG_NAME, form="once normalised (NFKC)")
        key = tag_key(name)
        _check_length(fail, label, key, MAX_TAG_NAME, form="as a key (NFKC, casefold)")
        if display:  # empty ones are dropped by classify_tags
            problem = tag_name_problem(name)
            if problem:
                fail(f"{label}: {problem}")
