r"""Exports of papers: BibTeX, RIS and CSL-JSON for reference managers, CSV for spreadsheets.

Over 600 lines: the four formats' per-paper writers and the one batched stream they share;
splitting a format away would put its writer apart from the escaping and field rules the
others reuse here.

Any list of papers (a search with its facets, an author's or a tag's papers, a reading list)
is written the same way: each format has one function per paper (`bibtex_entry`,
`ris_record`, `csl_record`, `_csv_row`) and `stream` writes the papers in batches
(annotations.export_data reads them, a batch per database round trip), so memory stays flat
however many papers there are. A paper is an `ExportPaper` of plain values; a Paper instance
(the Cite box's) is turned into one first.

Keys (BibTeX keys, CSL ids) depend on the paper alone, `lovelace2024attention-42` (first
author, year, first long title word, paper id), so the same paper has the same key in every
export and on its page, and keys are unique in any file without remembering the others.
Each paper is cited as what its sources say it is (annotations.citation_types: a journal
article, a conference paper, an arXiv preprint, ...), in the year its venue or its source
gives; a paper with neither has no year (styles print "n.d."), never the year it was added.
Venues are cited by their full name where we know the acronym (`papers.venues`, which the
importer uses to read them back); links are written only when they are http(s) addresses
(`web_url`, as the pages show them).

BibTeX safety rests on one invariant: every field value we write is brace-balanced by
construction. BibTeX (and pybtex, biber) count every `{` and `}` when looking for the end of a
field, even after a backslash, so `\{` does not protect anything. Text therefore never keeps a
brace of its own: braces, backslashes and the other LaTeX specials become text commands
(`\textbraceleft{}`, `\textbackslash{}`, ...), whose only braces are the empty, balanced
pairs we write. A value without a stray brace cannot close its field early, so `@`, `,`, `=`,
`#`, `"` and `%` in a title or name are just characters inside the field.

Just over 600 lines: the four formats' per-paper writers share the name, title and key
helpers above them and are read side by side when a format changes; the data they read
(export_data.py), the files (export_files.py) and the limits (export_limits.py) are apart.

Over 600 lines: the four formats' writers share the paper's fields, the entry-type table
(annotations.citation_types) and one streaming loop; split by format they would each import
the others' helpers. The export jobs, limits and files already have their own modules.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import NamedTuple

from bibtexparser.middlewares.names import parse_single_name_into_parts

from annotations.citation_types import ENTRY_TYPES, EntryType, cited_type
from annotations.export_data import ExportPaper, Row, rows_of_items
from annotations.models import ReadingListItem
from papers.latex import (
    latex_to_plain_text,
    math_spans,
    only_typesets,
    without_latex_commands,
)
from papers.models import Paper, PublicationType
from papers.templatetags.paper_text import web_url
from papers.venues import venue_full_name, venue_year

_AND_WORD = re.compile(r"\band\b", re.IGNORECASE)
# Generational suffixes written after a family name ("John Smith Jr.", "Henry Ford II").
_SUFFIXES = frozenset({"Jr.", "Jr", "Sr.", "Sr", "II", "III", "IV"})
# Particles that, capitalised, still start a family name ("Sylvain Le Corff", "Jean-Claude Van
# Damme"); only the word just before the last one is read so. Short particles that are also
# given names in other languages ("Da", "Di", "Du") are left out.
_CAPITALISED_PARTICLES = frozenset(
    {"Le", "La", "De", "Del", "Della", "Van", "Von", "Der", "Den", "Ten", "Ter", "Dos", "Das"}
)
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
# One pass in C (str.translate): a 10,000-character abstract of specials took a regex callback
# per character, most of a large export's time.
_BIBTEX_TABLE = str.maketrans(_BIBTEX_ESCAPES)
# Escapes that hold no character escaped after them (no backslash, no brace), so a text
# holding only these specials is escaped by one str.replace per special present: each a scan
# in C, where str.translate looks every character up in a dict (30 ns a character).
_REPLACEABLE = frozenset(_BIBTEX_ESCAPES).difference("\\{}")
# Every byte but the specials': deleting them from a text's UTF-8 leaves the specials it holds
# (in UTF-8 an ASCII byte only ever stands for that character). The fastest way to look.
_NOT_SPECIAL_BYTES = bytes(byte for byte in range(256) if chr(byte) not in _BIBTEX_ESCAPES)
# The printable ASCII characters, space included: what most values consist of entirely.
_PRINTABLE_ASCII = bytes(range(0x20, 0x7F))
# Inline math in a title: $...$ with something inside and no dollar sign of its own.
# What still needs a backslash inside math: a comment, a macro parameter, an alignment tab.
_MATH_SPECIAL = re.compile(r"(?<!\\)[%#&]")

# Characters a URL may carry as they are (RFC 3986 unreserved and reserved, plus `%` of an
# existing escape); every other one, braces, backslash, space and non-ASCII included, is
# percent-encoded as UTF-8.
_URL_SAFE = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%"
)

CSV_HEADER = ["title", "authors", "venue", "track", "status", "priority", "url", "pdf"]
# A reading list's own columns, left out when the papers do not come from a list.
_LIST_COLUMNS = ("status", "priority")
# A cell starting with one of these is run as a formula by spreadsheet programs.
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
# What a paper without a title (imported from an abstract alone, waiting for a curator) is
# called where people read it: the CSV and the references formatted on the paper page. Square
# brackets are APA's mark for a description standing in for a missing title, so nobody takes it
# for the paper's own. The formats reference managers import (BibTeX, RIS, CSL-JSON) leave the
# title out instead, as they leave out a missing author: a placeholder there would be stored
# as the paper's title.
UNTITLED = "[Untitled]"


def _plain_text(text: str) -> str:
    """One line of text: control characters and runs of whitespace become one space."""
    # No control character, no whitespace but the ASCII space; for ASCII text, found by
    # deleting the printable bytes (three times faster than str.isprintable).
    if text.isascii():
        printable = not text.encode().translate(None, _PRINTABLE_ASCII)
    else:
        printable = text.isprintable()
    if printable:
        if "  " not in text and not text.startswith(" ") and not text.endswith(" "):
            return text  # most values, kept without building a new string
        return " ".join(text.split())
    return " ".join(_CONTROL.sub(" ", text).split())


def _exported(paper: Paper | ExportPaper) -> ExportPaper:
    return paper if isinstance(paper, ExportPaper) else ExportPaper.of(paper)


def _title(paper: ExportPaper) -> str:
    """The paper's title as one line; "" when it has none (blank, or only spaces)."""
    return _plain_text(paper.title)


