"""The list page's facet counts: exact and disjunctive, each facet counted over the matches
of every other facet but its own, the author facet by the cheapest of three ways."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property, wraps
from typing import TypeVar

import tantivy

from papers.facet_registry import BY_ENGINE_NAME, INDEXED_FACETS
from papers.search import schema
from papers.search.analysis import index_schema
from papers.search.building import all_of, any_of, hit_count, valid_ids
from papers.search.values import NOT_GIVEN, BrowseQuery, Facets, facet_selection

Occur = tantivy.Occur
Query = tantivy.Query

T = TypeVar("T")
AUTHOR_FACET_SIZE = 20
# The author facet's first aggregation returns this many authors beyond the top N, and each
# segment reports its AUTHOR_SEGMENT_SIZE most frequent ones (see _top_authors).
AUTHOR_FACET_SLACK = 200
AUTHOR_SEGMENT_SIZE = 2000
# At most this many authors are counted one by one to make the first aggregation exact.
MAX_AUTHOR_RECOUNTS = 100
# No facet has more values than this; asking for "all" as a number keeps counts exact.
ALL_BUCKETS = 2**31 - 1


def facet_counts(
    searcher, query: BrowseQuery, matches, total: int, author_facet_size: int
) -> Facets:
    """One aggregation request per distinct base: facets with nothing selected share one."""
    groups: dict[str | None, list[str]] = {}
    for spec in INDEXED_FACETS:
        name = spec.engine_name
        groups.setdefault(name if facet_selection(query, spec) else None, []).append(name)
    counts: dict[str, dict[int, int]] = {}
    for without, names in groups.items():
        narrowed = matches(without)
        base, whole = narrowed or Query.all_query(), narrowed is None
        if "author" in names:
            # Cheapest first: over nearly everything, the papers not matched; over many
            # matches, the popular authors; else (below) every author of the matches.
            matched = total if without is None else hit_count(searcher.search(base, 1))
            found = _broad_top_authors(
                searcher, None if whole else base, matched, author_facet_size, query.author_ids
            )
            if found is None and not whole:
                found = _popular_top_authors(
                    searcher, base, matched, author_facet_size, query.author_ids
                )
            if found is not None:
                counts["author"] = found
                names = [name for name in names if name != "author"]
                if not names:
                    continue
        request = {}
        for name in names:
            if name == "keyword":  # every segment reports every keyword: exact, cut after
                request[name] = _terms_request(schema.KEYWORD_IDS, exact_top=TOP_KEYWORDS + 1)
            else:
                top = author_facet_size + AUTHOR_FACET_SLACK if name == "author" else None
                spec = BY_ENGINE_NAME[name]
                request[name] = _terms_request(str(spec.index_field), size=top)
                if spec.has_not_given:  # papers without a value, counted as NOT_GIVEN
                    request[name]["terms"]["missing"] = NOT_GIVEN
        counted = query.keyword_ids | query.keyword_candidates
        if "keyword" in names:  # the selected and wanted keywords are counted in the same pass
            request |= _value_filters("keyword", schema.KEYWORD_IDS, counted)
        if "author" in names:  # the selected authors are counted in the same pass
            request |= _author_filters(query.author_ids)
        answer = searcher.aggregate(base, request)
        for name in names:
            if name == "keyword":
                found = _top_keywords(searcher, base, answer, counted)
            elif name == "author":
                selected = _filtered_counts(answer, query.author_ids)
                found = _top_authors(
                    searcher, base, answer[name], author_facet_size, selected, whole=whole
                )
            else:
                found = _ordered({int(b["key"]): b["doc_count"] for b in answer[name]["buckets"]})
                # A selected value without matches among the other facets shows, with 0.
                chosen = facet_selection(query, BY_ENGINE_NAME[name])
                found |= {pk: 0 for pk in sorted(chosen) if pk not in found}
            counts[name] = found
    without_mine = matches("mine") or Query.all_query()
    mine = {name: _count(searcher, without_mine, ids) for name, ids in query.mine_sets.items()}
    return Facets(**counts, mine=mine)


# The keyword facet shows this many keywords (plus the selected ones); a catalogue has
# thousands, and every one listed costs a bucket turned into Python.
TOP_KEYWORDS = 30


def _top_keywords(searcher, base: Query, answer: dict, selected: Iterable[int]) -> dict[int, int]:
    """The TOP_KEYWORDS keywords by count (ties by id), then the selected (and other
    wanted) ones: exact.

    The aggregation listed one keyword more than shown: if that one ties the last shown, the
    cut may have left out others of that count with lower ids, so those are all counted.
    """
    found = _ordered({int(b["key"]): b["doc_count"] for b in answer["keyword"]["buckets"]})
    found = _with_ties_at_the_cut(searcher, base, schema.KEYWORD_IDS, found, TOP_KEYWORDS)
    chosen = dict(list(found.items())[:TOP_KEYWORDS])
    for pk in valid_ids(selected):
        if pk not in chosen:
            chosen[pk] = answer[f"keyword_{pk}"]["doc_count"]
    return chosen


def _with_ties_at_the_cut(
    searcher, base: Query, field_name: str, found: dict[int, int], top: int
) -> dict[int, int]:
    """`found`: an exact terms aggregation cut at top + 1 values, ordered. When the last one
    ties the top-th, the cut may have left out others of that count with lower ids: every
    value of that count is added, in order."""
    counts = list(found.values())
    if len(counts) <= top or counts[top] != counts[top - 1]:
        return found
    request = {"tied": _terms_request(field_name, min_count=counts[top])}
    tied = searcher.aggregate(base, request)["tied"]["buckets"]
    return _ordered(found | {int(b["key"]): b["doc_count"] for b in tied})


def _value_filters(name: str, field_name: str, ids: Iterable[int]) -> dict:
    """Filter aggregations counting each value's matches exactly, all in one pass."""
    return {f"{name}_{pk}": {"filter": f"{field_name}:{pk}"} for pk in valid_ids(ids)}


