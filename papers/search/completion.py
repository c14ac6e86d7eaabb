"""An entered search's last word, matched as a prefix when the index holds no such word.

Search as you type matches the word being typed as a prefix ("diffu" shows the diffusion
papers); pressing Enter on the same text must not then find nothing. So the last word of any
search is read as the beginning of a word when it is not a word of the index itself: a
complete word ("diffuse", "graph") keeps matching only itself.
"""

from __future__ import annotations

from dataclasses import replace

import tantivy

from papers.search.analysis import indexed_terms
from papers.search.building import FIELD_BOOSTS
from papers.search.query import MIN_PREFIX_CHARS, STOP_WORDS, ParsedQuery


def with_open_last_word(searcher: tantivy.Searcher, parsed: ParsedQuery) -> ParsedQuery:
    """`parsed` with its last clause's last word marked as a prefix, when that clause is
    wanted (not excluded), the word is long enough, not a stop word, and is in no text field
    of the index. Anything else: `parsed` as it is."""
    if not parsed or not parsed[-1]:
        return parsed
    *groups, last_group = parsed
    *clauses, last = last_group
    if last.negated or last.prefix:
        return parsed
    word = last.words[-1]
    if len(word) < MIN_PREFIX_CHARS or word in STOP_WORDS:
        return parsed
    terms = indexed_terms(word)
    if len(terms) != 1 or is_indexed(searcher, terms[0][1]):
        return parsed
    return (*groups, (*clauses, replace(last, prefix=True)))


def is_indexed(searcher: tantivy.Searcher, term: str) -> bool:
    """Whether any paper holds `term` (as the index spells it) in a text field."""
    return any(searcher.doc_freq(name, term) for name in FIELD_BOOSTS)
