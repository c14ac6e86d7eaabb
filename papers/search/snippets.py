"""A result's snippet: the part of its abstract where the search's words are, marked; for a
paper with words of the search found only in its PDF's text, that text's part around them,
with its page ("also in the PDF, p. 7: …" after the abstract's part when other words are
there)."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Mapping

import tantivy
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from papers.latex import math_spans, render_latex_inline_marked
from papers.search import schema
from papers.search.analysis import index_schema
from papers.search.building import (
    all_of,
    any_of,
    clause_query,
    paper_id_of,
    wanted_words_query,
)
from papers.search.query import Clause, ParsedQuery

SNIPPET_CHARS = 200


def snippets(
    searcher: tantivy.Searcher,
    parsed: ParsedQuery | None,
    paper_ids: Iterable[int],
    body_texts: Callable[[list[int]], Mapping[int, str]] | None = None,
    unmarked: Collection[int] = frozenset(),
) -> dict[int, SafeString]:
    """Safe HTML of each paper's abstract around the search's matches, matches in <mark>.

    Tantivy's snippet generator picks the best fragment of at most SNIPPET_CHARS characters
    (linear in the abstract's length); "…" shows where the abstract was cut. A paper whose
    abstract has no match (or a search with nothing to highlight) gets its abstract's opening.
    The text is rendered as the abstract is on its page (text-mode LaTeX as HTML, math left
    whole for KaTeX), so the snippet belongs in an element marked data-math.

    `body_texts` gives the PDF text of papers by id (the index does not store it). A paper
    with a word (or phrase) of the search found only in its PDF's text says where, with the
    page: after the abstract's part, "also in the PDF, p. 7: …" when other words are in its
    title, authors or abstract; alone, "in the PDF, p. 7: …", when only the PDF has them.

    The papers `unmarked` (listed without matching the words: close in meaning only) get the
    opening, nothing marked, even where a word of the search appears.
    """
    documents = documents_by_id(searcher, paper_ids)
    wanted = wanted_words_query(parsed, searcher, documents) if parsed else None
    generator = _generator(searcher, wanted, schema.ABSTRACT)
    result = {}
    in_abstract = set()
    for pk, document in documents.items():
        abstract = document.get_first(schema.ABSTRACT) or ""
        if pk in unmarked:
            result[pk] = _opening_html(abstract)
            continue
        snippet = generator.snippet_from_doc(document) if generator else None
        if snippet is not None and snippet.highlighted():
            result[pk] = _marked_html(snippet, abstract)
            in_abstract.add(pk)
        else:
            result[pk] = _opening_html(abstract)
    if not parsed or body_texts is None:
        return result
    listed_for_words = {pk: doc for pk, doc in documents.items() if pk not in unmarked}
    if not listed_for_words:  # every paper listed for its meaning alone: no words to place
        return result
    for pk, body in _body_snippets(searcher, parsed, listed_for_words, body_texts).items():
        # Both parts are safe HTML already: format_html escapes neither.
        result[pk] = format_html("{} {}", result[pk], body) if pk in in_abstract else body
    return result


def _generator(
    searcher: tantivy.Searcher, wanted: tantivy.Query | None, field_name: str
) -> tantivy.SnippetGenerator | None:
    if wanted is None:
        return None
    generator = tantivy.SnippetGenerator.create(searcher, wanted, index_schema(), field_name)
    generator.set_max_num_chars(SNIPPET_CHARS)
    return generator


def _body_snippets(
    searcher: tantivy.Searcher,
    parsed: ParsedQuery,
    documents: dict[int, tantivy.Document],
    body_texts: Callable[[list[int]], Mapping[int, str]],
) -> dict[int, SafeString]:
    """The PDF-text parts of the papers the search matched in their PDF's text by a word (or
    phrase) their title, authors and abstract do not have, around those words. The texts are
    read for these papers only."""
    in_text, only_in_body = _where_clauses_match(searcher, parsed, documents)
    if not only_in_body:
        return {}
    generators: dict[tuple[Clause, ...], tantivy.SnippetGenerator | None] = {}
    result = {}
    for pk, text in body_texts(sorted(only_in_body)).items():
        clauses = only_in_body[pk]
        if clauses not in generators:  # most pages have one set of PDF-only words
            wanted = wanted_words_query((clauses,), searcher, documents, schema.BODY)
            generators[clauses] = _generator(searcher, wanted, schema.BODY)
        generator = generators[clauses]
        if generator is None:
            continue
        # The generator reads the field from a document; this one holds only the PDF's text.
        holder = tantivy.Document()
        holder.add_text(schema.BODY, text)
        snippet = generator.snippet_from_doc(holder)
        if snippet.highlighted():
            result[pk] = _body_html(snippet, text, also=pk in in_text)
    return result


def _where_clauses_match(
    searcher: tantivy.Searcher, parsed: ParsedQuery, documents: dict[int, tantivy.Document]
) -> tuple[set[int], dict[int, tuple[Clause, ...]]]:
    """Of the papers of `documents`: those the search's wanted words (or phrases) match in
    their title, authors or abstract; and for each paper the wanted clauses that match only
    in its PDF's text. Two searches a clause, among these papers only."""
    shown = any_of(schema.ID, documents)
    in_text: set[int] = set()
    only_in_body: dict[int, list[Clause]] = {}
    for clause in dict.fromkeys(c for group in parsed for c in group if not c.negated):
        text_ids = _matching(searcher, clause_query(clause, schema.TEXT_FIELDS), shown, documents)
        body_ids = _matching(searcher, clause_query(clause, (schema.BODY,)), shown, documents)
        in_text |= text_ids
        for pk in body_ids - text_ids:
            only_in_body.setdefault(pk, []).append(clause)
    return in_text, {pk: tuple(clauses) for pk, clauses in only_in_body.items()}


