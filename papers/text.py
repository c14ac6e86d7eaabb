"""Catalogue rules shared by the models, the importer, the admin and the annotation forms.

Pure functions and constants, no database: the length limits on what enters the catalogue, and
the normalisation under which two spellings are the same thing. A tag's name, key and slug
have their own home, papers.tags.identity.
"""

from __future__ import annotations

import functools
import hashlib
import math
import re
import unicodedata
from collections.abc import Callable
from urllib.parse import parse_qs, urlsplit

# Limits on text entering the database, enforced by the importer (file:line errors), the admin
# and the forms alike. They bound the work any single value can cause when it is rendered,
# searched or exported; real ICLR 2024 data stays far below them (longest abstract: 3,090
# characters, longest title: 138, longest author name: 30).
MAX_TITLE = 500
MAX_ABSTRACT = 10_000
MAX_AUTHOR_NAME = 300
MAX_AUTHORS_PER_PAPER = 2_000
# The stored author list (display names joined by ", ") feeds PostgreSQL's search vector, which
# holds at most 1 MB: 2,000 names of 300 Cyrillic characters would overflow it. 100,000
# characters stay far below that in any script and are 4x the longest real list.
MAX_AUTHOR_LIST = 100_000
MAX_TAG_NAME = 100  # venue, track and lab tags
MAX_TAGS_PER_PAPER = 100  # imported tags of one record
MAX_URL = 500
MAX_FORUM_ID = 100
MAX_ARXIV_ID = 50
# A source as the import history names it: a file name, or "openreview:" + a venue id.
MAX_SOURCE_NAME = 200
MAX_DOI = 200
MAX_OPENREVIEW_ID = 100  # an author's OpenReview profile id, "~Jane_Doe1"
MAX_BODY = 20_000  # a note or a comment
# A review's text field and a score's label ("6: marginally above the acceptance threshold").
# OpenReview's forms allow 200,000 characters a field; reviews are rendered as Markdown when
# shown (~13 µs a character at worst, 0.65 s for 50,000 hostile ones), and real ones are far
# shorter, so a longer field is cut.
MAX_REVIEW_TEXT = 50_000
MAX_REVIEW_LABEL = 500

_NAME_PUNCTUATION = re.compile(r"[.,]")


def utf8_size(text: str) -> int:
    """How many bytes `text` takes as UTF-8 (a lone surrogate counted as written by a JSON
    escape would be)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


# Control characters but tab and newline (NUL cannot even be stored by PostgreSQL).
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def without_control_characters(text: str) -> str:
    """`text` with each control character (C0 and C1, but tab and newline) as a space: what
    is left of a value kept as written when it could not be read as LaTeX."""
    return _CONTROL_CHARACTERS.sub(" ", text)


def collapse_whitespace(value: str) -> str:
    # str.split() and the regex \s agree on every code point (checked over all of Unicode);
    # split is three times faster, and an import calls this for every name it reads.
    return " ".join(value.split())


# The same names and tags come back in record after record of an import: each is normalised
# once. Pure functions of a string, so the caches never hold a stale answer.
_NORMALISED = functools.lru_cache(maxsize=1 << 16)


def is_number(text: str) -> bool:
    """Whether `text` is a whole number as a URL or a form writes one: ASCII digits only ("²"
    and "٣" are digits to str.isdigit() but not numbers to int())."""
    return text.isascii() and text.isdigit()


@_NORMALISED
def normalize_author_name(name: str) -> str:
    """Key that matches "Christopher D. Manning" and "christopher d manning".

    Invisible format characters (zero-width joiners, soft hyphens) are not part of the key,
    and a zero-width space separates words like a space: "\u200bZed Zero" is "Zed Zero".
    """
    name = unicodedata.normalize("NFKC", name)
    if not name.isascii():
        name = _without_format_characters(name)
    name = _NAME_PUNCTUATION.sub(" ", name)
    return collapse_whitespace(name).casefold()


# Letters that Unicode does not decompose into a base letter and an accent, as ASCII spells them.
_LETTERS_TO_ASCII = str.maketrans(
    {"æ": "ae", "œ": "oe", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"}
)
_LATIN_ACCENTS = re.compile("[\u0300-\u036f]+")


@_NORMALISED
def fold_author_name(name: str) -> str:
    """normalize_author_name without accents on Latin letters: what a search for an author
    compares, so "muller" and "Müller" both find "Jürgen Müller" (and "Muller")."""
    return without_latin_accents(normalize_author_name(name))


def without_latin_accents(text: str) -> str:
    """`text` with its Latin letters' accents dropped ("ö" -> "o", "ł" -> "l"); ASCII as is."""
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text.translate(_LETTERS_TO_ASCII))
    return unicodedata.normalize("NFC", _LATIN_ACCENTS.sub("", decomposed))