def _unicode_title(paper: ExportPaper) -> str:
    """The title as the plain Unicode text a reader sees ("Nearly $d$-Linear" -> "Nearly
    d-Linear", "$\\alpha$TC-VAE" -> "αTC-VAE"): for the formats that carry text, not LaTeX
    (RIS, CSL-JSON and the references formatted from it)."""
    title = paper.title
    if "$" in title or "\\" in title:  # most titles have neither: no LaTeX to read
        return latex_to_plain_text(title)
    return _plain_text(title)


def bibtex_escape(text: str) -> str:
    """Text as a BibTeX field value that reads back as the same text and holds no brace of
    its own, so it cannot end its field or open a new entry."""
    return _escape_specials(_plain_text(text))


def _escape_specials(text: str) -> str:
    specials = set(
        text.encode("utf-8", "surrogatepass").translate(None, _NOT_SPECIAL_BYTES).decode()
    )
    if not specials:  # four texts in five
        return text
    if not specials.issubset(_REPLACEABLE):
        return text.translate(_BIBTEX_TABLE)
    for special in specials:
        text = text.replace(special, _BIBTEX_ESCAPES[special])
    return text


def bibtex_title(text: str, *, protect_case: bool = False) -> str:
    """A title as a BibTeX value with its inline math kept as math: "$\\alpha$TC-VAE" becomes
    "{$\\alpha$}TC-VAE" (braced, so styles do not change its case). With `protect_case`, each
    word holding a capital is braced too ("{Monte} {Carlo}"), as reference managers write
    titles, so a style that lower-cases titles keeps "Monte Carlo", "Bayesian", "GAN". Math is
    the text between two dollar signs as the paper's page finds it (papers.latex.math_spans:
    "\\$" is a dollar, not a delimiter), whose braces balance and whose commands only typeset
    (no \\input or \\write18 reaches a reader's LaTeX run); inside it only %, # and & are
    escaped (each means something else to LaTeX even in math), so the field stays
    brace-balanced. Everything else, an unbalanced "math" part included, is escaped as plain
    text."""
    text = _plain_text(text)
    escape = _escaped_and_protected if protect_case else _escape_specials
    if "$" not in text:  # only $...$ is kept as math: most titles and abstracts have none
        return escape(text)
    pieces = []
    position = 0
    for start, end in math_spans(text):
        if text.startswith("$$", start) or not text.startswith("$", start):
            continue  # display math and \\(...\\): escaped as text
        formula = text[start + 1 : end - 1]
        if not (_is_brace_balanced(formula) and only_typesets(formula)):
            continue
        pieces.append(escape(text[position:start]))
        pieces.append("{$" + _MATH_SPECIAL.sub(lambda m: "\\" + m.group(), formula) + "$}")
        position = end
    pieces.append(escape(text[position:]))
    return "".join(pieces)