def _matching(
    searcher: tantivy.Searcher,
    query: tantivy.Query | None,
    shown: tantivy.Query,
    documents: dict[int, tantivy.Document],
) -> set[int]:
    if query is None:
        return set()
    hits = searcher.search(all_of([shown, query]), len(documents), count=False).hits
    return {paper_id_of(searcher.doc(address)) for _, address in hits}


def _body_html(snippet: tantivy.Snippet, text: str, *, also: bool) -> SafeString:
    """ "in the PDF, p. N: … text …" ("also in the PDF" when other words of the search are
    elsewhere): the fragment's part on the page of its first match, escaped, matches marked,
    the PDF's line breaks as spaces."""
    fragment = snippet.fragment()
    start = max(text.find(fragment), 0)
    raw = fragment.encode()

    def offset(byte: int) -> int:
        return start + len(raw[:byte].decode(errors="replace"))

    marks = sorted((offset(span.start), offset(span.end)) for span in snippet.highlighted())
    first = marks[0][0]
    page = text.count(schema.PAGE_BREAK, 0, first) + 1
    page_start = text.rfind(schema.PAGE_BREAK, 0, first) + 1
    page_end = text.find(schema.PAGE_BREAK, first)
    page_end = len(text) if page_end == -1 else page_end
    start, end = max(start, page_start), min(start + len(fragment), page_end)
    # Fragments start and end on words: punctuation beyond them is shown, text is "…".
    start = page_start if _is_trim(text[page_start:start]) else start
    end = page_end if _is_trim(text[end:page_end]) else end
    parts, at = [], start
    for mark_start, mark_end in marks:
        if mark_end <= end:
            parts.append(_spaced(text[at:mark_start]))
            parts.append(f"<mark>{_spaced(text[mark_start:mark_end])}</mark>")
            at = mark_end
    parts.append(_spaced(text[at:end]))
    cut_before, cut_after = ("… " if start > page_start else ""), (" …" if end < page_end else "")
    shown = "".join(parts).strip()
    # Every piece of the PDF's text was escaped by _spaced; only our tags were added.
    where = f'<span class="muted">{"also in" if also else "in"} the PDF, p. {page}:</span>'
    return mark_safe(f"{where} {cut_before}{shown}{cut_after}")  # noqa: S308


def _spaced(text: str) -> str:
    return escape(_SPACES_RE.sub(" ", text))


