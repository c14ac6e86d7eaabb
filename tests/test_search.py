"""Full-text search: the same contract on PostgreSQL (tsvector) and SQLite (FTS5)."""

from __future__ import annotations

import re
import time

import pytest
from django.core.management import call_command
from django.core.paginator import Paginator
from django.db import connection
from django.utils.safestring import SafeString

from papers.models import Paper, TagKind
from papers.search import (
    MAX_PHRASE_WORDS,
    SNIPPET_WORDS,
    Clause,
    headlines,
    parse_query,
    search,
    similar_papers,
)
from papers.text import MAX_ABSTRACT
from tests.factories import make_paper

pytestmark = pytest.mark.django_db


def titles(queryset) -> list[str]:
    return [paper.title for paper in queryset.order_by("-search_rank", "pk")]


@pytest.fixture
def library():
    """A few papers on distinct topics among unrelated ones, so terms are rare as in a catalogue.

    bm25 (SQLite) gives no weight to a term found in half the papers or more.
    """
    for n in range(10):
        make_paper(f"Botany note {n}", abstract=f"Leaves, stems and roots, sample {n}.")
    return {
        "title_hit": make_paper(
            "Sparse attention for long documents",
            abstract="We make transformers cheaper on long inputs.",
            authors=["Grace Hopper"],
        ),
        "abstract_hit": make_paper(
            "Cheaper transformers",
            abstract="Our method uses sparse attention, and sparse attention is all it needs.",
            authors=["Alan Turing"],
        ),
        "graphs": make_paper(
            "Message passing on graphs",
            abstract="A graph network whose nodes exchange messages.",
            authors=["Ada Lovelace", "Grace Hopper"],
        ),
        "robots": make_paper(
            "Robot arms that learn to grasp",
            abstract="Reinforcement learning for manipulation with neural networks.",
            authors=["Barbara Liskov"],
        ),
        "vision": make_paper(
            "Image classifiers under distribution shift",
            abstract="Convolutional networks fail when the passing of time changes the images.",
            authors=["Edsger Dijkstra"],
        ),
    }


# --- Query parsing (backend-independent) ---------------------------------------------------


def test_bare_words_are_anded_in_one_group():
    assert parse_query("graph Networks") == ((Clause(("graph",)), Clause(("networks",))),)


def test_or_splits_groups_and_binds_looser_than_and():
    assert parse_query("a graph b or robot") == (
        (Clause(("graph",)), Clause(("b",))),
        (Clause(("robot",)),),
    )


def test_quotes_make_a_phrase_and_minus_excludes():
    assert parse_query('"message passing" -graph') == (
        (Clause(("message", "passing")), Clause(("graph",), negated=True)),
    )


def test_stop_words_and_punctuation_leave_nothing_to_search():
    assert parse_query('the and "of" * ( ) : ^ -') == ()


def test_a_group_of_only_exclusions_is_dropped():
    assert parse_query("graph or -robot") == ((Clause(("graph",)),),)


# --- Matching and ranking ------------------------------------------------------------------


def test_title_match_ranks_above_abstract_only_match(library):
    assert titles(search(Paper.objects.all(), "sparse attention")) == [
        "Sparse attention for long documents",
        "Cheaper transformers",
    ]


def test_search_rank_is_a_float_higher_for_the_better_match(library):
    ranks = {p.pk: p.search_rank for p in search(Paper.objects.all(), "sparse")}
    assert isinstance(ranks[library["title_hit"].pk], float)
    assert ranks[library["title_hit"].pk] > ranks[library["abstract_hit"].pk]


def test_author_name_finds_the_authors_papers(library):
    assert set(titles(search(Paper.objects.all(), "Hopper"))) == {
        "Sparse attention for long documents",
        "Message passing on graphs",
    }
    assert titles(search(Paper.objects.all(), '"Ada Lovelace"')) == ["Message passing on graphs"]


def test_quoted_phrase_needs_the_words_next_to_each_other(library):
    # Both words occur in other orders and places, never as "passing message".
    assert titles(search(Paper.objects.all(), '"message passing"')) == ["Message passing on graphs"]
    assert titles(search(Paper.objects.all(), '"passing message"')) == []


