"""The fields of the catalogue's search index: one Tantivy document per paper.

The index is derived data (the database is the source of truth): bump SCHEMA_VERSION whenever
the fields or what goes into them change, so that every process rebuilds its index instead of
reading documents of another shape.
"""

from __future__ import annotations

from datetime import UTC, datetime

import tantivy

from papers.text import title_sort_key

# 2: coarse sort keys, stored author ids; 3: keyword and area ids; 4: decision ids, rating sort;
# 5: untitled papers last in the title order; 6: accents folded in the text fields; 7: titles
# ordered as readers alphabetise them; 8: popular author ids; 9: LaTeX styling
# commands not read in the title order; 10: the stored PDF's text (BODY), HAS_PDF; 11: a
# title's Greek letters also spelled as LaTeX names
SCHEMA_VERSION = 11

# The paper's primary key: stored (results name papers by it), indexed (delete and update by
# term), fast (read for a page of hits without loading documents).
ID = "id"

# Searchable text. Stored because snippets and "more like this" read the text back from the
# index; positions kept for phrase queries.
TITLE = "title"
AUTHORS = "authors"  # the author names in order, one value per author
ABSTRACT = "abstract"
TEXT_FIELDS = (TITLE, AUTHORS, ABSTRACT)
# The text of the paper's stored PDF (pdfs.PdfText), at most PDF_TEXT_MAX_CHARS characters,
# weighted below the abstract (building.FIELD_BOOSTS). Indexed with positions, not stored: a
# snippet from it reads the text from the database for the page's papers only (snippets.py),
# which keeps the index a fraction of the size. Not in TEXT_FIELDS: "more like this" and the
# spelling suggestions read titles and abstracts, not whole papers.
BODY = "body"
# Pages of the PDF's text are apart by a form feed (as pdfs.extraction.PAGE_BREAK writes them):
# a body snippet names the page its match is on.
PAGE_BREAK = "\f"
# Tantivy's English analyzer (en_stem) with accents folded: split on anything not
# alphanumeric, drop tokens of 40 bytes or more, lowercase, fold to ASCII ("Müller" is found by
# "muller", "Schrödinger" by "schrodinger"), Snowball English stemming. No stop-word removal,
# so a quoted phrase with stop words inside still matches word for word. Not built in: every
# index object registers it (create_index, open_index).
TEXT_ANALYZER = "en_stem_folded"
MAX_TOKEN_BYTES = 40

# Facet values: tag and author primary keys, multi-valued, indexed (filters) and fast (counts).
# Author ids are stored too: similar papers explain themselves by the authors they share.
AUTHOR_IDS = "author_ids"
VENUE_IDS = "venue_ids"
TRACK_IDS = "track_ids"
LAB_IDS = "lab_ids"
KEYWORD_IDS = "keyword_ids"
AREA_IDS = "area_ids"
DECISION_IDS = "decision_ids"  # the paper's decision tag (TagKind.DECISION), at most one
# 1 when the site keeps the paper's PDF (pdfs.PaperPdf), else 0: the "Has PDF" facet.
HAS_PDF = "has_pdf"
FACET_FIELDS = (
    VENUE_IDS,
    TRACK_IDS,
    LAB_IDS,
    KEYWORD_IDS,
    AREA_IDS,
    DECISION_IDS,
    AUTHOR_IDS,
    HAS_PDF,
)
# The ids of the paper's authors among the catalogue's most prolific (documents.POPULAR_AUTHORS
# at the last full build), fast only: counting them is a fraction of counting every author, and
# over many matches the top authors are among them (counting._popular_top_authors). An author is
# here on all of their papers or on none: updates keep the set the index holds.
POPULAR_AUTHOR_IDS = "popular_author_ids"