_SPACES_RE = re.compile(r"\s+")


def _marked_html(snippet: tantivy.Snippet, abstract: str) -> SafeString:
    fragment = snippet.fragment()
    start = abstract.find(fragment)
    if start == -1:  # not expected: the fragment is a slice of the abstract
        abstract, start = fragment, 0
    # The highlighted ranges are byte offsets into the fragment's UTF-8, on token boundaries.
    raw = fragment.encode()

    def offset(byte: int) -> int:
        return start + len(raw[:byte].decode(errors="replace"))

    marks = [(offset(span.start), offset(span.end)) for span in snippet.highlighted()]
    return _snippet_html(abstract, start, start + len(fragment), marks)


def _opening_html(abstract: str) -> SafeString:
    """The abstract's first SNIPPET_CHARS characters, cut after a word (inside one only if the
    first word is longer)."""
    start = len(abstract) - len(abstract.lstrip())
    end = start + SNIPPET_CHARS
    if end < len(abstract):
        words = _WORDS_BEFORE_SPACE_RE.match(abstract, start, end + 1)
        end = words.end(1) if words else end
    return _snippet_html(abstract, start, min(end, len(abstract)), [])


# The longest run of text that ends a word before a space (greedy: up to the last one).
_WORDS_BEFORE_SPACE_RE = re.compile(r"(.*\S)\s", re.DOTALL)
# A math expression a snippet's window cuts is shown whole if it is at most this long, and left
# out if longer (a stray "$5 ... $10" makes an expression of the text between the dollars).
MAX_SNIPPET_MATH = SNIPPET_CHARS


def _snippet_html(abstract: str, start: int, end: int, marks: list[tuple[int, int]]) -> SafeString:
    """abstract[start:end] as safe HTML with the marks (character ranges) in <mark>.

    KaTeX typesets an expression only when it is whole and in one text node, so the window
    never cuts a math expression (half of one shows its source and an unpaired `$`) and a mark
    touching one covers all of it (a mark inside one would split its text).
    """
    expressions = math_spans(abstract)
    for math_start, math_end in expressions:
        whole = math_end - math_start <= MAX_SNIPPET_MATH
        if math_start < start < math_end:
            start = math_start if whole else math_end
        if math_start < end < math_end:
            end = math_end if whole else math_start
    if start >= end:  # the window lay inside one long expression
        return mark_safe("…")
    # Fragments start and end on words: punctuation beyond them is shown, text is "…".
    head, tail = abstract[:start], abstract[end:]
    start = 0 if _is_trim(head) else start
    end = len(abstract) if _is_trim(tail) else end
    wide_marks: list[tuple[int, int]] = []
    for mark_start, mark_end in sorted(marks):
        for math_start, math_end in expressions:
            if math_start < mark_end and mark_start < math_end:
                mark_start, mark_end = min(mark_start, math_start), max(mark_end, math_end)
        if start <= mark_start and mark_end <= end:
            if wide_marks and mark_start < wide_marks[-1][1]:  # two words of one expression
                mark_start = wide_marks.pop()[0]
            wide_marks.append((mark_start, mark_end))
    shown = [(mark_start - start, mark_end - start) for mark_start, mark_end in wide_marks]
    html = render_latex_inline_marked(abstract[start:end], shown)
    # Every character of the abstract was escaped by the LaTeX pass; only our tags were added.
    return mark_safe(("… " if start else "") + html + (" …" if end < len(abstract) else ""))  # noqa: S308


def _is_trim(text: str) -> bool:
    """Whether this cut-off end of an abstract is only a little punctuation and space."""
    return len(text) <= 10 and not any(char.isalnum() for char in text)


def documents_by_id(
    searcher: tantivy.Searcher, paper_ids: Iterable[int]
) -> dict[int, tantivy.Document]:
    """Stored documents by paper id, in one search; ids not in the index are left out."""
    ids = {int(pk) for pk in paper_ids}
    if not ids:
        return {}
    hits = searcher.search(any_of(schema.ID, ids), len(ids), count=False).hits
    return {paper_id_of(doc): doc for doc in (searcher.doc(a) for _, a in hits)}
