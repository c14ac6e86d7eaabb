"""A result's snippet: the part of its abstract where the search's words are, marked."""

from __future__ import annotations

import re
from collections.abc import Iterable

import tantivy
from django.utils.safestring import SafeString, mark_safe

from papers.latex import math_spans, render_latex_inline_marked
from papers.search import schema
from papers.search.analysis import index_schema
from papers.search.building import any_of, paper_id_of, wanted_words_query
from papers.search.query import ParsedQuery

SNIPPET_CHARS = 200


def snippets(
    searcher: tantivy.Searcher, parsed: ParsedQuery | None, paper_ids: Iterable[int]
) -> dict[int, SafeString]:
    """Safe HTML of each paper's abstract around the search's matches, matches in <mark>.

    Tantivy's snippet generator picks the best fragment of at most SNIPPET_CHARS characters
    (linear in the abstract's length); "…" shows where the abstract was cut. A paper whose
    abstract has no match (or a search with nothing to highlight) gets its abstract's opening.
    The text is rendered as the abstract is on its page (text-mode LaTeX as HTML, math left
    whole for KaTeX), so the snippet belongs in an element marked data-math.
    """
    documents = documents_by_id(searcher, paper_ids)
    wanted = wanted_words_query(parsed, searcher, documents) if parsed else None
    generator = None
    if wanted is not None:
        generator = tantivy.SnippetGenerator.create(
            searcher, wanted, index_schema(), schema.ABSTRACT
        )
        generator.set_max_num_chars(SNIPPET_CHARS)
    result = {}
    for pk, document in documents.items():
        abstract = document.get_first(schema.ABSTRACT) or ""
        snippet = generator.snippet_from_doc(document) if generator else None
        if snippet is not None and snippet.highlighted():
            result[pk] = _marked_html(snippet, abstract)
        else:
            result[pk] = _opening_html(abstract)
    return result


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
