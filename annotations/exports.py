r"""Reading-list exports: BibTeX, RIS and CSL-JSON for reference managers, CSV for spreadsheets.

Both take reading-list items from selectors.list_items_for_export: papers with their tags
prefetched and every author's name, in order, as `paper.author_list` (plain strings, no model
instances), so an export runs a fixed number of queries whatever the list's size.

BibTeX safety rests on one invariant: every field value we write is brace-balanced by
construction. BibTeX (and pybtex, biber) count every `{` and `}` when looking for the end of a
field, even after a backslash, so `\{` does not protect anything. Text therefore never keeps a
brace of its own: braces, backslashes and the other LaTeX specials become text commands
(`\textbraceleft{}`, `\textbackslash{}`, ...), whose only braces are the empty, balanced
pairs we write. A value without a stray brace cannot close its field early, so `@`, `,`, `=`,
`#`, `"` and `%` in a title or name are just characters inside the field.
"""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata
from collections.abc import Iterable
from itertools import accumulate

from bibtexparser.middlewares.names import parse_single_name_into_parts

from annotations.models import ReadingListItem
from papers.models import Paper, TagKind

_YEAR = re.compile(r"\b(19|20)\d{2}\b")
_AND_WORD = re.compile(r"\band\b", re.IGNORECASE)
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9]+")
_KEY_PART_MAX = 30
# Control characters (NUL, escape, C1 controls) and lone surrogates: not text, and a surrogate
# cannot even be encoded as UTF-8. Each becomes a space before whitespace is collapsed.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# LaTeX special characters and how a BibTeX field spells them so the text survives unchanged.
# Braces and the backslash must become brace-free commands (see the module docstring); the
# trailing `{}` ends the command name without swallowing a following space.
_BIBTEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_BIBTEX_SPECIAL = re.compile("|".join(re.escape(ch) for ch in _BIBTEX_ESCAPES))
# Inline math in a title: $...$ with something inside and no dollar sign of its own.
_INLINE_MATH = re.compile(r"\$([^$]+)\$")
# What still needs a backslash inside math: a comment, a macro parameter, an alignment tab.
_MATH_SPECIAL = re.compile(r"(?<!\\)[%#&]")

# Characters a URL may carry as they are (RFC 3986 unreserved and reserved, plus `%` of an
# existing escape); every other one, braces, backslash, space and non-ASCII included, is
# percent-encoded as UTF-8.
_URL_SAFE = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%"
)

CSV_HEADER = ["title", "authors", "venue", "track", "status", "priority", "url", "pdf"]
# A cell starting with one of these is run as a formula by spreadsheet programs.
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def _plain_text(text: str) -> str:
    """One line of text: control characters and runs of whitespace become one space."""
    return " ".join(_CONTROL.sub(" ", text).split())


def bibtex_escape(text: str) -> str:
    """Text as a BibTeX field value that reads back as the same text and holds no brace of
    its own, so it cannot end its field or open a new entry."""
    return _escape_specials(_plain_text(text))


def _escape_specials(text: str) -> str:
    return _BIBTEX_SPECIAL.sub(lambda match: _BIBTEX_ESCAPES[match.group()], text)


def bibtex_title(text: str) -> str:
    """A title as a BibTeX value with its inline math kept as math: "$\\alpha$TC-VAE" becomes
    "{$\\alpha$}TC-VAE" (braced, so styles do not change its case). Math is the text between
    two dollar signs whose braces balance; inside it only %, # and & are escaped (each means
    something else to LaTeX even in math), so the field stays brace-balanced. Everything else,
    an unbalanced "math" part included, is escaped as plain text."""
    text = _plain_text(text)
    pieces = []
    position = 0
    for match in _INLINE_MATH.finditer(text):
        formula = match.group(1)
        if not _is_brace_balanced(formula):
            continue
        pieces.append(_escape_specials(text[position : match.start()]))
        pieces.append("{$" + _MATH_SPECIAL.sub(lambda m: "\\" + m.group(), formula) + "$}")
        position = match.end()
    pieces.append(_escape_specials(text[position:]))
    return "".join(pieces)


def bibtex_url(url: str) -> str:
    # url is a verbatim field for biblatex: LaTeX escapes would end up in the link, so
    # characters that are not URL characters (braces and backslash among them) are
    # percent-encoded instead; the link stays usable and the field brace-free.
    return "".join(
        ch if ch in _URL_SAFE else "".join(f"%{byte:02X}" for byte in ch.encode())
        for ch in url.strip()
    )


def bibtex_name(full_name: str) -> str:
    """One person as exactly one BibTeX name: "Ada King Lovelace" -> "Lovelace, Ada King".

    The parts are BibTeX's own (bibtexparser's splitter): lower-case words before the family
    name are its "von" part and stay with it ("Ludwig van Beethoven" -> "van Beethoven,
    Ludwig"). A name that cannot be inverted safely (one word, a comma of its own, the word
    "and", BibTeX's name separator) is kept whole inside one pair of braces. Either way the
    escaped words hold no brace, comma or "and" that BibTeX could split on, so the result is
    "" (nothing to write) or one name.
    """
    name = _plain_text(full_name)
    if not name:
        return ""
    parts = name_parts(name)
    if parts is None:
        return "{" + bibtex_escape(name) + "}"
    family, given = (bibtex_escape(part) for part in parts)
    return f"{family}, {given}" if given else family


