"""What the search engine takes and gives: a listing request, its facet counts and results.
Plain values, imported by every part of the engine."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from papers.facet_registry import FacetSpec
from papers.search.meaning import Neighbours
from papers.search.query import ParsedQuery

# --- Inputs and outputs -------------------------------------------------------------------


@dataclass(frozen=True)
class BrowseQuery:
    """One listing request: the search, the selected facet values, the sort and the page.

    Values within a facet are OR-ed, facets are AND-ed. `mine_ids` is the "mine" facet's
    selection resolved to paper ids by the caller (None: not selected); `mine_sets` are the
    named id sets the "mine" facet counts (e.g. {"lists": ..., "notes": ...}).
    """

    parsed: ParsedQuery | None = None  # None: no search; (): nothing searchable, no results
    venue_ids: frozenset[int] = frozenset()
    track_ids: frozenset[int] = frozenset()
    lab_ids: frozenset[int] = frozenset()
    keyword_ids: frozenset[int] = frozenset()
    # Keywords the caller wants counted whatever their rank (a "find a keyword" box's matches).
    keyword_candidates: frozenset[int] = frozenset()
    area_ids: frozenset[int] = frozenset()
    decision_ids: frozenset[int] = frozenset()
    author_ids: frozenset[int] = frozenset()
    pdf_values: frozenset[int] = frozenset()  # 1: the site keeps its PDF, 0: it does not
    # The mean rating's range (inclusive; None: unbounded on that side): papers without a
    # rating are left out once either bound is set.
    rating_range: tuple[float | None, float | None] = (None, None)
    mine_ids: frozenset[int] | None = None
    mine_sets: Mapping[str, frozenset[int]] = field(default_factory=dict)
    sort: str = "relevance"  # falls back to "newest" without a search
    offset: int = 0
    limit: int = 25
    # A long search whose words all match few papers lists the papers with most of them
    # (papers.search.loose); off, it lists only the papers with all of them.
    loose_fallback: bool = True
    # The search's neighbours in meaning (a meaning.Question of the semantic app's vector
    # index): the engine asks it for the nearest papers the facets and "mine" allow, listed
    # beside the word matches and ranked with them (papers.search.fusion). None: words only.
    meaning: Neighbours | None = None


def facet_selection(query: BrowseQuery, spec: FacetSpec) -> frozenset[int]:
    """The index values selected in one of papers.facet_registry.INDEXED_FACETS."""
    assert spec.query_attribute is not None  # every indexed facet has one
    selected: frozenset[int] = getattr(query, spec.query_attribute)
    return selected


@dataclass(frozen=True)
class Facets:
    """Disjunctive counts: each facet over the matches of every other facet but its own.

    Venue, track, decision, lab and area facets hold every value with a match; `keyword` the top
    TOP_KEYWORDS keywords and `author` the top authors, by count (ties by id).
    Every selected value is there too, with 0 if nothing matches it. `mine` has one count per
    `BrowseQuery.mine_sets` name. Dicts are ordered by count, highest first, then by id, with
    selected values outside the top authors last.
    """

    venue: dict[int, int]
    track: dict[int, int]
    lab: dict[int, int]
    keyword: dict[int, int]
    area: dict[int, int]
    decision: dict[int, int]
    author: dict[int, int]
    mine: dict[str, int]
    pdf: dict[int, int] = field(default_factory=dict)  # by HAS_PDF value, 1 and 0


@dataclass(frozen=True)
class Results:
    ids: list[int]
    total: int
    facets: Facets
    # The search's words all matched few papers: these papers hold most of them, not all.
    loose: LooseMatch | None = None
    # Of `ids`, those close in meaning to the search (within the filters), and of those the
    # ones listed for their meaning alone, without the search's words (papers.search.fusion).
    close: frozenset[int] = frozenset()
    by_meaning: frozenset[int] = frozenset()

    def found_by(self, pk: int) -> str:
        """Why a listed paper is there: "words", "meaning" or "both"."""
        if pk not in self.close:
            return "words"
        return "meaning" if pk in self.by_meaning else "both"


@dataclass(frozen=True)
class LooseMatch:
    """A search that fell back on most of its words: how many papers had all of them (those
    come first)."""

    all_words: int


@dataclass(frozen=True)
class Similar:
    id: int
    shared_authors: int
    shared_terms: tuple[str, ...]
    close_in_meaning: bool = False

    @property
    def reasons(self) -> list[str]:
        reasons = ["close in meaning"] if self.close_in_meaning else []
        if self.shared_authors:
            plural = "s" if self.shared_authors > 1 else ""
            reasons.append(f"shares {self.shared_authors} author{plural}")
        if self.shared_terms:
            reasons.append("shares: " + ", ".join(self.shared_terms))
        return reasons


# The value that stands for "no value" in the facets that have a "not given" bucket
# (papers.facet_registry: has_not_given): ids are never 0, so it cannot be a tag's. Selecting it
# keeps the papers without any value there.
NOT_GIVEN = 0