def _escaped_and_protected(text: str) -> str:
    """Escaped text with each word that holds a capital in one pair of braces. The escapes'
    own braces are balanced, so a braced word is too."""
    words = _escape_specials(text).split(" ")
    return " ".join("{" + word + "}" if word.lower() != word else word for word in words)


def bibtex_url(url: str) -> str:
    # url is a verbatim field for biblatex: LaTeX escapes would end up in the link, so
    # characters that are not URL characters (braces and backslash among them) are
    # percent-encoded instead; the link stays usable and the field brace-free.
    url = url.strip()
    if _URL_SAFE.issuperset(url):  # nearly every link: kept as it is, in one pass in C
        return url
    return "".join(
        ch if ch in _URL_SAFE else "".join(f"%{byte:02X}" for byte in ch.encode()) for ch in url
    )


# The same authors come back paper after paper in an export (ten times each, on average, in
# a catalogue of 100,000 papers): each name is cleaned and split once while it keeps coming.
_NAMES_KEPT = 65536


class NameParts(NamedTuple):
    family: str  # with its particles: "van der Maaten", "Le Corff"
    given: str
    suffix: str = ""  # "Jr.", "III"


@functools.lru_cache(maxsize=_NAMES_KEPT)
def _person(full_name: str) -> tuple[str, NameParts | None]:
    """(the name as one line, its parts by name_parts or None)."""
    name = _plain_text(full_name)
    return name, name_parts(name) if name else None


@functools.lru_cache(maxsize=_NAMES_KEPT)
def bibtex_name(full_name: str) -> str:
    """One person as exactly one BibTeX name: "Ada King Lovelace" -> "Lovelace, Ada King",
    "John Smith Jr." -> "Smith, Jr., John" (BibTeX's form with a suffix).

    The parts are name_parts': lower-case words before the family name are its "von" part and
    stay with it ("Ludwig van Beethoven" -> "van Beethoven, Ludwig"), and so does a capitalised
    particle ("Sylvain Le Corff" -> "Le Corff, Sylvain"). A name that cannot be inverted
    safely (one word, a comma of its own, the word "and", BibTeX's name separator) is kept
    whole inside one pair of braces. Either way the
    escaped words hold no brace, comma or "and" that BibTeX could split on, so the result is
    "" (nothing to write) or one name.
    """
    name, parts = _person(full_name)
    if not name:
        return ""
    if parts is None:
        return "{" + _escape_specials(name) + "}"
    family, given, suffix = (_escape_specials(part) for part in parts)
    if suffix:
        return f"{family}, {suffix}, {given}"
    return f"{family}, {given}" if given else family


