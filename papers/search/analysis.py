"""The words of a query as the index saw the documents' words: the same tokenizer, stemmer
and folding (papers.search.schema), so a term built here is a term the index holds."""

from __future__ import annotations

from functools import cache

import tantivy

from papers.search import schema
from papers.search.query import STOP_WORDS


@cache
def index_schema() -> tantivy.Schema:
    # Queries only need field names and types, identical in every index of this version.
    return schema.build_schema()


@cache
def splitter() -> tantivy.TextAnalyzer:
    # The text analyzer's tokenizer alone: where the index puts token boundaries (and positions).
    return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).build()


@cache
def stemmer() -> tantivy.TextAnalyzer:
    # A token of splitter turned into the term the index holds for it.
    return schema.text_analyzer()


@cache
def _folder() -> tantivy.TextAnalyzer:
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw())
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .build()
    )


def folded_word(word: str) -> str:
    """The word lowercased and folded as the index folds it, unstemmed ("Schrö" -> "schro")."""
    if word.isascii():
        return word.lower()
    tokens = _folder().analyze(word)
    return tokens[0] if tokens else ""


def indexed_terms(text: str, *, skip_stop_words: bool = False) -> list[tuple[int, str]]:
    """(position, indexed term) of each token of `text`, as the index analyses a field.

    A token too long to be indexed leaves its position empty, as it does in the index, so a
    phrase around it still lines up; so does a stop word when `skip_stop_words` is set.
    """
    stem = stemmer().analyze
    return [
        (position, term)
        for position, token in enumerate(splitter().analyze(text))
        if not (skip_stop_words and token.lower() in STOP_WORDS)
        for term in stem(token)
    ]
