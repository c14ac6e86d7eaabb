"""When all the words of a search match few papers: the papers holding most of them.

A question typed as a researcher asks it ("making a small network learn from a bigger one")
rarely has all its words in one abstract, and all-words matching answers "0 papers". Web
search engines rank by any of the words instead, asking for a share of them that grows with
the query's length. Here, when a search of MIN_LOOSE_WORDS words or more matches fewer than
FEW_MATCHES papers, its plain words become optional (BM25 ranks by those present) with
required_words() of them needed; stop words are dropped; quoted phrases, hyphenated compounds
and excluded words keep their meaning. Shorter searches keep all-words precision. When even the
share matches nothing, MIN_NEEDED words are asked for.
"""

from __future__ import annotations

import math

import tantivy

from papers.search.building import clause_query
from papers.search.query import STOP_WORDS, Clause, ParsedQuery

Occur = tantivy.Occur
Query = tantivy.Query

# All the words matching fewer papers than this is "few": one or two papers rarely answer a
# question; the papers holding most of its words are shown instead.
FEW_MATCHES = 3
# The few papers with every word are ranked first: their all-words score, multiplied by this,
# is added to their score (they hold every optional word too, so they lead without it in most
# cases; with it, in all but freak ones).
ALL_FIRST = 1000.0
# Searches with fewer plain words (after stop words) keep all-words matching whatever they find:
# "diffusion transformer" means both.
MIN_LOOSE_WORDS = 3
# Of more than three plain words, this share is needed (rounded down), and never fewer than two:
# 2 of 3 to 7, 3 of 8 or 9, 4 of 10. Measured on the judged questions (docs/search.md), 0.4 finds
# more of the right papers than 0.5 or 0.6, which leave a fifth of the questions with nothing.
LOOSE_SHARE = 0.4

# Words a question is made of that say nothing of its subject, beyond the parser's stop words
# (PostgreSQL's English list, which every search drops): question and request phrasing
# ("papers about", "how can I", "ways of"). Dropped only when a search falls back, where each
# plain word would otherwise count towards the share needed.
QUESTION_WORDS = frozenset(
    """
    also always among another anything anyway approach approaches around away based better
    could does done else even ever every find finding get gets getting give given gives go
    goes going good help helps however instead kind kinds like look looking lot lots make
    makes making many may might much must need needs new one ones paper papers perhaps
    possible rather really say see seem seems show shows since something sort still take
    takes thing things think though thus together toward towards try trying use used uses
    using via want way ways well whether within without work works would yet
    """.split()
)
LOOSE_STOP_WORDS = STOP_WORDS | QUESTION_WORDS


# Never fewer words than this of a loosened search: one word of a question matches too much.
MIN_NEEDED = 2


def required_words(count: int) -> int:
    """How many of `count` plain words a paper needs: all of one or two, else LOOSE_SHARE of
    them (rounded down), at least MIN_NEEDED."""
    if count < MIN_LOOSE_WORDS:
        return count
    return max(MIN_NEEDED, math.floor(count * LOOSE_SHARE))


def loose_query(parsed: ParsedQuery, *, fewest: bool = False) -> Query | None:
    """The search with each group's plain words optional, required_words() of them needed
    (with `fewest`, MIN_NEEDED: for a long question whose share matched nothing); None when no
    group has MIN_LOOSE_WORDS plain words (nothing to loosen) or nothing in it can match.
    Quoted phrases stay required, excluded words excluded; a group with too few plain words
    stays as it is."""
    groups: list[Query] = []
    loosened = False
    for group in parsed:
        plain = [c for c in group if _is_plain(c) and c.words[0] not in LOOSE_STOP_WORDS]
        kept = [c for c in group if not _is_plain(c)]
        if len(plain) < MIN_LOOSE_WORDS:
            # Too short to loosen: every word as today, stop words of the wider list included.
            plain, needed = [c for c in group if _is_plain(c)], None
        else:
            needed = MIN_NEEDED if fewest else required_words(len(plain))
            loosened = True
        query = _group_query(kept, plain, needed)
        if query is not None:
            groups.append(query)
    if not loosened or not groups:
        return None
    if len(groups) == 1:
        return groups[0]
    return Query.boolean_query([(Occur.Should, group) for group in groups])


def _is_plain(clause: Clause) -> bool:
    """A wanted word or hyphenated compound ("sub-networks", one of the words): neither a
    quoted phrase nor an exclusion."""
    return not clause.negated and (len(clause.words) == 1 or clause.exact)


def _group_query(kept: list[Clause], plain: list[Clause], needed: int | None) -> Query | None:
    """Phrases required, exclusions excluded, the plain words all required (`needed` None) or
    `needed` of them; None when a required part cannot match or nothing is wanted."""
    subqueries = []
    for clause in kept:
        query = clause_query(clause)
        if query is None and not clause.negated:
            return None  # a required phrase no document can hold
        if query is not None:
            subqueries.append((Occur.MustNot if clause.negated else Occur.Must, query))
    optional = []
    for clause in plain:
        query = clause_query(clause)
        if query is None and needed is None:
            return None
        if query is not None:
            optional.append(query)
    if needed is None:
        subqueries += [(Occur.Must, query) for query in optional]
        minimum = None
    else:
        if len(optional) < needed:
            return None
        subqueries += [(Occur.Should, query) for query in optional]
        minimum = needed
    if not any(occur in (Occur.Must, Occur.Should) for occur, _ in subqueries):
        return None
    return Query.boolean_query(subqueries, minimum_number_should_match=minimum)
