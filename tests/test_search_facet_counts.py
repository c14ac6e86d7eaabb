"""Facet counts of the Tantivy search engine: exact, disjunctive, equal to the database's GROUP BY.

Every test compares the counts over one catalogue of 60 tagged papers, made once for the module
in an outer transaction (each test's own writes roll back to it) and rolled back at the end.
"""

from __future__ import annotations

import random

import pytest
from django.db import transaction

from papers.models import Author, Paper, PaperTag
from papers.search import counting, documents, engine
from tests.factories import make_lab_tag, make_paper, make_tag
from tests.search_engine_helpers import (
    AREA,
    FACET_KINDS,
    KEYWORD,
    LAB,
    TRACK,
    VENUE,
    browse,
    db_facet_counts,
    db_matches,
    expected_authors,
    tag_ids,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module", autouse=True)
def tagged_catalogue(django_db_setup, django_db_blocker):
    """60 papers with random venues, tracks, lab tags and authors; "quokka" in about half."""
    with django_db_blocker.unblock(), transaction.atomic():
        _make_catalogue()
        yield
        transaction.set_rollback(True)


def _make_catalogue():
    rng = random.Random(7)
    authors = [f"Author {chr(65 + n)}{n}" for n in range(14)]
    venues = ["ICLR 2024", "NeurIPS 2023", "ICML 2023"]
    tracks = ["Poster", "Spotlight", "Oral"]
    labs = ["rl", "vision", "theory", "nlp"]
    topics = random.Random(11)
    for n in range(60):
        topic = "quokka" if rng.random() < 0.5 else "wombat"
        paper = make_paper(
            f"Paper {n} on {topic}s",
            abstract=f"A study of {topic} behaviour, number {n}.",
            authors=rng.sample(authors, rng.randint(1, 4)),
            tags=[(rng.choice(venues), VENUE), (rng.choice(tracks), TRACK)],
        )
        for lab in rng.sample(labs, rng.randint(0, 2)):
            make_lab_tag(paper, lab)
        # Keywords and areas from their own generator: the data above stays as it was.
        for keyword in topics.sample(KEYWORDS, topics.randint(0, 3)):
            PaperTag.objects.create(paper=paper, tag=make_tag(keyword, KEYWORD))
        if topics.random() < 0.8:
            PaperTag.objects.create(paper=paper, tag=make_tag(topics.choice(AREAS), AREA))


KEYWORDS = ["graphs", "bandits", "kernels", "diffusion", "sparsity", "agents", "privacy", "music"]
AREAS = ["generative models", "optimization", "reinforcement learning"]


def selections():
    first_authors = list(Author.objects.order_by("pk").values_list("pk", flat=True))
    return [
        {},
        {"venue": tag_ids(VENUE, "ICLR 2024")},
        {"venue": tag_ids(VENUE, "ICLR 2024", "ICML 2023"), "track": tag_ids(TRACK, "Poster")},
        {"lab": tag_ids(LAB, "rl", "vision"), "track": tag_ids(TRACK, "Oral", "Spotlight")},
        {"author": {first_authors[0]}, "venue": tag_ids(VENUE, "NeurIPS 2023")},
        {
            "author": set(first_authors[-2:]),
            "lab": tag_ids(LAB, "theory"),
            "venue": tag_ids(VENUE, "ICLR 2024", "NeurIPS 2023"),
            "track": tag_ids(TRACK, "Poster"),
        },
        {"keyword": tag_ids(KEYWORD, "music", "privacy")},
        {"keyword": tag_ids(KEYWORD, "graphs"), "area": tag_ids(AREA, "optimization")},
        {"area": tag_ids(AREA, "generative models"), "venue": tag_ids(VENUE, "ICLR 2024")},
    ]


def assert_facets_equal_group_by(searcher, text):
    for selection in selections():
        results = engine.search(searcher, browse(text, selection), author_facet_size=3)
        expected_ids = set(db_matches(text, selection).values_list("pk", flat=True))
        assert results.total == len(expected_ids)
        assert set(results.ids) <= expected_ids
        for name in FACET_KINDS:
            expected = db_facet_counts(text, selection, name)
            chosen = selection.get(name, set())
            expected |= {pk: 0 for pk in chosen if pk not in expected}
            assert getattr(results.facets, name) == expected, (name, selection)
            # Ordered by count, then id.
            assert list(getattr(results.facets, name).items()) == sorted(
                expected.items(), key=lambda r: (-r[1], r[0])
            )
        authors = db_facet_counts(text, selection, "author")
        assert results.facets.author == expected_authors(
            authors, 3, selection.get("author", set())
        ), selection
        keywords = db_facet_counts(text, selection, "keyword")
        assert results.facets.keyword == expected_authors(
            keywords, counting.TOP_KEYWORDS, selection.get("keyword", set())
        ), selection


# (authors returned beyond the top, authors each segment reports, most recounts): the defaults,
# then limits that force every path of counting._top_authors on this small catalogue.
AUTHOR_CUTS = [
    (counting.AUTHOR_FACET_SLACK, counting.AUTHOR_SEGMENT_SIZE, counting.MAX_AUTHOR_RECOUNTS),
    (1, 2, 100),  # segments cut their lists: contenders recounted one by one
    (1, 2, 1),  # too many contenders: one exact aggregation instead
    (0, 3, 100),  # no slack: authors left out may tie the last one shown
]


@pytest.mark.parametrize("text", [None, "quokka"])
@pytest.mark.parametrize("commit_every", [13, None])
@pytest.mark.parametrize("cuts", AUTHOR_CUTS)
def test_every_facet_count_equals_a_database_group_by(
    index_of, monkeypatch, text, commit_every, cuts
):
    for name, value in zip(
        ["AUTHOR_FACET_SLACK", "AUTHOR_SEGMENT_SIZE", "MAX_AUTHOR_RECOUNTS"], cuts, strict=True
    ):
        monkeypatch.setattr(counting, name, value)
    monkeypatch.setattr(documents, "POPULAR_AUTHORS", 0)  # the cut aggregation, every time
    searcher = index_of(commit_every=commit_every)
    # Counts must be exact across segments, and within a single one.
    assert (searcher.num_segments > 1) == bool(commit_every)
    assert_facets_equal_group_by(searcher, text)


# (matches share that counts as broad, catalogue authors kept, first round's extra authors):
# the defaults, then settings that send every base through the broad path, with the whole
# author list or a cut one (later rounds, fallbacks), then none.
BROAD_SETTINGS = [
    (counting.BROAD_SHARE, counting.CATALOGUE_AUTHORS, counting.BROAD_FIRST_EXTRA),
    (0.0, 2000, 0),
    (0.0, 5, 0),
    (0.0, 9, 1),
    (2.0, 2000, 30),
]


@pytest.mark.parametrize("text", [None, "quokka"])
@pytest.mark.parametrize("commit_every", [13, None])
@pytest.mark.parametrize("top_keywords", [counting.TOP_KEYWORDS, 2, 5])
def test_keyword_counts_equal_a_database_group_by(
    index_of, monkeypatch, text, commit_every, top_keywords
):
    # Few keywords shown: the cut falls among ties, which must all be counted.
    monkeypatch.setattr(counting, "TOP_KEYWORDS", top_keywords)
    assert_facets_equal_group_by(index_of(commit_every=commit_every), text)


@pytest.mark.parametrize("text", [None, "quokka"])
@pytest.mark.parametrize("commit_every", [13, None])
@pytest.mark.parametrize("broad", BROAD_SETTINGS)
def test_author_counts_over_broad_matches_equal_a_database_group_by(
    index_of, monkeypatch, text, commit_every, broad
):
    names = ["BROAD_SHARE", "CATALOGUE_AUTHORS", "BROAD_FIRST_EXTRA"]
    for name, value in zip(names, broad, strict=True):
        monkeypatch.setattr(counting, name, value)
    monkeypatch.setattr(documents, "POPULAR_AUTHORS", 0)  # the broad path, when broad
    assert_facets_equal_group_by(index_of(commit_every=commit_every), text)


@pytest.mark.parametrize("text", [None, "quokka"])
@pytest.mark.parametrize("commit_every", [13, None])
@pytest.mark.parametrize("popular", [1, 4, 9])
def test_author_counts_from_the_popular_authors_equal_a_database_group_by(
    index_of, monkeypatch, text, commit_every, popular
):
    # Few popular authors: some bases are settled by them, the others fall back.
    monkeypatch.setattr(documents, "POPULAR_AUTHORS", popular)
    assert_facets_equal_group_by(index_of(commit_every=commit_every), text)


def test_broad_matches_are_counted_without_the_full_author_aggregation(index_of, monkeypatch):
    searcher = index_of(commit_every=13)

    def full_aggregation(*args, **kwargs):
        raise AssertionError("the catalogue's top authors should have settled the facet")

    monkeypatch.setattr(counting, "BROAD_SHARE", 0.5)
    monkeypatch.setattr(counting, "_top_authors", full_aggregation)
    monkeypatch.setattr(counting, "_exact_top_authors", full_aggregation)
    venues = tag_ids(VENUE, "ICLR 2024", "NeurIPS 2023")
    for selection in [{}, {"venue": venues}]:
        results = engine.search(searcher, browse(None, selection), author_facet_size=3)
        expected = expected_authors(db_facet_counts(None, selection, "author"), 3, set())
        assert results.total >= 30  # broad: half of the catalogue or more
        assert results.facets.author == expected


def test_selected_authors_are_counted_even_outside_the_top(index_of):
    searcher = index_of()
    counts = db_facet_counts(None, {}, "author")
    least = min(counts, key=lambda pk: (counts[pk], -pk))
    results = engine.search(searcher, browse(None, {"author": {least}}), author_facet_size=2)
    assert results.facets.author[least] == counts[least]
    assert len(results.facets.author) == 3
    only_selected = engine.search(
        searcher, browse(None, {"author": {least}}), author_facet_size=0
    ).facets.author
    assert only_selected == {least: counts[least]}


def test_mine_counts_and_filters_matches(index_of):
    searcher = index_of()
    quokkas = list(Paper.objects.filter(abstract__contains="quokka").order_by("pk"))
    wombat = Paper.objects.filter(abstract__contains="wombat").first()
    listed = frozenset(p.pk for p in quokkas[:5]) | {wombat.pk}
    noted = frozenset(p.pk for p in quokkas[3:9])
    oral = {"track": tag_ids(TRACK, "Oral")}
    sets = {"lists": listed, "notes": noted}

    results = engine.search(searcher, browse("quokka", oral, mine_sets=sets, limit=100))
    base = set(db_matches("quokka", oral).values_list("pk", flat=True))
    assert results.facets.mine == {"lists": len(base & listed), "notes": len(base & noted)}

    # Selecting "mine" filters the matches; its counts stay over the matches without it.
    selected = browse("quokka", oral, mine_ids=listed | noted, mine_sets=sets, limit=100)
    results = engine.search(searcher, selected)
    assert set(results.ids) == base & (listed | noted)
    assert results.total == len(base & (listed | noted))
    assert results.facets.mine == {"lists": len(base & listed), "notes": len(base & noted)}
    assert results.facets.venue == db_facet_counts("quokka", oral, "venue", mine=listed | noted)
    # A user with nothing in the lists sees nothing when selecting the facet.
    assert engine.search(searcher, browse(None, {}, mine_ids=frozenset())).total == 0
