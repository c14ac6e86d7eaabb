"""Did you mean: a search that found nothing, with its misspelt words corrected."""

from __future__ import annotations

import re

import tantivy

from papers.search.analysis import folded_word, index_schema, splitter
from papers.search.building import FIELD_BOOSTS, MIN_STEM_CHARS, STEM_LOOKBACK, stem_word
from papers.search.completion import is_indexed
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

    The last word may be the start of one, as search as you type reads it: if indexed words
    begin with it, the one most papers write is offered ("diffu" -> "diffusion", not the
    nearer "diffuse").
    """
    corrected, changed, position = [], False, 0
    matches = list(_SPELLING_WORD.finditer(text))
    for index, match in enumerate(matches):
        word = match.group()
        # A query of a hundred unknown words would read the dictionaries a hundred times.
        better = None
        if index < MAX_SPELLING_WORDS and not _syntax_or_excluded(text, match):
            if match is matches[-1]:
                better = _heading_word(searcher, word.lower())
            better = better or _nearest_indexed_word(searcher, word.lower())
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
    if len(stem) < SPELLING_PREFIX_CHARS or is_indexed(searcher, stem):
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
    written = _written_forms(searcher, best, best[:SPELLING_PREFIX_CHARS])
    if not written:
        return None
    return min(written, key=lambda w: (_edits(w, word), -written[w], w))


def _heading_word(searcher: tantivy.Searcher, word: str) -> str | None:
    """The word papers most often write that begins with `word`, when `word` is no indexed
    word itself but the start of some ("diffu" -> "diffusion"); else None.

    The candidates are the indexed terms (stems) beginning with it, and those it goes past
    the end of by a few letters ("diffusi" is past "diffus": see building.STEM_LOOKBACK);
    the one in most papers wins, written as a few papers holding it most often write it."""
    folded = folded_word(word)
    if len(folded) < MIN_SPELLING_CHARS or not folded.isalpha() or word in STOP_WORDS:
        return None
    if is_indexed(searcher, stem_word(folded)):
        return None
    papers_with: dict[str, int] = {}
    shortest = max(MIN_STEM_CHARS, len(folded) - STEM_LOOKBACK)
    for name in FIELD_BOOSTS:
        for term, count in searcher.terms_with_prefix(name, folded):
            papers_with[term] = papers_with.get(term, 0) + count
        for term in (folded[:n] for n in range(shortest, len(folded))):
            papers_with[term] = papers_with.get(term, 0) + searcher.doc_freq(name, term)
    for term in sorted(papers_with, key=lambda term: (-papers_with[term], term)):
        if not papers_with[term]:
            break
        written = _written_forms(searcher, term, folded)
        if written:
            return min(written, key=lambda w: (-written[w], w))
    return None


def _written_forms(searcher: tantivy.Searcher, term: str, start: str) -> dict[str, int]:
    """How often each word starting with `start` and indexed as `term` is written in a few
    papers holding it (the index holds stems, "diffus": papers write "diffusion")."""
    holding = Query.boolean_query(
        [(Occur.Should, Query.term_query(index_schema(), name, term)) for name in FIELD_BOOSTS]
    )
    written: dict[str, int] = {}
    for _, address in searcher.search(holding, SPELLING_SAMPLE).hits:
        document = searcher.doc(address)
        for name in FIELD_BOOSTS:
            for value in document.get_all(name):
                for token in splitter().analyze(str(value)):
                    token = token.lower()
                    # Stemming every word of ten abstracts took 90 ms at 100,000 papers: only
                    # words starting as wanted can be wanted.
                    if (
                        token.isalpha()
                        and folded_word(token).startswith(start)
                        and stem_word(token) == term
                    ):
                        written[token] = written.get(token, 0) + 1
    return written


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