def test_minus_excludes_papers_with_the_word(library):
    assert set(titles(search(Paper.objects.all(), "networks"))) == {
        "Message passing on graphs",
        "Robot arms that learn to grasp",
        "Image classifiers under distribution shift",
    }
    assert set(titles(search(Paper.objects.all(), "networks -graph"))) == {
        "Robot arms that learn to grasp",
        "Image classifiers under distribution shift",
    }


def test_bare_words_must_all_match(library):
    assert titles(search(Paper.objects.all(), "networks robot")) == [
        "Robot arms that learn to grasp"
    ]


def test_or_matches_either_word(library):
    assert set(titles(search(Paper.objects.all(), "robot or image"))) == {
        "Robot arms that learn to grasp",
        "Image classifiers under distribution shift",
    }


def test_stemming_finds_other_forms_of_a_word(library):
    assert "Message passing on graphs" in titles(search(Paper.objects.all(), "network"))
    assert titles(search(Paper.objects.all(), "grasping")) == ["Robot arms that learn to grasp"]


def test_search_keeps_the_filter_of_a_prefiltered_queryset(library):
    make_paper("Graph kernels", abstract="Networks of kernels.", tags=[("Oral", TagKind.TRACK)])
    orals = Paper.objects.filter(paper_tags__tag__name="Oral")
    assert titles(search(orals, "networks")) == ["Graph kernels"]
    assert search(orals, "robot").count() == 0


def test_results_order_paginate_and_count_with_paginator(library, django_assert_num_queries):
    for n in range(5):
        make_paper(f"Graph study {n}", abstract="Graphs again.")
    results = search(Paper.objects.for_listing(), "graph").order_by("-search_rank", "pk")
    with django_assert_num_queries(4):  # count, page, authors prefetch, tags prefetch
        page = Paginator(results, 4).get_page(2)
        rows = list(page.object_list)
    assert page.paginator.count == 6
    assert len(rows) == 2
    ranks = [p.search_rank for p in results]
    assert ranks == sorted(ranks, reverse=True)


def test_search_results_work_as_a_subquery(library):
    matching = search(Paper.objects.all(), "networks").values("pk")
    assert Paper.objects.filter(pk__in=matching).count() == 3


def test_nothing_searchable_returns_an_empty_queryset_still_orderable_by_rank(library):
    results = search(Paper.objects.all(), "the of and")
    assert list(results.order_by("-search_rank")) == []
    assert results.count() == 0


ODD_QUERIES = [
    "",
    "   ",
    "the and of",
    '"',
    '""',
    '"unmatched quote',
    "*",
    "**",
    "(",
    ")",
    "( )",
    "NEAR",
    "NEAR(zebra quokka)",
    "AND",
    "OR",
    "NOT",
    "-",
    "--",
    "-graph",
    ":",
    "title:",
    "abstract:zebra",
    "^",
    "^zebra",
    "{title}: zebra",
    "'; DROP TABLE papers_paper; --",
    "😀🚀",
    "日本語の論文",
    "x" * 1000,
    "a\x00b",
    "\x00",
    "\\",
    "%_%",
]


@pytest.mark.parametrize("query", ODD_QUERIES)
def test_odd_queries_return_no_results_and_never_raise(library, query):
    results = search(Paper.objects.all(), query)
    assert list(results.order_by("-search_rank")) == []
    assert results.count() == 0
    pks = [p.pk for p in library.values()]
    snippets = headlines(pks, query)
    assert set(snippets) == set(pks)


def test_queries_mixing_odd_characters_with_real_words_still_search(library):
    assert titles(search(Paper.objects.all(), '(robot* AND "grasp" :^')) == [
        "Robot arms that learn to grasp"
    ]


# --- Headlines -----------------------------------------------------------------------------


