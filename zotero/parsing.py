"""Zotero's Web API v3 JSON read into what the site stores, without touching the database.

An item's `data` (https://www.zotero.org/support/dev/web_api/v3/basics): `itemType`, `title`,
`creators` ({"creatorType", "firstName", "lastName"} or {"creatorType", "name"}), `abstractNote`,
`publicationTitle` / `proceedingsTitle` / `repository` / `institution` / `university`, `date`,
`DOI`, `url`, `extra`, `tags` ([{"tag", "type"}]), `collections` (keys), `parentItem` for a
child note (`note`, HTML) or attachment (`linkMode`, `url`, `contentType`).

Papers are the item types below; their records go through the importer (papers.importing) as
any source's do. Authors keep Zotero's order; editors and other contributors are no authors.
An attachment's link becomes its parent's PDF link by the importer's own rule for reference
links (papers.importing.bibtex.reference_links: an http(s) URL to a .pdf, or OpenReview's
/pdf), or when Zotero says it is a PDF; the file is never downloaded here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from html import unescape
from typing import Any, TypeGuard
from urllib.parse import urlsplit

from django.utils.html import strip_tags

from papers.choices import PublicationType
from papers.importing.bibtex import (
    arxiv_id_from_doi,
    arxiv_id_from_venue,
    reference_links,
    year_from_date,
)
from papers.importing.records import PaperRecord
from papers.text import MAX_BODY
from papers.venues import venue_from_reference
from zotero.limits import MAX_KEY

PAPER_TYPES = {
    "journalArticle": PublicationType.JOURNAL_ARTICLE,
    "conferencePaper": PublicationType.CONFERENCE_PAPER,
    "preprint": PublicationType.PREPRINT,
    "report": PublicationType.REPORT,
    "thesis": PublicationType.THESIS,
}
# Where each paper type names the venue it appeared in.
_VENUE_FIELDS = ("publicationTitle", "proceedingsTitle", "conferenceName", "repository")
_KEY = re.compile(rf"[A-Za-z0-9]{{1,{MAX_KEY}}}")
MAX_ITEM_TYPE = 40
MAX_COLLECTION_NAME = 255
# The links Zotero keeps a URL for (a stored file's URL is Zotero's own, behind the key).
URL_LINK_MODES = frozenset({"linked_url", "imported_url"})


@dataclass
class ZoteroItem:
    """One item of an answer: its key, version, type, parent and what it says."""

    key: str
    version: int
    item_type: str
    parent_key: str
    data: dict[str, Any]
    tags: list[str] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)

    @property
    def is_paper(self) -> bool:
        return self.item_type in PAPER_TYPES and not self.parent_key


def item(raw: Mapping[str, Any]) -> ZoteroItem | None:
    """An item of /items' JSON answer; None for what is not one (no key or data)."""
    data = raw.get("data")
    if not isinstance(data, dict):
        return None
    key = raw.get("key") or data.get("key")
    if not is_key(key):
        return None
    tags = [t["tag"].strip() for t in _dicts(data.get("tags")) if isinstance(t.get("tag"), str)]
    collections = [c for c in _list(data.get("collections")) if is_key(c)]
    parent = data.get("parentItem")
    return ZoteroItem(
        key=key,
        version=_int(raw.get("version", data.get("version"))),
        item_type=_text(data.get("itemType"))[:MAX_ITEM_TYPE],
        parent_key=parent if is_key(parent) else "",
        data=data,
        tags=[t for t in tags if t],
        collections=collections,
    )


@dataclass(frozen=True)
class ZoteroCollection:
    key: str
    version: int
    name: str


def collection(raw: Mapping[str, Any]) -> ZoteroCollection | None:
    data = raw.get("data")
    if not isinstance(data, dict) or not is_key(raw.get("key")):
        return None
    name = (" ".join(_text(data.get("name")).split()) or raw["key"])[:MAX_COLLECTION_NAME]
    return ZoteroCollection(raw["key"], _int(raw.get("version")), name)


def record(data: Mapping[str, Any], *, source: str, line: int, pdf_url: str = "") -> PaperRecord:
    """The importer's record of a paper item's `data`."""
    item_type = _text(data.get("itemType"))
    doi = _text(data.get("DOI")) or _doi_in_extra(_text(data.get("extra")))
    cited_venue = next((v for name in _VENUE_FIELDS if (v := _line(data.get(name)))), "")
    year = year_from_date(_text(data.get("date")))
    forum_url, linked_pdf, arxiv_id = reference_links([_text(data.get("url"))])
    arxiv_id = arxiv_id or arxiv_id_from_doi(doi) or arxiv_id_from_venue(cited_venue)
    venue = venue_from_reference(cited_venue, year)
    return PaperRecord(
        title=_line(data.get("title")),
        forum_id="",
        forum_url=forum_url,
        pdf_url=pdf_url or linked_pdf,
        authors=authors(data.get("creators")),
        tags=[venue] if venue else [],
        abstract=_text(data.get("abstractNote")).strip(),
        source=source,
        line=line,
        arxiv_id=arxiv_id,
        year=year,
        doi=doi,
        publication_type=PAPER_TYPES.get(item_type, ""),
    )


def authors(creators: Any) -> list[str]:
    """The authors' names in Zotero's order: "First Last", or the one-field name."""
    names = []
    for creator in _dicts(creators):
        if creator.get("creatorType", "author") != "author":
            continue
        name = _line(creator.get("name")) or " ".join(
            part
            for part in (_line(creator.get("firstName")), _line(creator.get("lastName")))
            if part
        )
        if name:
            names.append(name)
    return names


def pdf_link(data: Mapping[str, Any]) -> str:
    """An attachment's PDF link, "" when it has none the site may record."""
    if data.get("linkMode") not in URL_LINK_MODES:
        return ""
    url = _text(data.get("url")).strip()
    _, pdf_url, _ = reference_links([url])
    if pdf_url:
        return pdf_url
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return ""
    is_pdf = _text(data.get("contentType")).lower() == "application/pdf"
    return url if is_pdf and scheme in ("http", "https") else ""


def note_text(data: Mapping[str, Any]) -> str:
    """A child note's text: Zotero keeps notes as HTML; a note here is Markdown, so the markup
    is dropped and paragraphs kept apart."""
    html = _text(data.get("note"))
    for closing in ("</p>", "<br>", "<br/>", "<br />", "</h1>", "</h2>", "</h3>", "</li>"):
        html = html.replace(closing, closing + "\n\n")
    text = unescape(strip_tags(html))
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n")]
    return "\n\n".join(p for p in paragraphs if p)[:MAX_BODY]


def deleted_keys(raw: Any) -> tuple[list[str], list[str]]:
    """(item keys, collection keys) of /deleted's answer."""
    if not isinstance(raw, dict):
        return [], []

    def keys(name: str) -> list[str]:
        return [k for k in _list(raw.get(name)) if is_key(k)]

    return keys("items"), keys("collections")


def is_key(value: Any) -> TypeGuard[str]:
    """Whether `value` is shaped like a Zotero object key (8 letters and digits)."""
    return isinstance(value, str) and _KEY.fullmatch(value) is not None


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _doi_in_extra(extra: str) -> str:
    # Zotero keeps a field its item type lacks (a preprint's DOI in older versions) in
    # `extra` as "DOI: 10...." lines.
    for row in extra.splitlines():
        name, _, value = row.partition(":")
        if name.strip().upper() == "DOI":
            return value.strip()
    return ""


def _dicts(value: Any) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _line(value: Any) -> str:
    return " ".join(_text(value).split())


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