def _terms_request(
    field_name: str, *, size: int | None = None, min_count: int = 1, exact_top: int | None = None
) -> dict:
    """A terms aggregation, by count. Without `size`: every value, each count exact.

    Tantivy cuts each segment's list at segment_size before merging, which makes merged counts
    estimates; reporting every value from every segment keeps them exact. For the top authors
    that full list (every author of every match) is most of a listing's time: they cut at
    AUTHOR_SEGMENT_SIZE, and _top_authors makes the result exact.
    """
    request = {"field": field_name, "size": ALL_BUCKETS, "segment_size": ALL_BUCKETS}
    if exact_top is not None:  # every value counted in every segment; only the list is cut
        request["size"] = exact_top
    if size is not None:
        request |= {"size": size, "segment_size": max(size, AUTHOR_SEGMENT_SIZE)}
        request["show_term_doc_count_error"] = True
    if min_count > 1:
        request["min_doc_count"] = min_count
    return {"terms": request}


def _author_filters(author_ids: Iterable[int]) -> dict:
    """Filter aggregations counting each author's matches exactly, all in one pass.

    Tantivy parses a filter's query text; here it is only a field name and a number.
    """
    return _value_filters("author", schema.AUTHOR_IDS, author_ids)


def _filtered_counts(answer: dict, author_ids: Iterable[int]) -> dict[int, int]:
    return {pk: answer[f"author_{pk}"]["doc_count"] for pk in valid_ids(author_ids)}