def name_parts(name: str) -> NameParts | None:
    """The family name (with its particles), given names and suffix of a one-line name, by
    BibTeX's rules (bibtexparser's splitter) with two additions reference managers make: a
    suffix after the family name ("Jr.", "III") is its own part, and a capitalised particle
    just before the family name belongs to it ("Le Corff", "Van Damme"; BibTeX would call "Le"
    a given name). None for a name that cannot be inverted safely (one word, a comma of its
    own, or the word "and", BibTeX's name separator)."""
    if " " not in name or "," in name or _AND_WORD.search(name):
        return None
    words = name.split(" ")
    suffix = ""
    if len(words) > 2 and words[-1] in _SUFFIXES:
        suffix, words = words[-1], words[:-1]
    if not any(word[:1].islower() for word in words):
        # No "von" part: BibTeX's family name is the last word, the rest are given names,
        # but a capitalised particle before it joins it.
        cut = len(words) - 1
        if cut > 1 and words[cut - 1] in _CAPITALISED_PARTICLES:
            cut -= 1
        return NameParts(" ".join(words[cut:]), " ".join(words[:cut]), suffix)
    # The splitter reads BibTeX, where braces and backslashes mean something, and our names are
    # plain text: it is given a stand-in per word of the same case ("A0 A1 a2 A3"), and the
    # parts it returns are mapped back to the words.
    stand_ins = " ".join(f"{'a' if word[:1].islower() else 'A'}{i}" for i, word in enumerate(words))
    family, given = _split_stand_ins(stand_ins)
    return NameParts(" ".join(words[i] for i in family), " ".join(words[i] for i in given), suffix)