def name_parts(name: str) -> tuple[str, str] | None:
    """(family name with its "von" part, given names) of a one-line name by BibTeX's rules;
    None for a name that cannot be inverted safely (one word, a comma of its own, or the word
    "and", BibTeX's name separator)."""
    if " " not in name or "," in name or _AND_WORD.search(name):
        return None
    # The splitter reads BibTeX, where braces and backslashes mean something, and our names are
    # plain text: it is given a stand-in per word of the same case ("A0 A1 a2 A3"), and the
    # parts it returns are mapped back to the words.
    words = name.split(" ")
    stand_ins = [f"{'a' if word[:1].islower() else 'A'}{i}" for i, word in enumerate(words)]
    parts = parse_single_name_into_parts(" ".join(stand_ins), strict=True)

    def text(part: list[str]) -> str:
        return " ".join(words[int(stand_in[1:])] for stand_in in part)

    return text(parts.von + parts.last), text(parts.first)


# Every byte value but the two braces. In UTF-8 a brace is one byte, and no other character
# uses the byte of a brace.
_NOT_BRACE_BYTES = bytes(byte for byte in range(256) if byte not in b"{}")
_BRACE_STEP = [0] * 256
_BRACE_STEP[ord("{")], _BRACE_STEP[ord("}")] = 1, -1


def _is_brace_balanced(value: str) -> bool:
    """Whether every `}` closes an earlier `{` and every `{` is closed. Counts every brace,
    escaped or not, the way BibTeX does.

    Linear, with the loops in C: an author field of 2,000 names is megabytes long. The braces
    are picked out of the UTF-8 bytes, the empty pairs the escapers write are dropped (taking
    out an adjacent `{}` never changes whether a sequence balances), and the depth is followed
    over what is left.
    """
    braces = value.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACE_BYTES)
    braces = braces.replace(b"{}", b"")
    if braces.count(b"{") != braces.count(b"}"):
        return False
    depths = accumulate(map(_BRACE_STEP.__getitem__, braces), initial=0)
    return min(depths) >= 0  # never closes more than it opened


def _bibtex_field(name: str, value: str) -> str:
    if not _is_brace_balanced(value):
        # Unreachable through the escapers above; a guard against a future regression.
        raise ValueError(f"unbalanced braces in the BibTeX {name} field")
    return f"  {name} = {{{value}}}"


def _authors(paper: Paper) -> list[str]:
    return paper.author_list  # every author, in order (selectors.list_items_for_export)


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
    first_author_words = authors[0].split() if authors else []
    family = _ascii_word(first_author_words[-1]).lower() if first_author_words else ""
    title_words = [_ascii_word(word) for word in paper.title.split()]
    first_word = next((word.lower() for word in title_words if len(word) > 3), "")
    return f"{family[:_KEY_PART_MAX] or 'paper'}{paper_year(paper)}{first_word[:_KEY_PART_MAX]}"


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
        fields = [("title", bibtex_title(paper.display_title))]
        names = [bibtex_name(name) for name in _authors(paper)]
        authors = " and ".join(name for name in names if name)
        if authors:
            fields.append(("author", authors))
        venue = _tag_name(paper, TagKind.VENUE)
        if venue:
            fields.append(("booktitle", bibtex_escape(venue)))
        fields.append(("year", str(paper_year(paper))))
        if paper.forum_url:
            fields.append(("url", bibtex_url(paper.forum_url)))
        if paper.doi:
            fields.append(("doi", bibtex_url(paper.doi)))  # printed verbatim, like a URL
        if paper.arxiv_id:
            fields += [("eprint", paper.arxiv_id), ("archivePrefix", "arXiv")]
        body = ",\n".join(_bibtex_field(name, value) for name, value in fields)
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


def ris_for_items(items: Iterable[ReadingListItem]) -> str:
    """RIS, as Zotero, EndNote and Mendeley import it: one CPAPER record per paper. Every
    value is one line (control characters and line breaks become spaces), so no value can end
    its record or start a tag of its own."""
    lines = []
    for item in items:
        paper = item.paper
        fields = [("TY", "CPAPER"), ("TI", paper.display_title)]
        for name in _authors(paper):
            parts = name_parts(_plain_text(name))
            fields.append(("AU", ", ".join(p for p in parts if p) if parts else name))
        fields += [
            ("PY", str(paper_year(paper))),
            ("T2", _tag_name(paper, TagKind.VENUE)),
            ("UR", paper.forum_url),
            ("L1", paper.pdf_url),
            ("DO", paper.doi),
        ]
        lines += [f"{tag}  - {_plain_text(value)}" for tag, value in fields if _plain_text(value)]
        lines.append("ER  - ")
        lines.append("")
    return "\r\n".join(lines)  # the RIS specification's line end


def csl_json_for_items(items: Iterable[ReadingListItem]) -> str:
    """CSL-JSON, the citation data of citeproc, Zotero and pandoc: a list of paper-conference
    items with the BibTeX export's keys as ids."""
    items = list(items)
    papers = [item.paper for item in items]
    records = []
    for key, paper in zip(_unique_keys(papers), papers, strict=True):
        record: dict[str, object] = {
            "id": key,
            "type": "paper-conference",
            "title": _plain_text(paper.display_title),
            "author": [_csl_name(name) for name in _authors(paper) if _plain_text(name)],
            "issued": {"date-parts": [[paper_year(paper)]]},
        }
        optional = {
            "container-title": _tag_name(paper, TagKind.VENUE),
            "URL": paper.forum_url,
            "DOI": paper.doi,
        }
        record |= {name: value for name, value in optional.items() if value}
        records.append(record)
    return json.dumps(records, ensure_ascii=False, indent=2)


def _csl_name(full_name: str) -> dict[str, str]:
    name = _plain_text(full_name)
    parts = name_parts(name)
    if parts is None:
        return {"literal": name}
    family, given = parts
    return {"family": family, "given": given} if given else {"family": family}