def _top_authors(
    searcher, base: Query, answer: dict, top: int, selected: dict[int, int], *, whole: bool
) -> dict[int, int]:
    """The `top` authors by exact count, ties by id, then the selected authors' counts.

    `answer` is a cut aggregation: its counts are lower bounds, short of the true ones by at
    most its doc_count_error_upper_bound (the sum of each segment's largest cut-off count),
    and an author it leaves out has at most that error plus the last count it returned. So
    the authors that could reach the top are recounted exactly, and if an author left out
    could still tie the top-th count, one full (exact) aggregation of the authors with at
    least that count settles it. `whole`: the base is the whole catalogue.
    """
    if top < 1:
        return selected
    buckets = answer["buckets"]
    reported = {int(b["key"]): b["doc_count"] for b in buckets}
    error = answer.get("doc_count_error_upper_bound")
    if error is None:  # not reported: trust nothing
        return _exact_top_authors(searcher, base, top, selected, min_count=1)
    lowest = _nth_largest(reported, top)
    # One segment's counts are whole; only authors it cut off are unknown (up to `error`).
    if error > 0 and searcher.num_segments > 1:
        contenders = [pk for pk, n in reported.items() if n + error >= lowest]
        if len(contenders) > MAX_AUTHOR_RECOUNTS:
            return _exact_top_authors(searcher, base, top, selected, min_count=lowest)
        exact = _recount(searcher, base, contenders, whole=whole)
    else:
        exact = reported
    chosen = dict(list(_ordered(exact).items())[:top])
    threshold = min(chosen.values(), default=0) if len(chosen) == top else 0
    left_out = error + (buckets[-1]["doc_count"] if len(buckets) >= top + AUTHOR_FACET_SLACK else 0)
    if left_out and left_out >= threshold:
        # An author left out might reach the top-th count: count all who can, exactly.
        return _exact_top_authors(searcher, base, top, selected, min_count=threshold)
    return chosen | {pk: n for pk, n in selected.items() if pk not in chosen}


def _recount(searcher, base: Query, author_ids: list[int], *, whole: bool) -> dict[int, int]:
    """Exact counts of these authors' papers among the base's.

    Over the whole catalogue an author's count is their posting list's length; a narrower base
    is one pass with a filter aggregation per author, which is cheaper than intersecting the
    base with each author in turn.
    """
    if whole:
        return {
            pk: hit_count(
                searcher.search(Query.term_query(index_schema(), schema.AUTHOR_IDS, pk), 1)
            )
            for pk in author_ids
        }
    return _filtered_counts(searcher.aggregate(base, _author_filters(author_ids)), author_ids)


def _nth_largest(counts: dict[int, int], n: int) -> int:
    return sorted(counts.values(), reverse=True)[n - 1] if len(counts) >= n else 0


def _exact_top_authors(searcher, base: Query, top: int, selected, *, min_count: int):
    """Every author with at least `min_count` matches, counted exactly; the top and selected."""
    request = {"author": _terms_request(schema.AUTHOR_IDS, min_count=max(1, min_count))}
    buckets = searcher.aggregate(base, request)["author"]["buckets"]
    chosen = dict(list(_ordered({int(b["key"]): b["doc_count"] for b in buckets}).items())[:top])
    return chosen | {pk: n for pk, n in selected.items() if pk not in chosen}


# --- The author facet over broad matches --------------------------------------------------
#
# Counting authors is most of a listing's work: each match holds several author ids (15 ms
# over 100,000 papers, ten times that over 1,000,000). But an author has at most as many
# matches as papers, so the catalogue's most frequent authors, counted once per searcher, bound
# every narrower count. Over broad matches the top authors are then found by counting only the
# most frequent authors of the catalogue, in that order, until no author left could reach the
# top; what that does not settle in a few rounds, the full aggregation (_top_authors) does.

# Authors kept per searcher, by papers in the catalogue.
CATALOGUE_AUTHORS = 2000
# Matches at least this share of the catalogue are "broad". Their authors' counts are the
# catalogue's minus those of the papers not matched, which are fewer. Below it, counting the
# top authors among those few takes more rounds than one aggregation over the matches costs.
BROAD_SHARE = 0.8
# The first round counts the top N plus this many authors; each next round four times as many.
BROAD_FIRST_EXTRA = 30
BROAD_ROUNDS = 3