# A LaTeX command wrapping a group ("\\mathcal{B}", "\\texttt{NAISR}") only styles the group: the
# reader reads the group. Possessive, so a long run of letters is scanned once.
_LATEX_STYLE_COMMAND = re.compile(r"\\[a-z]++(?=\{[^}])")
_LATEX_MARKUP = str.maketrans("", "", "${}")


def title_sort_key(title: str) -> str:
    """Where a title goes in the title order, as a reader alphabetises: case and Latin accents
    ignored ("éclair" with "Eclair", before "zebra"), and whatever comes before the first
    letter or digit too (quotes, spaces, LaTeX: "$\\alpha$-nets" under A). Math delimiters,
    braces and the commands that style a group are not read ("$\\mathcal{B}$-Coder" under B)."""
    folded = without_latin_accents(title.casefold()).casefold()
    if "$" in folded or "{" in folded:
        folded = _LATEX_STYLE_COMMAND.sub("", folded).translate(_LATEX_MARKUP)
    start = next((i for i, char in enumerate(folded) if char.isalnum()), len(folded))
    return folded[start:].replace("\x00", "")


def _without_format_characters(text: str) -> str:
    text = text.replace("\u200b", " ")
    return "".join(char for char in text if unicodedata.category(char) != "Cf")


ELLIPSIS = "…"
# A cut that would keep less than this share of the limit cuts mid-word instead: one
# 400-character "word" (a URL) should not lose everything.
_WORD_CUT_SHARE = 0.5


def cut_at_word(text: str, limit: int, measure: Callable[[str], int] = len) -> str:
    """`text` cut to at most `limit` (as `measure` counts it) at a word boundary, an ellipsis
    marking the cut; `text` itself when it fits."""
    if measure(text) <= limit:
        return text
    size = limit - 1
    while size > 0:
        cut = text[:size]
        space = cut.rfind(" ")
        if space >= size * _WORD_CUT_SHARE:
            cut = cut[:space]
        shortened = cut.rstrip() + ELLIPSIS
        over = measure(shortened) - limit
        if over <= 0:
            return shortened
        # NFKC, case folding or a byte count measured it longer than its characters: cut the
        # characters that the excess stands for, in proportion (at least one).
        size -= max(1, math.ceil(over * len(shortened) / measure(shortened)))
    return ""


# Bidirectional controls reorder the text around them: "\u202egat" shows as "tag".
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# Letters and symbols that render as blank space (Hangul fillers, the blank Braille pattern).
_BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Printable ASCII but the space: letters, digits, punctuation and symbols, all visible.
_ASCII_VISIBLE = re.compile(r"[!-~]")


def has_visible_character(text: str) -> bool:
    """Whether `text` shows anything: a letter, digit, punctuation mark or symbol.

    Spaces, zero-width and other format characters, combining marks on their own and
    unassigned code points show nothing.
    """
    if _ASCII_VISIBLE.search(text):  # most names and tags: no need to look further
        return True
    return any(
        unicodedata.category(char)[0] in "LNPS" and char not in _BLANK_GLYPHS for char in text
    )


def has_bidi_control(text: str) -> bool:
    return not text.isascii() and any(char in _BIDI_CONTROLS for char in text)


# Embeddings, overrides and isolates: each reorders the text after it up to its paragraph's
# end ("Trojan source"). The marks (LRM, RLM, ALM) only nudge one character and belong to
# right-to-left text, which a title or an abstract may well hold.
_BIDI_REORDERING = re.compile("[\u202a-\u202e\u2066-\u2069]")


def paper_text_problem(label: str, text: str) -> str:
    """Why `text` cannot be a paper's title or abstract, or "" when it can."""
    if not text.isascii() and _BIDI_REORDERING.search(text):
        return (
            f"{label} contains a bidirectional embedding, override or isolate character "
            "(U+202A-U+202E, U+2066-U+2069), which would reorder the text shown after it"
        )
    return ""


# What stands in an author list for authors kept hidden: OpenReview API v1 gives a blind
# submission the authors ["Anonymous"], and conference templates print "Anonymous Author(s)".
# Compared case-folded with spaces collapsed.
_PLACEHOLDER_AUTHORS = frozenset(
    {"anonymous", "anonymous author", "anonymous authors", "anonymous author(s)"}
)


def is_placeholder_author(name: str) -> bool:
    return " ".join(name.split()).casefold() in _PLACEHOLDER_AUTHORS


@_NORMALISED
def author_name_problem(name: str) -> str:
    """Why `name` cannot name an author, or "" when it can. The limit holds for the normalised
    key too, which is stored and can be longer than the name (NFKC)."""
    if has_bidi_control(name):
        return (
            "An author name cannot contain bidirectional control characters "
            "(they reorder the text around it)."
        )
    if not has_visible_character(name):
        return "An author name needs at least one visible character."
    if len(name.strip()) > MAX_AUTHOR_NAME or len(normalize_author_name(name)) > MAX_AUTHOR_NAME:
        return f"An author name is at most {MAX_AUTHOR_NAME} characters long."
    return ""


