"""Reading-list exports: BibTeX for reference managers and CSV for spreadsheets.

Both take reading-list items whose papers were prefetched with
`Paper.objects.with_people_and_tags()` (see selectors.list_items_for_export), so an export
runs a fixed number of queries whatever the list's size.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
from collections.abc import Iterable

from annotations.models import ReadingListItem
from papers.models import Paper, TagKind

_YEAR = re.compile(r"\b(19|20)\d{2}\b")
_AND_WORD = re.compile(r"\band\b", re.IGNORECASE)
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9]+")
# Lower-case name particles that belong to the family name ("van der Berg, Anna").
_PARTICLES = frozenset(
    {"van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "le", "la"}
)

# LaTeX special characters and how BibTeX must spell them so the text survives unchanged.
_BIBTEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_BIBTEX_SPECIAL = re.compile("|".join(re.escape(ch) for ch in _BIBTEX_ESCAPES))

CSV_HEADER = ["title", "authors", "venue", "track", "status", "priority", "url", "pdf"]
# A cell starting with one of these is run as a formula by spreadsheet programs.
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def bibtex_escape(text: str) -> str:
    text = " ".join(text.split())
    return _BIBTEX_SPECIAL.sub(lambda match: _BIBTEX_ESCAPES[match.group()], text)


def bibtex_url(url: str) -> str:
    # url is a verbatim field for biblatex: LaTeX escapes would end up in the link, so only
    # the characters that could unbalance the entry are percent-encoded.
    return url.replace("\\", "%5C").replace("{", "%7B").replace("}", "%7D").replace(" ", "%20")


def bibtex_name(full_name: str) -> str:
    """ "Ada King Lovelace" -> "Lovelace, Ada King"; particles stay with the family name."""
    parts = full_name.split()
    if not parts:
        return ""
    if len(parts) == 1 or "," in full_name or _AND_WORD.search(full_name):
        # A mononym, an already inverted name or one containing the word "and" (the name
        # separator): keep it whole as one brace-protected name.
        return "{" + bibtex_escape(full_name) + "}"
    last_start = len(parts) - 1
    while last_start > 1 and parts[last_start - 1].lower() in _PARTICLES:
        last_start -= 1
    first = " ".join(parts[:last_start])
    last = " ".join(parts[last_start:])
    return f"{bibtex_escape(last)}, {bibtex_escape(first)}"


def _authors(paper: Paper) -> list[str]:
    return [authorship.author.name for authorship in paper.authorships.all()]


def _tag_name(paper: Paper, kind: str) -> str:
    for paper_tag in paper.paper_tags.all():
        if paper_tag.tag.kind == kind:
            return paper_tag.tag.name
    return ""


def paper_year(paper: Paper) -> int:
    match = _YEAR.search(_tag_name(paper, TagKind.VENUE))
    return int(match.group()) if match else paper.created_at.year


def _ascii_word(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return _KEY_UNSAFE.sub("", folded)


def _base_key(paper: Paper) -> str:
    authors = _authors(paper)
    family = _ascii_word(authors[0].split()[-1]).lower() if authors else ""
    title_words = [_ascii_word(word) for word in paper.title.split()]
    first_word = next((word.lower() for word in title_words if len(word) > 3), "")
    return f"{family or 'paper'}{paper_year(paper)}{first_word}"


def _unique_keys(papers: list[Paper]) -> list[str]:
    seen: dict[str, int] = {}
    keys = []
    for paper in papers:
        base = _base_key(paper)
        count = seen.get(base, 0)
        seen[base] = count + 1
        keys.append(base if count == 0 else f"{base}-{count + 1}")
    return keys


def bibtex_for_items(items: Iterable[ReadingListItem]) -> str:
    papers = [item.paper for item in items]
    entries = []
    for key, paper in zip(_unique_keys(papers), papers, strict=True):
        fields = [("title", bibtex_escape(paper.display_title))]
        authors = " and ".join(bibtex_name(name) for name in _authors(paper))
        if authors:
            fields.append(("author", authors))
        venue = _tag_name(paper, TagKind.VENUE)
        if venue:
            fields.append(("booktitle", bibtex_escape(venue)))
        fields.append(("year", str(paper_year(paper))))
        if paper.forum_url:
            fields.append(("url", bibtex_url(paper.forum_url)))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@inproceedings{{{key},\n{body}\n}}\n")
    return "\n".join(entries)


def _csv_cell(value: object) -> str:
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA_PREFIXES):
        return "'" + text
    return text


def csv_for_items(items: Iterable[ReadingListItem]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_HEADER)
    for item in items:
        paper = item.paper
        row = [
            paper.display_title,
            "; ".join(_authors(paper)),
            _tag_name(paper, TagKind.VENUE),
            _tag_name(paper, TagKind.TRACK),
            item.get_status_display(),
            item.get_priority_display() if item.priority else "",
            paper.forum_url,
            paper.pdf_url,
        ]
        writer.writerow([_csv_cell(value) for value in row])
    return buffer.getvalue()