@dataclass(frozen=True)
class CatalogueAuthors:
    """The catalogue's most frequent authors, as (author id, papers) ordered by papers then id:
    every author with more than `floor` papers, and no other."""

    ranked: list[tuple[int, int]]
    floor: int

    @cached_property
    def papers(self) -> dict[int, int]:
        """The same counts by author id, built once per searcher."""
        return dict(self.ranked)


def _once_per_searcher(compute: Callable[[tantivy.Searcher], T]) -> Callable[[tantivy.Searcher], T]:
    """`compute` run once per searcher (a searcher is one snapshot of the index; SearchIndex
    keeps one per state it loads), so a change to the catalogue is never answered with old
    statistics: the last searcher's answer is kept."""
    last: tuple[tantivy.Searcher, T] | None = None

    @wraps(compute)
    def cached(searcher: tantivy.Searcher) -> T:
        nonlocal last
        known = last
        if known is None or known[0] is not searcher:
            known = last = (searcher, compute(searcher))
        return known[1]

    return cached


@_once_per_searcher
def catalogue_authors(searcher: tantivy.Searcher) -> CatalogueAuthors:
    """Counted once per searcher (_once_per_searcher)."""
    # Every segment reports every author (segment_size), so the merged counts are exact; only
    # the list is cut, after the merge, at the top CATALOGUE_AUTHORS.
    request = {"author": _terms_request(schema.AUTHOR_IDS, exact_top=CATALOGUE_AUTHORS)}
    buckets = searcher.aggregate(Query.all_query(), request)["author"]["buckets"]
    counts = {int(b["key"]): b["doc_count"] for b in buckets}
    # A cut list may have left out some authors tied with its last count: keep only those above.
    floor = min(counts.values()) if len(counts) >= CATALOGUE_AUTHORS else 0
    ranked = [(pk, n) for pk, n in _ordered(counts).items() if n > floor]
    return CatalogueAuthors(ranked, floor)


def _broad_top_authors(
    searcher, base: Query | None, matched: int, top: int, selected: Iterable[int]
) -> dict[int, int] | None:
    """The author facet over `base` (None: the whole catalogue), which matches `matched`
    papers, as _top_authors gives it; None when the matches are not broad or the catalogue's
    top authors do not settle it."""
    if top < 1 or matched < BROAD_SHARE * searcher.num_docs:
        return None
    catalogue = catalogue_authors(searcher)
    ranked = catalogue.ranked
    selected = valid_ids(selected)
    if base is None:
        if len(ranked) < top and catalogue.floor:
            return None
        chosen = dict(ranked[:top])
        wanted = [pk for pk in selected if pk not in chosen]
        return chosen | _catalogue_counts(searcher, catalogue, wanted)
    not_matched = Query.boolean_query([(Occur.Must, Query.all_query()), (Occur.MustNot, base)])
    counts: dict[int, int] = {}
    done, size = 0, top + BROAD_FIRST_EXTRA
    for _ in range(BROAD_ROUNDS):
        batch = dict(ranked[done : done + size])
        done += len(batch)
        wanted = [pk for pk in selected if pk not in counts and pk not in batch]
        counts |= _counts_among(searcher, not_matched, catalogue, batch, wanted)
        chosen = dict(list(_ordered({pk: n for pk, n in counts.items() if n}).items())[:top])
        if done == len(ranked) and not catalogue.floor:  # every author counted
            break
        # An author not counted yet has at most `bound` matches: fewer than the top's last.
        bound = ranked[done][1] if done < len(ranked) else catalogue.floor
        if len(chosen) == top and min(chosen.values()) > bound:
            break
        if done == len(ranked):
            return None
        size *= 4
    else:
        return None
    return chosen | {pk: counts[pk] for pk in selected if pk not in chosen}


# --- The author facet from the popular authors ----------------------------------------------
#
# The index also holds, on each paper, the ids of its authors among the catalogue's most
# prolific (schema.POPULAR_AUTHOR_IDS): about a third of the author ids. Over many matches
# the top authors are among them, and counting them alone is exact for them; the top is
# settled once its last count is above the most papers any other author has.