# Sort keys, fast text fields compared byte by byte (raw tokenizer: the whole value is one
# term). Each ends with the zero-padded paper id, so no two papers tie and the order is total,
# exactly the database's tie-break on id:
#   TITLE_ORDER ascending   = untitled papers last, then papers.text.title_sort_key(title)
#                             (case, accents and leading punctuation ignored), then the title
#                             in code-point order, then the id
#   NEWEST_ORDER descending = ORDER BY created_at DESC, id DESC
# (Tantivy date fields keep whole seconds only, which would leave an import's papers tied.)
#   RATING_ORDER descending = ORDER BY mean_rating DESC NULLS LAST, id DESC (the rating to a
#                             thousandth: means closer than that tie, and go by id)
TITLE_ORDER = "title_order"
NEWEST_ORDER = "newest_order"
RATING_ORDER = "rating_order"
# Coarse u64 companions of the sort keys, in the same order but with ties. Tantivy turns each
# text key it passes into a string, so skipping 10,000 hits by TITLE_ORDER costs 200 ms; the
# engine skips by these (cheap) and pages by the exact key only within the last tie.
TITLE_PREFIX = "title_prefix"  # the first 8 bytes of the TITLE_ORDER key, big-endian
CREATED = "created"  # created_at in microseconds since the epoch
RATING = "rating"  # rating_code of the mean rating


def build_schema() -> tantivy.Schema:
    builder = tantivy.SchemaBuilder()
    builder.add_unsigned_field(ID, stored=True, indexed=True, fast=True)
    for name in TEXT_FIELDS:
        builder.add_text_field(name, stored=True, tokenizer_name=TEXT_ANALYZER)
    builder.add_text_field(BODY, stored=False, tokenizer_name=TEXT_ANALYZER)
    for name in FACET_FIELDS:
        builder.add_unsigned_field(name, stored=name == AUTHOR_IDS, indexed=True, fast=True)
    builder.add_unsigned_field(POPULAR_AUTHOR_IDS, fast=True)
    for name in (TITLE_ORDER, NEWEST_ORDER, RATING_ORDER):
        # "basic": the key's term is indexed too (tantivy-py cannot turn indexing off), but
        # without frequencies or positions.
        builder.add_text_field(name, fast=True, tokenizer_name="raw", index_option="basic")
    for name in (TITLE_PREFIX, CREATED, RATING):
        builder.add_unsigned_field(name, fast=True)
    return builder.build()


def text_analyzer() -> tantivy.TextAnalyzer:
    """The analyzer of the text fields; queries analyse their words with it too."""
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(MAX_TOKEN_BYTES))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def create_index(path: str, *, reuse: bool = True) -> tantivy.Index:
    """A new index of this schema at `path` (an existing one is kept when `reuse`)."""
    index = tantivy.Index(build_schema(), path=path, reuse=reuse)
    index.register_tokenizer(TEXT_ANALYZER, text_analyzer())
    return index


def open_index(path: str) -> tantivy.Index:
    index = tantivy.Index.open(path)
    index.register_tokenizer(TEXT_ANALYZER, text_analyzer())
    return index


def title_order_key(title: str, paper_id: int) -> str:
    """The title as readers alphabetise it (papers.text.title_sort_key), then as written, then
    the id. Byte order of UTF-8 is code-point order; NUL sorts a title before its extensions.

    A first character puts untitled papers (imported without a title, awaiting curation)
    after every titled one: an empty title would otherwise come first, ahead of the catalogue.
    """
    untitled = "1" if not title else "0"
    written = title.replace(chr(0), "")
    return f"{untitled}{title_sort_key(title)}\x00{written}\x00{paper_id:020d}"


def title_prefix(title_key: str) -> int:
    return int.from_bytes(title_key.encode()[:8].ljust(8, b"\x00"), "big")


def created_micros(created_at: datetime) -> int:
    if created_at.tzinfo is None:  # only with USE_TZ off; read as UTC, consistently
        created_at = created_at.replace(tzinfo=UTC)
    return max(0, (created_at - _EPOCH) // _MICROSECOND)


def newest_order_key(created_at: datetime, paper_id: int) -> str:
    """Microseconds since the epoch then the id, both zero-padded so text order is numeric."""
    return f"{created_micros(created_at):017d}{paper_id:020d}"


# Ratings beyond this either way are clamped: no venue's scale comes near it.
_MAX_RATING = 1000


def rating_code(mean_rating: float | None) -> int:
    """The mean rating as a u64 in the same order, to a thousandth; 0 without a rating, so
    unrated papers come last in the descending sort."""
    if mean_rating is None:
        return 0
    clamped = min(max(mean_rating, -_MAX_RATING), _MAX_RATING)
    return round((clamped + _MAX_RATING) * 1000) + 1


def rating_order_key(mean_rating: float | None, paper_id: int) -> str:
    return f"{rating_code(mean_rating):07d}{paper_id:020d}"


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = datetime.resolution