def area_label(name: str) -> str:
    """A primary area as people read it. OpenReview gives raw values ("deep_learning_architectures",
    "applications to computer vision, audio, ..."): a name of several words with no capital
    letter gets spaces for underscores and a capital first letter ("Deep learning
    architectures"). Anything else ("cs.LG", a name a curator wrote) is shown as it is.

    Only how the area is shown: the tag keeps the name its sources gave, and with it its key,
    slug and URL, so stored tags need no change and the next import finds them again."""
    if any(char.isupper() for char in name) or not ("_" in name or " " in name):
        return name
    words = " ".join(name.replace("_", " ").split())
    return words[:1].upper() + words[1:]


def abstract_fingerprint(abstract: str) -> str:
    """Hash of the abstract with case and whitespace differences removed.

    Lets an abstract-only record and a later full record of the same paper meet.
    """
    normalised = collapse_whitespace(unicodedata.normalize("NFKC", abstract)).casefold()
    if not normalised:
        return ""
    return hashlib.sha256(normalised.encode()).hexdigest()


def title_key(title: str) -> str:
    """A title with case, punctuation and spacing removed: near-identical titles share it."""
    folded = unicodedata.normalize("NFKC", title).casefold()
    return " ".join("".join(c if c.isalnum() else " " for c in folded).split())


# --- Identifiers -------------------------------------------------------------------------

# OpenReview forum ids are short URL-safe tokens; anything else is almost certainly a wrong column.
FORUM_ID = re.compile(r"[A-Za-z0-9_\-]+")
# New-style (2310.01234) and old-style (hep-th/9901001, math.GT/0309136) arXiv identifiers,
# without a version.
ARXIV_ID = r"\d{4}\.\d{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Za-z-]+)?/\d{7}"
_ARXIV_ID = re.compile(ARXIV_ID)
# "arXiv:" before an id and a version after it ("arXiv:2310.01234v2" is 2310.01234).
_ARXIV_DECORATION = re.compile(r"^arxiv:\s*|v\d+$", re.IGNORECASE)
# A DOI as registered: "10.", a registrant code, "/", a suffix without spaces.
_DOI = re.compile(r"10\.\d{4,9}/\S+")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
# An arXiv abstract or PDF link, as members copy it from the address bar: the id (with its
# version, if any) is what follows /abs/ or /pdf/, a ".pdf" ending and any query aside.
_ARXIV_URL = re.compile(
    r"(?:https?://)?(?:www\.|export\.)?arxiv\.org/(?:abs|pdf)/(?P<id>[^?#]+?)(?:\.pdf)?/?(?:[?#].*)?",
    re.IGNORECASE,
)


def is_forum_id(value: str) -> bool:
    return len(value) <= MAX_FORUM_ID and FORUM_ID.fullmatch(value) is not None


# A tilde, then the name OpenReview made of the person's ("~Jane_Doe1", "~Zoë_Ünal2"): no
# spaces, no "@" (an e-mail address), no "/" (a group such as "ICLR.cc/2025/Conference"), no
# control character or lone surrogate (neither can be stored).
_OPENREVIEW_PROFILE_ID = re.compile("~[^\\s@/~\x00-\x1f\x7f\ud800-\udfff]+")


def openreview_profile_id(value: str) -> str:
    """`value` (stripped) when it is an OpenReview profile id, else "". OpenReview's
    `authorids` name an author without a profile by their e-mail address: personal data that
    identifies no profile page, so it is never kept."""
    value = value.strip()
    if len(value) <= MAX_OPENREVIEW_ID and _OPENREVIEW_PROFILE_ID.fullmatch(value):
        return value
    return ""


def forum_id_from_url(url: str) -> str:
    """The `id=` parameter of an OpenReview forum (or pdf) URL, "" when there is none."""
    try:
        query = urlsplit(url).query
    except ValueError:  # an unclosed "[" of an IPv6 host: typed text, not a URL of ours
        return ""
    values = parse_qs(query).get("id")
    return values[0].strip() if values else ""


def normalize_arxiv_id(value: str) -> str:
    """ "arXiv:2310.01234v2" or "https://arxiv.org/pdf/2310.01234v2" -> "2310.01234"; check
    the result with is_arxiv_id."""
    value = value.strip()
    if link := _ARXIV_URL.fullmatch(value):
        value = link["id"]
    return _ARXIV_DECORATION.sub("", value)


def is_arxiv_id(value: str) -> bool:
    return len(value) <= MAX_ARXIV_ID and _ARXIV_ID.fullmatch(value) is not None


def normalize_doi(value: str) -> str:
    """A DOI without its resolver prefix, in lower case (DOIs ignore case)."""
    return _DOI_PREFIX.sub("", value.strip()).lower()


def is_doi(value: str) -> bool:
    return len(value) <= MAX_DOI and _DOI.fullmatch(value) is not None