@dataclass(frozen=True)
class PopularAuthors:
    ids: frozenset[int]  # the authors in POPULAR_AUTHOR_IDS, each on every paper of theirs
    bound: int  # the most papers in the catalogue of any other author


def indexed_popular_authors(searcher: tantivy.Searcher) -> frozenset[int]:
    """The authors whose ids the index holds in POPULAR_AUTHOR_IDS: an update puts the ids of
    these, and only these, in the documents it adds (store.SearchIndex._apply)."""
    request = {"author": _terms_request(schema.POPULAR_AUTHOR_IDS)}
    buckets = searcher.aggregate(Query.all_query(), request)["author"]["buckets"]
    return frozenset(int(b["key"]) for b in buckets)


@_once_per_searcher
def popular_authors(searcher: tantivy.Searcher) -> PopularAuthors:
    """Counted once per searcher, as catalogue_authors is."""
    ids = indexed_popular_authors(searcher)
    catalogue = catalogue_authors(searcher)
    # The catalogue's ranked authors are every author with more than `floor` papers, most first.
    others = (n for pk, n in catalogue.ranked if pk not in ids)
    return PopularAuthors(ids, next(others, catalogue.floor))


def _popular_top_authors(
    searcher, base: Query, matched: int, top: int, selected: Iterable[int]
) -> dict[int, int] | None:
    """The author facet over `base` (`matched` papers) as _top_authors gives it, from the
    popular authors alone; None when that does not settle it (few matches: the full count is
    cheap then)."""
    popular = popular_authors(searcher)
    if top < 1 or len(popular.ids) < top or matched <= popular.bound:
        return None  # (no author can have more matches than the bound)
    selected = valid_ids(selected)
    request = {"author": _terms_request(schema.POPULAR_AUTHOR_IDS, exact_top=top + 1)}
    answer = searcher.aggregate(base, request | _author_filters(selected))
    found = _ordered({int(b["key"]): b["doc_count"] for b in answer["author"]["buckets"]})
    counts = list(found.values())
    if len(counts) < top or counts[top - 1] <= popular.bound:
        return None  # another author may have as many matches as the top-th
    found = _with_ties_at_the_cut(searcher, base, schema.POPULAR_AUTHOR_IDS, found, top)
    chosen = dict(list(found.items())[:top])
    return chosen | {
        pk: n for pk, n in _filtered_counts(answer, selected).items() if pk not in chosen
    }


def _counts_among(
    searcher, not_matched: Query, catalogue: CatalogueAuthors, batch: dict[int, int], others
) -> dict[int, int]:
    """Matches of the batch's authors (given with their catalogue counts) and of `others`:
    their papers in the catalogue minus those among the papers not matched, in one pass."""
    everywhere = batch | _catalogue_counts(searcher, catalogue, others)
    outside = _filtered_counts(
        searcher.aggregate(not_matched, _author_filters(everywhere)), everywhere
    )
    return {pk: n - outside[pk] for pk, n in everywhere.items()}


def _catalogue_counts(searcher, catalogue: CatalogueAuthors, author_ids) -> dict[int, int]:
    """Each author's papers in the catalogue: from the ranked list, else its posting list."""
    known = catalogue.papers
    return {
        pk: known[pk]
        if pk in known
        else hit_count(searcher.search(Query.term_query(index_schema(), schema.AUTHOR_IDS, pk), 1))
        for pk in author_ids
    }


def _count(searcher, base: Query, paper_ids) -> int:
    return hit_count(searcher.search(all_of([base, any_of(schema.ID, paper_ids)]), 1))


def _ordered(counts: dict[int, int]) -> dict[int, int]:
    return dict(sorted(counts.items(), key=lambda item: (-item[1], item[0])))


def no_facets(query: BrowseQuery) -> Facets:
    counts = {
        spec.engine_name: dict.fromkeys(sorted(facet_selection(query, spec)), 0)
        for spec in INDEXED_FACETS
    }
    return Facets(**counts, mine=dict.fromkeys(query.mine_sets, 0))