def test_headline_escapes_html_and_marks_matches():
    paper = make_paper(
        "XSS", abstract="Beware <script>alert(1)</script> in a graph abstract & $a<b$."
    )
    snippet = headlines([paper.pk], "graph")[paper.pk]
    assert isinstance(snippet, SafeString)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in snippet
    assert "<script>" not in snippet
    assert "<mark>graph</mark>" in snippet
    assert "&amp;" in snippet
    assert "$a&lt;b$" in snippet


def test_headline_is_bounded_and_centred_on_the_match():
    filler = " ".join(f"word{n}" for n in range(200))
    paper = make_paper("Long", abstract=f"{filler} the quokka appears here. {filler}")
    snippet = headlines([paper.pk], "quokka")[paper.pk]
    assert "<mark>quokka</mark>" in snippet
    assert len(snippet.split()) <= 45
    assert "…" in snippet


def test_headlines_for_a_page_take_one_query(library, django_assert_num_queries):
    pks = [p.pk for p in library.values()]
    with django_assert_num_queries(1):
        snippets = headlines(pks, "networks")
    assert set(snippets) == set(pks)
    assert "<mark>" in snippets[library["robots"].pk]


def test_headline_of_a_paper_without_abstract_match_shows_its_opening(library):
    snippet = headlines([library["title_hit"].pk], "sparse")[library["title_hit"].pk]
    assert snippet.startswith("We make transformers cheaper")
    assert "<mark>" not in snippet


def test_marker_characters_in_an_abstract_do_not_leak_into_the_snippet():
    paper = make_paper("Markers", abstract="Odd \ue000 characters \ue001 around a zebra.")
    snippet = headlines([paper.pk], "zebra")[paper.pk]
    assert "\ue000" not in snippet and "\ue001" not in snippet
    assert "<mark>zebra</mark>" in snippet


# --- Similar papers ------------------------------------------------------------------------


def test_similar_papers_share_two_title_words_or_an_author_and_exclude_the_paper(
    library, django_assert_num_queries
):
    paper = make_paper(
        "Sparse attention on graphs",
        abstract="Attention, sparse and cheap, for long inputs.",
        authors=["Alan Turing"],
    )
    with django_assert_num_queries(1):
        similar = list(similar_papers(paper))
    # "Message passing on graphs" shares a single title word: not similar enough.
    assert len(similar) == 2
    assert set(similar) == {library["title_hit"], library["abstract_hit"]}


def test_similar_papers_respects_the_limit(library):
    paper = make_paper("Sparse attention again", authors=["Alan Turing"])
    assert len(similar_papers(paper, limit=1)) == 1


def test_similar_papers_of_a_paper_with_nothing_searchable_is_empty():
    paper = make_paper("The", abstract="Of the.")
    make_paper("Anything", abstract="At all.")
    assert list(similar_papers(paper)) == []


# --- Keeping the index in step with the table ----------------------------------------------


def test_index_follows_bulk_create_bulk_update_and_delete():
    created = Paper.objects.bulk_create(
        [
            Paper(
                title="Quokka ecology",
                abstract="Marsupials.",
                author_names="Ann Author",
                forum_id="q1",
            ),
            Paper(
                title="Wombat burrows", abstract="Digging.", author_names="Bo Writer", forum_id="q2"
            ),
        ]
    )
    assert titles(search(Paper.objects.all(), "quokka")) == ["Quokka ecology"]
    assert titles(search(Paper.objects.all(), "Writer")) == ["Wombat burrows"]

    wombat = Paper.objects.get(forum_id="q2")
    wombat.title = "Quokka burrows"
    Paper.objects.bulk_update([wombat], ["title"])
    assert set(titles(search(Paper.objects.all(), "quokka"))) == {
        "Quokka ecology",
        "Quokka burrows",
    }
    assert titles(search(Paper.objects.all(), "wombat")) == []

    Paper.objects.filter(pk=created[0].pk).delete()
    assert titles(search(Paper.objects.all(), "quokka")) == ["Quokka burrows"]


def test_index_follows_save_and_author_name_refresh():
    paper = make_paper("Platypus venom", abstract="Spurs.")
    paper.abstract = "Electroreception in the bill."
    paper.save()
    assert titles(search(Paper.objects.all(), "electroreception")) == ["Platypus venom"]
    assert titles(search(Paper.objects.all(), "spurs")) == []
    paper = make_paper("Echidna eggs", authors=["Nora Naturalist"])
    assert titles(search(Paper.objects.all(), "Naturalist")) == ["Echidna eggs"]