# The split depends on the words' cases alone, and a few case patterns cover most names.
@functools.lru_cache(maxsize=1024)
def _split_stand_ins(stand_ins: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(family word positions, given word positions) of a name of stand-ins."""
    parts = parse_single_name_into_parts(stand_ins, strict=True)
    return (
        tuple(int(word[1:]) for word in parts.von + parts.last),
        tuple(int(word[1:]) for word in parts.first),
    )


# Every byte value but the two braces. In UTF-8 a brace is one byte, and no other character
# uses the byte of a brace.
_NOT_BRACE_BYTES = bytes(byte for byte in range(256) if byte not in b"{}")
_BRACE_STEP = [0] * 256
_BRACE_STEP[ord("{")], _BRACE_STEP[ord("}")] = 1, -1


def _is_brace_balanced(value: str) -> bool:
    """Whether every `}` closes an earlier `{` and every `{` is closed. Counts every brace,
    escaped or not, the way BibTeX does.

    Linear, with the loops in C: an author field of 2,000 names is megabytes long. The braces
    are picked out of the UTF-8 bytes, adjacent pairs are dropped a few times over (taking out
    an adjacent `{}` never changes whether a sequence balances: the escapers' empty pairs, a
    braced word, math in braces), and the depth is followed over what is left.
    """
    braces = value.encode("utf-8", "surrogatepass").translate(None, _NOT_BRACE_BYTES)
    for _ in range(3):  # a braced word, math in braces: most values are settled in a pass or two
        braces = braces.replace(b"{}", b"")
    if not braces:
        return True
    if braces.count(b"{") != braces.count(b"}"):
        return False
    depths = accumulate(map(_BRACE_STEP.__getitem__, braces), initial=0)
    return min(depths) >= 0  # never closes more than it opened


def _bibtex_field(name: str, value: str) -> str:
    if ("{" in value or "}" in value) and not _is_brace_balanced(value):
        # Unreachable through the escapers above; a guard against a future regression.
        raise ValueError(f"unbalanced braces in the BibTeX {name} field")
    return f"  {name} = {{{value}}}"


def paper_year(paper: Paper | ExportPaper) -> int | None:
    """The year a citation gives: the venue's ("ICLR 2024") for a paper published there, else
    the year a source gave (a journal's, a preprint's first version's). A preprint's own year
    comes first: the venue it was submitted to is not its date. None when neither says
    (citations then say "n.d."): never the year the paper was added here."""
    paper = _exported(paper)
    named = venue_year(paper.venue)
    if _cited_type(paper) == PublicationType.PREPRINT:
        return paper.year or named
    return named or paper.year


def _cited_type(paper: ExportPaper) -> PublicationType:
    return cited_type(paper.publication_type, paper.venue, paper.arxiv_id)


def _entry_type(paper: ExportPaper) -> EntryType:
    return ENTRY_TYPES[_cited_type(paper)]


def _preprint_server(paper: ExportPaper) -> str:
    """Where a preprint was posted, as citations name it ("arXiv"); "" for anything else."""
    is_preprint = _cited_type(paper) == PublicationType.PREPRINT
    return "arXiv" if is_preprint and paper.arxiv_id else ""


# --- Venues ---------------------------------------------------------------------------------

# The full names of well-known venues: papers.venues (the importer reads them back).


def _keywords(paper: ExportPaper) -> list[str]:
    return [keyword for keyword in map(_plain_text, paper.keywords) if keyword]


def _venue(paper: ExportPaper) -> str:
    return _venue_name(paper.venue)


@functools.lru_cache(maxsize=1024)
def _venue_name(venue: str) -> str:
    return venue_full_name(_plain_text(venue))


# --- Keys -------------------------------------------------------------------------------------


def _ascii_word(text: str) -> str:
    if text.isascii() and text.isalnum():
        return text
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return _KEY_UNSAFE.sub("", folded)


def citation_key(paper: Paper | ExportPaper) -> str:
    """The paper's key in every export: first author's family name (its last word: "Le
    Corff" gives "corff", "Smith Jr." "smith"), year, first title word of more than three
    letters (plain ASCII, LaTeX command names left out: "$\\mathcal{B}$-Coder" gives
    "bcoder"), then the paper's id, which makes it unique and the same whichever papers are
    exported with it. A paper without authors is named by its title instead: its first long
    word, the year, its second ("matryoshka2024representation-363")."""
    paper = _exported(paper)
    title = without_latex_commands(paper.title) if "\\" in paper.title else paper.title
    # Read lazily: the first long word or two are all a key needs.
    title_words = (word.lower() for word in map(_ascii_word, title.split()) if len(word) > 3)
    family = _family_word(paper.authors[0]) if paper.authors else ""
    if not family:
        family = next(title_words, "")
    first_word = next(title_words, "")
    year = paper_year(paper) or ""
    base = f"{family[:_KEY_PART_MAX] or 'paper'}{year}{first_word[:_KEY_PART_MAX]}"
    return f"{base}-{paper.pk}"


def _family_word(full_name: str) -> str:
    name, parts = _person(full_name)
    words = (parts.family if parts else name).split()
    return _ascii_word(words[-1]).lower() if words else ""


# --- One paper in each format -----------------------------------------------------------------


def bibtex_entry(paper: Paper | ExportPaper, *, with_abstract: bool = False) -> str:
    """One entry, of the type the paper's publication type gives (annotations.citation_types:
    @article with its journal, @inproceedings with its booktitle, a preprint's @misc with its
    eprint, archivePrefix and primaryClass, and `howpublished = {arXiv}` and the arXiv number
    as Zotero writes them, so that APA says "arXiv"). Title, author and year fields only when
    the paper has them: a missing one is left out, never invented (and never an empty
    `title = {}`). `with_abstract`: the abstract and keywords too, as reference managers
    export them (a citation to paste has no use for them)."""
    paper = _exported(paper)
    kind = _entry_type(paper)
    title = _title(paper)
    fields = [("title", bibtex_title(title, protect_case=True))] if title else []
    names = [bibtex_name(name) for name in paper.authors]
    authors = " and ".join(name for name in names if name)
    if authors:
        fields.append(("author", authors))
    venue = _venue(paper)
    if venue and kind.bibtex_venue:
        # A venue's name is a proper name, braced whole so that a style that lower-cases
        # (pandoc's IEEE) keeps "Conference on Learning Representations" as it is.
        fields.append((kind.bibtex_venue, "{" + bibtex_escape(venue) + "}"))
    if server := _preprint_server(paper):
        fields += [("howpublished", server), ("number", f"{server}:{paper.arxiv_id}")]
    if year := paper_year(paper):
        fields.append(("year", str(year)))
    if web_url(paper.forum_url):
        fields.append(("url", bibtex_url(paper.forum_url)))
    if paper.doi:
        fields.append(("doi", bibtex_url(paper.doi)))  # printed verbatim, like a URL
    if paper.arxiv_id:
        fields += [("eprint", paper.arxiv_id), ("archivePrefix", "arXiv")]
        if paper.primary_class:
            fields.append(("primaryClass", paper.primary_class))
    if with_abstract:
        # Math kept as math where it only typesets, the rest escaped: read back, the same text.
        if paper.abstract.strip():
            fields.append(("abstract", bibtex_title(paper.abstract)))
        if keywords := _keywords(paper):
            fields.append(("keywords", bibtex_escape(", ".join(keywords))))
    if paper.note.strip():
        fields.append(("note", bibtex_escape(paper.note)))
    body = ",\n".join(_bibtex_field(name, value) for name, value in fields)
    return f"@{kind.bibtex}{{{citation_key(paper)},\n{body}\n}}\n"


def ris_record(paper: Paper | ExportPaper) -> str:
    """One record (JOUR, CPAPER, UNPB for a preprint, ...: annotations.citation_types), as
    Zotero, EndNote and Mendeley import it. Every value is one line (control characters and
    line breaks become spaces), so no value can end its record or start a tag of its own. An
    untitled or undated paper has no TI or PY line (empty values are left out)."""
    paper = _exported(paper)
    kind = _entry_type(paper)
    fields = [("TY", kind.ris), ("TI", _unicode_title(paper))]
    for full_name in paper.authors:
        name, parts = _person(full_name)
        # The RIS form: "Family, Given, Suffix".
        fields.append(("AU", ", ".join(p for p in parts if p) if parts else name))
    fields += [
        ("PY", str(paper_year(paper) or "")),
        ("T2", _venue(paper) if kind.cites_venue else ""),
        ("PB", _preprint_server(paper)),
        ("UR", web_url(paper.forum_url)),
        ("L1", web_url(paper.pdf_url)),
        ("DO", paper.doi),
        ("AB", paper.abstract),
        *(("KW", keyword) for keyword in _keywords(paper)),
        ("N1", paper.note),
    ]
    plain = ((tag, _plain_text(value)) for tag, value in fields)
    lines = [f"{tag}  - {value}" for tag, value in plain if value]
    return "".join(f"{line}\r\n" for line in [*lines, "ER  - "])  # the specification's line end


def csl_record(paper: Paper | ExportPaper) -> dict[str, object]:
    """One item of CSL-JSON, the citation data of citeproc, Zotero and pandoc, with the BibTeX
    key as its id and the type the paper's publication type gives (a preprint is an "article"
    published by arXiv, numbered "arXiv:2402.01234", as APA cites it). No title for an
    untitled paper (see UNTITLED), no date for an undated one (styles say "n.d.")."""
    paper = _exported(paper)
    kind = _entry_type(paper)
    record: dict[str, object] = {
        "id": citation_key(paper),
        "type": kind.csl,
        "author": [_csl_name(name) for name in map(_person, paper.authors) if name[0]],
    }
    if year := paper_year(paper):
        record["issued"] = {"date-parts": [[year]]}
    server = _preprint_server(paper)
    optional = {
        "title": _unicode_title(paper),
        "container-title": _venue(paper) if kind.cites_venue else "",
        "publisher": server,
        "number": f"{server}:{paper.arxiv_id}" if server else "",
        "URL": web_url(paper.forum_url),
        "DOI": paper.doi,
        "abstract": _plain_text(paper.abstract),
        "keyword": ", ".join(_keywords(paper)),
    }
    return record | {name: value for name, value in optional.items() if value}


def _csl_name(person: tuple[str, NameParts | None]) -> dict[str, str]:
    name, parts = person
    if parts is None:
        return {"literal": name}
    fields = {"family": parts.family, "given": parts.given, "suffix": parts.suffix}
    return {key: value for key, value in fields.items() if value}


def _csv_cell(value: object) -> str:
    text = "" if value is None else str(value)
    if text.startswith(_FORMULA_PREFIXES):
        return "'" + text
    return text


def _csv_line(cells: Iterable[object]) -> str:
    buffer = io.StringIO()
    csv.writer(buffer).writerow([_csv_cell(value) for value in cells])
    return buffer.getvalue()


def _csv_row(row: Row) -> list[object]:
    """The paper's cells under CSV_HEADER; a reading list's item adds its status and
    priority."""
    paper = row.paper
    cells: list[object] = [
        paper.title if _title(paper) else UNTITLED,
        "; ".join(paper.authors),
        paper.venue,
        paper.track,
    ]
    if row.list_cells is not None:
        cells += row.list_cells
    return [*cells, web_url(paper.forum_url), web_url(paper.pdf_url)]


# --- Whole files, streamed --------------------------------------------------------------------


@dataclass(frozen=True)
class Format:
    """How a file is put together: what opens it (given whether rows carry a reading list's
    columns), each row, what goes between two rows and what closes it."""

    extension: str
    content_type: str
    opening: Callable[[bool], str]
    row: Callable[[Row], str]
    between: str = ""
    closing: str = ""


# Excel reads a CSV file without it in the machine's legacy code page ("JosÃ©" for "José");
# with it, as UTF-8. Spreadsheets, pandas and our importer all take it.
UTF8_BOM = "\ufeff"


def _csv_header(list_columns: bool) -> str:
    names = (name for name in CSV_HEADER if list_columns or name not in _LIST_COLUMNS)
    return UTF8_BOM + _csv_line(names)


FORMATS = {
    "bib": Format(
        "bib",
        "application/x-bibtex; charset=utf-8",
        opening=lambda _: "",
        row=lambda row: bibtex_entry(row.paper, with_abstract=True),
        between="\n",
    ),
    "ris": Format(
        "ris",
        "application/x-research-info-systems; charset=utf-8",
        opening=lambda _: "",
        row=lambda row: ris_record(row.paper),
        between="\r\n",
    ),
    # One JSON array, however many batches: the brackets open and close the file, the rows
    # are separated by commas.
    "json": Format(
        "json",
        "application/vnd.citationstyles.csl+json; charset=utf-8",
        opening=lambda _: "[\n",
        # A record a line: json's indented output is written in Python, several times slower.
        row=lambda row: json.dumps(csl_record(row.paper), ensure_ascii=False),
        between=",\n",
        closing="\n]\n",
    ),
    "csv": Format(
        "csv",
        "text/csv; charset=utf-8",
        opening=_csv_header,
        row=lambda row: _csv_line(_csv_row(row)),
    ),
}


def stream(
    fmt: Format, batches: Iterable[Sequence[Row]], *, list_columns: bool = False
) -> Iterator[str]:
    """The file in pieces, one per batch of rows: what a StreamingHttpResponse sends."""
    yield fmt.opening(list_columns)
    first = True
    for batch in batches:
        if not batch:
            continue
        text = fmt.between.join(fmt.row(row) for row in batch)
        yield text if first else fmt.between + text
        first = False
    yield fmt.closing


def _whole(extension: str, items: Iterable[ReadingListItem]) -> str:
    """Reading-list items (selectors.list_items_for_export) as one string: for callers that
    hold a few items already, such as tests feeding stand-ins without a database."""
    rows = rows_of_items(items)
    return "".join(stream(FORMATS[extension], [rows], list_columns=True))


def bibtex_for_items(items: Iterable[ReadingListItem]) -> str:
    return _whole("bib", items)


def csv_for_items(items: Iterable[ReadingListItem]) -> str:
    return _whole("csv", items)
