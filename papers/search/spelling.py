"""Did you mean: a search that found nothing, with its misspelt words corrected."""

from __future__ import annotations

import re

import tantivy

from papers.search.analysis import folded_word, index_schema, splitter
from papers.search.building import FIELD_BOOSTS, stem_word
from papers.search.query import FIELD_NAMES, STOP_WORDS

Occur = tantivy.Occur
Query = tantivy.Query

# "Did you mean" for a search that found nothing: each word the index does not hold is replaced
# by the nearest word that it does. Shorter words are left alone (too many near neighbours).
MIN_SPELLING_CHARS = 4
# A misspelt word's candidates are the indexed terms beginning with its first letters.
SPELLING_PREFIX_CHARS = 2
# Papers read for how a chosen term is written in full (the index holds stems).
SPELLING_SAMPLE = 10
# Words of a query looked at for a correction: the rest stay as typed.
MAX_SPELLING_WORDS = 8
_SPELLING_WORD = re.compile(r"(?<![\w-])[^\W\d_]+")


def spelling_suggestion(searcher: tantivy.Searcher, text: str) -> str | None:
    """`text` with its misspelt words corrected ("difusion modles" -> "diffusion models"), or
    None when it has none or nothing close is indexed.

    A word is misspelt when its stem is in no text field. Its candidates are the terms of the
    title, author and abstract dictionaries that begin with its first two letters and lie
    within one or two edits of that stem (the dictionaries are read, not the papers); the
    nearest wins, and the one in more papers among equals ("model" over "mode"), written as a
    few papers holding it write it and capitalised as typed. Everything else in `text` (quotes,
    minus signs, `or`) stays as typed; an excluded word is not changed.
    """
    corrected, changed, position = [], False, 0
    for index, match in enumerate(_SPELLING_WORD.finditer(text)):
        word = match.group()
        # A query of a hundred unknown words would read the dictionaries a hundred times.
        better = (
            _nearest_indexed_word(searcher, word.lower())
            if index < MAX_SPELLING_WORDS and not _syntax_or_excluded(text, match)
            else None
        )
        if better is not None and word[:1].isupper():
            better = better.upper() if word.isupper() else better.capitalize()  # as typed
        corrected += [text[position : match.start()], better or word]
        changed = changed or better is not None
        position = match.end()
    corrected.append(text[position:])
    return "".join(corrected) if changed else None


def _syntax_or_excluded(text: str, match: re.Match[str]) -> bool:
    """Whether the word is read as syntax by the parser (a field name before a colon, a
    prefix before a star) or excluded after NOT: left as typed, as a word after a minus is."""
    after = text[match.end() : match.end() + 1]
    if after == "*" or (after == ":" and match.group().casefold() in FIELD_NAMES):
        return True
    return text[: match.start()].rsplit(None, 1)[-1:] == ["NOT"]


def _nearest_indexed_word(searcher: tantivy.Searcher, word: str) -> str | None:
    if len(word) < MIN_SPELLING_CHARS or word in STOP_WORDS or word == "or":
        return None
    stem = stem_word(word)
    if len(stem) < SPELLING_PREFIX_CHARS or any(
        searcher.doc_freq(name, stem) for name in FIELD_BOOSTS
    ):
        return None  # a word the index holds (or too short to correct)
    distance = 1 if len(stem) <= 5 else 2
    # Indexed terms sharing the first letters (a typo rarely starts a word), within reach.
    papers_with: dict[str, int] = {}
    for name in FIELD_BOOSTS:
        for term, count in searcher.terms_with_prefix(name, stem[:SPELLING_PREFIX_CHARS]):
            if abs(len(term) - len(stem)) <= distance and _edits(term, stem) <= distance:
                papers_with[term] = papers_with.get(term, 0) + count
    if not papers_with:
        return None
    best = min(papers_with, key=lambda term: (_edits(term, stem), -papers_with[term], term))
    # The index holds stems ("diffus"): the word as papers write it is read from a few of them.
    holding = Query.boolean_query(
        [(Occur.Should, Query.term_query(index_schema(), name, best)) for name in FIELD_BOOSTS]
    )
    written: dict[str, int] = {}
    for _, address in searcher.search(holding, SPELLING_SAMPLE).hits:
        document = searcher.doc(address)
        for name in FIELD_BOOSTS:
            for value in document.get_all(name):
                for token in splitter().analyze(str(value)):
                    token = token.lower()
                    # Stemming every word of ten abstracts took 90 ms at 100,000 papers: only
                    # words starting as the stem does can stem to it.
                    if (
                        token.isalpha()
                        and folded_word(token).startswith(best[:SPELLING_PREFIX_CHARS])
                        and stem_word(token) == best
                    ):
                        written[token] = written.get(token, 0) + 1
    if not written:
        return None
    return min(written, key=lambda w: (_edits(w, word), -written[w], w))


def _edits(a: str, b: str) -> int:
    """Edit distance with a swap of neighbours counting one ("modles" is one from "models")."""
    rows = [list(range(len(b) + 1))]
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]