def test_index_follows_upserts():
    old = make_paper("Old title", abstract="Kiwi birds.", forum_id="up1")
    Paper.objects.bulk_create(
        [Paper(pk=old.pk, title="New title about kakapo", abstract="Kiwi birds.", forum_id="up1")],
        update_conflicts=True,
        unique_fields=["id"],
        update_fields=["title"],
    )
    assert titles(search(Paper.objects.all(), "kakapo")) == ["New title about kakapo"]


def test_rebuild_search_index_command(capsys):
    make_paper("Axolotl regeneration", abstract="Limbs grow back.")
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO papers_fts(papers_fts) VALUES ('delete-all')")
        assert titles(search(Paper.objects.all(), "axolotl")) == []
    call_command("rebuild_search_index")
    output = capsys.readouterr().out
    assert titles(search(Paper.objects.all(), "axolotl")) == ["Axolotl regeneration"]
    if connection.vendor == "sqlite":
        assert "Rebuilt the SQLite search index: 1 papers." in output
    else:
        assert "nothing to rebuild" in output


def test_headline_is_the_window_with_the_most_matches():
    abstract = " ".join(["filler"] * 200 + ["quokka", "filler", "quokka", "quokka"] + ["end"] * 50)
    paper = make_paper(abstract=abstract)
    snippet = headlines([paper.pk], "quokka")[paper.pk]
    assert snippet.count("<mark>quokka</mark>") == 3
    assert snippet.startswith("…") and snippet.endswith("…")


def test_headlines_of_hostile_abstracts_at_the_limit_stay_bounded():
    # One word repeated to the abstract limit: every word is a match. FTS5's snippet() scored
    # every window against every match (about 100 ms a paper); a page of 25 took seconds.
    abstract = ("x " * MAX_ABSTRACT)[:MAX_ABSTRACT]
    pks = [make_paper(abstract=abstract).pk for _ in range(25)]
    started = time.perf_counter()
    snippets = headlines(pks, "x")
    elapsed = time.perf_counter() - started
    for pk in pks:
        assert 0 < snippets[pk].count("<mark>") <= SNIPPET_WORDS
        assert len(snippets[pk].split()) <= SNIPPET_WORDS + 2
    # A regression guard, not a benchmark: linear work is ~0.1 s here, quadratic was ~3 s.
    assert elapsed < 1.5


def test_a_quoted_phrase_keeps_its_first_ten_words():
    phrase = " ".join(f"w{n}" for n in range(40))
    [[clause]] = parse_query(f'"{phrase}"')
    assert clause.words == tuple(f"w{n}" for n in range(MAX_PHRASE_WORDS))


def test_snippets_of_a_long_phrase_of_a_repeated_word_stay_bounded(statement_timeout):
    # PostgreSQL's ts_headline once grew one backend to 24 GB on a 64-word phrase of "x"
    # against such abstracts; the snippet now highlights each wanted word once, no phrases.
    abstract = ("x " * MAX_ABSTRACT)[:MAX_ABSTRACT]
    pks = [make_paper(abstract=abstract).pk for _ in range(25)]
    query = '"' + " ".join(["x"] * 200) + '"'
    assert search(Paper.objects.filter(pk__in=pks), query).count() == 25
    started = time.perf_counter()
    snippets = headlines(pks, query)
    # PostgreSQL marks each word, SQLite's highlight() the matched phrase as one stretch.
    assert all(re.search(r"<mark>x( x)*</mark>", snippets[pk]) for pk in pks)
    assert time.perf_counter() - started < 1.5


def test_snippets_of_a_phrase_mark_its_words(library):
    paper = library["robots"]
    snippet = headlines([paper.pk], f'"{paper.abstract.split()[0]} {paper.abstract.split()[1]}"')
    assert snippet[paper.pk].count("<mark>") >= 1
