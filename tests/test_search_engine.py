"""The Tantivy search engine (papers.search.engine) against indexes built in tmp_path.

Every expectation about which papers match, how many, and in what order is checked against
the database: facet counts against GROUP BY queries, sorts against ORDER BY.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest
import tantivy
from django.utils.safestring import SafeString

from papers.models import Author, Paper
from papers.search import counting, documents, engine, parse_query, schema, spelling
from papers.search.engine import BrowseQuery
from papers.search.query import Clause, parse_typed_words
from papers.search.snippets import SNIPPET_CHARS
from papers.text import MAX_ABSTRACT, title_sort_key
from tests.factories import make_lab_tag, make_paper, make_tag
from tests.search_engine_helpers import (
    LAB,
    TRACK,
    VENUE,
    browse,
    db_facet_counts,
    expected_authors,
    found,
    tag_ids,
)
from tests.test_search_parser import ODD_QUERIES

pytestmark = pytest.mark.django_db


def titles(searcher, text: str) -> list[str]:
    by_id = dict(Paper.objects.values_list("pk", "title"))
    return [by_id[pk] for pk in found(searcher, text)]


@pytest.fixture
def library():
    """The papers of tests/test_search.py's library: a few topics among unrelated papers."""
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


# --- Matching and ranking: the behaviours of tests/test_search.py ---------------------------


def test_title_match_ranks_above_abstract_only_match(library, index_of):
    assert titles(index_of(), "sparse attention") == [
        "Sparse attention for long documents",
        "Cheaper transformers",
    ]


def test_facet_filters_leave_the_ranking_alone(library, index_of):
    # Scored, a filter on a rare venue would add more to a paper's score than one on a common
    # venue, and lift `rare` above `common`, whose text matches slightly better.
    for n in range(8):
        make_paper(f"Filler {n}", tags=[("Common venue", VENUE)])
    make_paper("Filler", tags=[("Rare venue", VENUE)])
    common = make_paper("Quokka habits", abstract="Quokka quokka.", tags=[("Common venue", VENUE)])
    rare = make_paper("Quokka habits", abstract="Quokka.", tags=[("Rare venue", VENUE)])
    searcher = index_of()
    assert found(searcher, "quokka") == [common.pk, rare.pk]
    venues = frozenset(tag_ids(VENUE, "Common venue", "Rare venue"))
    assert found(searcher, "quokka", venue_ids=venues) == [common.pk, rare.pk]


def test_author_names_are_searchable_as_words_and_phrases(library, index_of):
    searcher = index_of()
    assert set(titles(searcher, "Hopper")) == {
        "Sparse attention for long documents",
        "Message passing on graphs",
    }
    assert titles(searcher, '"Ada Lovelace"') == ["Message passing on graphs"]


def test_quoted_phrase_needs_the_words_next_to_each_other(library, index_of):
    searcher = index_of()
    assert titles(searcher, '"message passing"') == ["Message passing on graphs"]
    assert titles(searcher, '"passing message"') == []


def test_a_phrase_keeps_its_stop_words(library, index_of):
    searcher = index_of()
    assert titles(searcher, '"learn to grasp"') == ["Robot arms that learn to grasp"]
    # A stop word holds its place, as in PostgreSQL: without it the words are not adjacent,
    # and any word fills it.
    assert titles(searcher, '"learn grasp"') == []
    assert titles(searcher, '"learn for grasp"') == ["Robot arms that learn to grasp"]
    assert titles(searcher, '"arms that learn"') == ["Robot arms that learn to grasp"]


def test_a_hyphenated_compound_needs_its_stop_words(index_of):
    # Found by QA: "in-context learning" ranked "Context-Aware Meta-Learning" first.
    icl = make_paper("Transformers learn in-context", abstract="In-context learning emerges.")
    make_paper("Context-aware meta-learning", abstract="Learning with the context at hand.")
    make_paper("Learning out of context", abstract="Learning in a new context.")  # not adjacent
    searcher = index_of()
    assert found(searcher, "in-context learning") == [icl.pk]
    # A submitted last word the index does not hold is read as begun (issue 27).
    assert found(searcher, "in-cont") == [icl.pk]


def test_minus_excludes_papers_with_the_word_or_phrase(library, index_of):
    searcher = index_of()
    assert set(titles(searcher, "networks")) == {
        "Message passing on graphs",
        "Robot arms that learn to grasp",
        "Image classifiers under distribution shift",
    }
    assert set(titles(searcher, "networks -graph")) == {
        "Robot arms that learn to grasp",
        "Image classifiers under distribution shift",
    }
    assert set(titles(searcher, 'networks -"neural networks"')) == {
        "Message passing on graphs",
        "Image classifiers under distribution shift",
    }


def test_bare_words_must_all_match_and_or_matches_either(library, index_of):
    searcher = index_of()
    assert titles(searcher, "networks robot") == ["Robot arms that learn to grasp"]
    assert set(titles(searcher, "robot or image")) == {
        "Robot arms that learn to grasp",
        "Image classifiers under distribution shift",
    }


def test_stemming_finds_other_forms_of_a_word(library, index_of):
    searcher = index_of()
    assert "Message passing on graphs" in titles(searcher, "network")
    assert titles(searcher, "grasping") == ["Robot arms that learn to grasp"]
    assert titles(searcher, "Graphs") == ["Message passing on graphs"]


def test_query_words_are_analysed_as_the_index_analysed_the_text(index_of):
    longest = "a" * 39  # en_stem keeps tokens under 40 bytes
    paper = make_paper(f"ÉCOLE Networks {longest} {'b' * 40} naïve", abstract="Élan vital.")
    searcher = index_of()
    for text in ["école", "network", longest, "NAÏVE", "élan", f'"networks {longest}"']:
        assert found(searcher, text) == [paper.pk], text
    # A token the index dropped holds its place in a phrase, as in the index.
    assert found(searcher, f'"{longest} naïve"') == []
    assert found(searcher, f'"{longest} {"c" * 40} naïve"') == [paper.pk]
    assert found(searcher, "b" * 40) == []


def test_accents_are_folded_both_ways(index_of):
    # Members type names and words without their accents, or with them where papers have none.
    paper = make_paper(
        "Schrödinger bridges", abstract="A naive Bayes baseline.", authors=["Jürgen Müller"]
    )
    searcher = index_of()
    for text in ["schrodinger", "Schrödinger", "muller", "MÜLLER", '"jurgen muller"', "naïve"]:
        assert found(searcher, text) == [paper.pk], text
    assert engine.spelling_suggestion(searcher, "schrodingr") == "schrödinger"


def test_greek_letters_find_titles_that_write_them_in_latex_or_as_letters(index_of):
    # Found by QA: pages show "$\\alpha$TC-VAE" as "αTC-VAE", and that is what people type.
    latex = make_paper("$\\alpha$TC-VAE: disentangled codes", abstract="Codes.")
    pi = make_paper("$\\pi$2vec: policy representations", abstract="Policies.")
    letters = make_paper("αTC-VAE revisited", abstract="Again.")
    searcher = index_of()
    assert sorted(found(searcher, "αTC-VAE")) == sorted([latex.pk, letters.pk])
    assert found(searcher, "π2vec") == [pi.pk]
    # Spelled out, the name finds both: the index spells a title's letters too (issue 27).
    assert sorted(found(searcher, "alpha TC-VAE")) == sorted([latex.pk, letters.pk])
    assert found(searcher, "-α codes") == []  # excluded either way
    assert engine.suggest(searcher, parse_typed_words("π2ve"), 5) == [pi.pk]  # the header box


def test_nothing_searchable_gives_no_results_and_zero_counts(library, index_of):
    venue = make_tag("ICLR 2024", VENUE)
    results = engine.search(index_of(), BrowseQuery(parsed=(), venue_ids=frozenset({venue.pk})))
    assert (results.ids, results.total) == ([], 0)
    assert results.facets.venue == {venue.pk: 0}
    assert results.facets.track == {} and results.facets.author == {}


HOSTILE_QUERIES = [
    "x" * 10_000,
    "graph " * 2_000,
    '"' + "graph " * 2_000,
    "title:graph",
    "abstract:*",
    "authors:(Hopper OR Turing)",
    "id:1 OR id:2",
    "graph^10",
    "graph~2",
    "gra*",
    "[a TO z]",
    "/.*/",
    "graph AND NOT robot",
    '\\"graph\\"',
]


@pytest.mark.parametrize("query", ODD_QUERIES + HOSTILE_QUERIES)
def test_hostile_queries_never_raise(library, index_of, query):
    searcher = index_of()
    pks = [p.pk for p in library.values()]
    results = engine.search(searcher, BrowseQuery(parsed=parse_query(query), limit=100))
    assert results.total == len(results.ids)
    if query in ODD_QUERIES:  # nothing searchable, or words no paper has
        assert results.ids == []
    assert set(engine.snippets(searcher, parse_query(query), pks)) == set(pks)


def test_boolean_not_excludes_and_bars_separate_alternatives(library, index_of):
    searcher = index_of()
    # Read as the stop word "not", NOT would ask for the robot papers: the opposite.
    assert sorted(titles(searcher, "networks NOT robot")) == [
        "Image classifiers under distribution shift",
        "Message passing on graphs",
    ]
    assert titles(searcher, "graph AND NOT robot") == ["Message passing on graphs"]
    assert titles(searcher, "networks NOT robot") == titles(searcher, "networks -robot")
    assert titles(searcher, 'networks NOT "learn to grasp"') == titles(
        searcher, "networks NOT robot"
    )
    assert titles(searcher, "networks not robot") == ["Robot arms that learn to grasp"]  # a word
    assert titles(searcher, "graph || robot") == titles(searcher, "graph or robot")


def test_a_trailing_star_matches_words_beginning_so(library, index_of):
    searcher = index_of()
    assert titles(searcher, "mess*") == ["Message passing on graphs"]
    assert titles(searcher, "mess graphs") == []  # not the last word: whole
    # Graphs, grasp, and Grace Hopper's papers.
    assert sorted(titles(searcher, "gra*")) == [
        "Message passing on graphs",
        "Robot arms that learn to grasp",
        "Sparse attention for long documents",
    ]
    assert titles(searcher, "gras*") == ["Robot arms that learn to grasp"]
    assert "Robot arms that learn to grasp" not in titles(searcher, "gra* -robot*")


def test_a_field_name_before_a_colon_is_left_out(library, index_of):
    searcher = index_of()
    # Read as the phrase "title graph", which no paper has, it found nothing. No field is
    # targeted: the words are searched as any others.
    assert titles(searcher, "title:graph") == titles(searcher, "graph") != []
    assert titles(searcher, "author:lovelace") == ["Message passing on graphs"]
    assert titles(searcher, 'Title:"message passing"') == ["Message passing on graphs"]
    assert titles(searcher, 'networks -title:"learn to grasp"') == titles(
        searcher, "networks -grasp"
    )
    # Other words before a colon stay words: "Robot: arms" is a title typed as written.
    assert titles(searcher, "robot: arms") == ["Robot arms that learn to grasp"]
    assert titles(searcher, "year:2024") == []


def test_operators_are_plain_words(library, index_of):
    searcher = index_of()
    # Punctuation splits words: "graph^10" is the phrase "graph 10", as in the SQL search.
    assert titles(searcher, "graph^10") == []
    assert titles(searcher, '(robot* AND "grasp" :^') == ["Robot arms that learn to grasp"]
    assert titles(searcher, "graph OR robot") == titles(searcher, "graph or robot")
    assert len(titles(searcher, "graph OR robot")) == 2
    assert titles(searcher, "graph " * 2_000) == ["Message passing on graphs"]


def test_clauses_the_index_cannot_hold_match_nothing(library, index_of):
    searcher = index_of()
    # Not from the parser: any tuple of words is safe, even ones that are not words at all.
    for words in [("*",), (":",), ("x" * 100,), ("",), ("robot", "*", "arms")]:
        query = engine.text_query(((Clause(words),),))
        if query is not None:
            assert searcher.search(query, 10).count <= 1
    assert engine.text_query(((Clause(("x" * 100,)),),)) is None
    # An exclusion the index cannot hold excludes nothing.
    query = engine.text_query(((Clause(("robot",)), Clause(("x" * 100,), negated=True)),))
    assert searcher.search(query, 10).count == 1


# --- Facet counts: exact, disjunctive, equal to the database's GROUP BY ----------------------
# (Those over a catalogue of tagged papers: tests/test_search_facet_counts.py.)


def test_many_matches_are_settled_by_the_popular_authors_alone(index_of, monkeypatch):
    for n in range(12):
        topic = "quokka" if n % 4 else "wombat"
        make_paper(f"Paper {n}", abstract=f"A {topic}.", authors=["Ann Lots", "Bo Lots", f"Z{n}"])
    monkeypatch.setattr(documents, "POPULAR_AUTHORS", 2)
    searcher = index_of(commit_every=5)

    def full_aggregation(*args, **kwargs):
        raise AssertionError("the popular authors should have settled the facet")

    monkeypatch.setattr(counting, "_top_authors", full_aggregation)
    monkeypatch.setattr(counting, "_exact_top_authors", full_aggregation)
    monkeypatch.setattr(counting, "BROAD_SHARE", 0.9)  # 9 of 12 papers: not broad
    results = engine.search(searcher, browse("quokka", {}), author_facet_size=2)
    ann, bo = Author.objects.get(name="Ann Lots").pk, Author.objects.get(name="Bo Lots").pk
    assert results.facets.author == {ann: 9, bo: 9}


def test_popular_authors_tied_at_the_cut_are_ordered_by_id(index_of, monkeypatch):
    # Cy has the lowest id of three authors tied for the top: a list cut at 2 must keep him.
    for name in ["Cy Low", "Di Mid", "Ed High"]:
        for n in range(3):
            make_paper(f"{name} {n}", abstract="Quokka.", authors=[name])
    make_paper("Other", abstract="Quokka.", authors=["Fay Once"])
    monkeypatch.setattr(documents, "POPULAR_AUTHORS", 3)
    results = engine.search(index_of(), browse("quokka", {}), author_facet_size=1)
    assert results.facets.author == {Author.objects.get(name="Cy Low").pk: 3}


def test_an_author_tied_with_the_top_is_counted_before_the_top_is_settled(index_of, monkeypatch):
    # Yu (the lower id) has as many matches as Xi, who has more papers: Yu comes first.
    for n in range(2):
        make_paper(f"Yu {n}", abstract="About quokkas.", authors=["Yu Tied"])
    for n, topic in enumerate(["quokkas", "quokkas", "wombats"]):
        make_paper(f"Xi {n}", abstract=f"About {topic}.", authors=["Xi Often"])
    monkeypatch.setattr(counting, "BROAD_FIRST_EXTRA", 0)  # the first round counts Xi alone
    results = engine.search(index_of(), browse("quokkas", {}), author_facet_size=1)
    assert results.facets.author == {Author.objects.get(name="Yu Tied").pk: 2}


def test_catalogue_author_counts_follow_the_searcher(index_of):
    for n in range(4):
        make_paper(f"Paper {n}", authors=["Ann Often"] if n else ["Bo Once"])
    before = engine.search(index_of(), BrowseQuery(), author_facet_size=1).facets.author
    for n in range(5):
        make_paper(f"More {n}", authors=["Bo Once"])
    after = engine.search(index_of(), BrowseQuery(), author_facet_size=1).facets.author
    ann, bo = Author.objects.get(name="Ann Often").pk, Author.objects.get(name="Bo Once").pk
    assert before == {ann: 3}
    assert after == {bo: 6}


def test_cut_author_lists_are_made_exact_by_recounting_the_contenders(index_of, monkeypatch):
    # Prolific authors in every segment, one-paper authors cut off by each segment's list.
    for n in range(60):
        names = ["Ann Prolific"] * (n % 2 == 0) + ["Bo Frequent"] * (n % 3 == 0) + [f"Solo {n}"]
        make_paper(f"Paper {n}", authors=names)
    monkeypatch.setattr(counting, "AUTHOR_SEGMENT_SIZE", 2)
    monkeypatch.setattr(counting, "AUTHOR_FACET_SLACK", 1)

    def no_full_aggregation(*args, **kwargs):
        raise AssertionError("the recounts should have settled the top authors")

    monkeypatch.setattr(counting, "_exact_top_authors", no_full_aggregation)
    searcher = index_of(commit_every=20)
    assert searcher.num_segments == 3
    results = engine.search(searcher, BrowseQuery(), author_facet_size=2)
    expected = expected_authors(db_facet_counts(None, {}, "author"), 2, set())
    assert results.facets.author == expected
    assert list(expected.values()) == [30, 20]


# --- Sorts ---------------------------------------------------------------------------------

TRICKY_TITLES = [
    "apple",
    "Apple",
    "APPLE",
    "Äpfel",
    "éclair",
    "Eclair",
    "zebra",
    "Zebra",
    "",
    "",
    "$\\alpha$-nets",
    "\\LaTeX{} for all",
    "{Braces} first",
    "a",
    "a b",
    "ab",
    "a-b",
    "123 numbers",
    "10 numbers",
    " leading space",
    "日本語の論文",
    "😀 emoji",
    "apple",
]


def title_order(paper_ids: list[int]) -> list[int]:
    """The title order, spelled out: untitled papers last; titles as readers alphabetise them
    (title_sort_key); equal ones as written, in code-point order; then by id."""
    titles = dict(Paper.objects.values_list("pk", "title"))
    return sorted(
        paper_ids,
        key=lambda pk: (not titles[pk], title_sort_key(titles[pk]), titles[pk], pk),
    )


def title_ordered(index_of, titles: list[str]) -> list[str]:
    """These titles, as papers, in the order of the list page sorted by title."""
    for title in titles:
        make_paper(title)
    by_id = dict(Paper.objects.values_list("pk", "title"))
    query = BrowseQuery(sort="title", limit=100)
    return [by_id[pk] for pk in engine.search(index_of(), query).ids]


def test_titles_are_ordered_as_readers_alphabetise_them(index_of):
    titles = ["zebra", "Éclair", "$\\alpha$-nets", "“Quoted” title", "iTransformer", "Apple", ""]
    assert title_ordered(index_of, titles) == [
        "$\\alpha$-nets",
        "Apple",
        "Éclair",
        "iTransformer",
        "“Quoted” title",
        "zebra",
        "",
    ]


def test_a_title_opening_with_a_latex_font_command_goes_under_its_letter(index_of):
    # Real ICLR 2024 titles: "$\\mathcal{B}$-Coder" is read "B-Coder", not "mathcal B-Coder".
    titles = [
        "$\\mathcal{B}$-Coder: Value-Based Deep RL",
        "$\\mathbb{D}^2$ Pruning: Message Passing",
        "$\\texttt{NAISR}$: A 3D Neural Additive Model",
        "Matcher: Segment Anything",
        "Coder models",
        "Data pruning",
        "Neural fields",
    ]
    assert title_ordered(index_of, titles) == [
        "$\\mathcal{B}$-Coder: Value-Based Deep RL",
        "Coder models",
        "$\\mathbb{D}^2$ Pruning: Message Passing",
        "Data pruning",
        "Matcher: Segment Anything",
        "$\\texttt{NAISR}$: A 3D Neural Additive Model",
        "Neural fields",
    ]


@pytest.mark.parametrize("sort", ["title", "newest"])
def test_sorts_equal_the_database_order(index_of, sort):
    for n, title in enumerate(TRICKY_TITLES):
        make_paper(title, abstract=f"Shared topic, paper {n}.")
    # Ties on created_at fall back to the id, as in the database. Pages of every size put
    # page edges inside ties of the coarse keys (equal times, equal first 8 bytes of titles).
    same_time = datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=UTC)
    Paper.objects.filter(pk__in=Paper.objects.order_by("pk").values("pk")[3:9]).update(
        created_at=same_time
    )
    Paper.objects.filter(title="zebra").update(created_at=datetime(2020, 1, 1, tzinfo=UTC))
    searcher = index_of(commit_every=5)
    # The database's order for author and tag pages (newest); the title order as specified.
    if sort == "title":
        expected = title_order(list(Paper.objects.values_list("pk", flat=True)))
    else:
        expected = list(Paper.objects.sorted_by(sort).values_list("pk", flat=True))
    untitled = set(Paper.objects.filter(title="").values_list("pk", flat=True))
    if sort == "title":
        assert set(expected[-len(untitled) :]) == untitled
    for text in [None, "topic"]:
        query = BrowseQuery(parsed=parse_query(text) if text else None, sort=sort, limit=100)
        assert engine.search(searcher, query).ids == expected
        for size in (1, 2, 7):
            pages = [
                engine.search(searcher, BrowseQuery(sort=sort, offset=offset, limit=size))
                for offset in range(0, len(expected) + size, size)
            ]
            assert [pk for page in pages for pk in page.ids] == expected
            assert {page.total for page in pages} == {len(expected)}


def test_relevance_without_a_search_is_newest_first(library, index_of):
    searcher = index_of()
    expected = list(Paper.objects.order_by("-created_at", "-pk").values_list("pk", flat=True))
    assert engine.search(searcher, BrowseQuery(sort="relevance", limit=100)).ids == expected
    assert engine.search(searcher, BrowseQuery(sort="bogus", limit=100)).ids == expected


def test_page_and_total(library, index_of):
    searcher = index_of()
    first = engine.search(searcher, BrowseQuery(parsed=parse_query("networks"), limit=2))
    second = engine.search(searcher, BrowseQuery(parsed=parse_query("networks"), offset=2))
    assert first.total == second.total == 3
    assert len(first.ids) == 2 and len(second.ids) == 1
    assert set(first.ids).isdisjoint(second.ids)
    assert engine.search(searcher, BrowseQuery(limit=0)).ids == []
    # Ids no index holds select nothing, and break nothing.
    odd = engine.search(searcher, BrowseQuery(author_ids=frozenset({-1, 2**70})))
    assert (odd.ids, odd.total) == ([], 0)
    assert odd.facets.author == engine.search(searcher, BrowseQuery()).facets.author
    # Absurd pages are bounded, not allocated.
    huge = engine.search(searcher, BrowseQuery(parsed=parse_query("networks"), offset=10**15))
    assert (huge.ids, huge.total) == ([], 3)
    everything = engine.search(searcher, BrowseQuery(limit=10**12))
    assert len(everything.ids) == everything.total == Paper.objects.count()
    assert len(engine.similar(searcher, library["graphs"].pk, limit=10**12)) <= 14


# --- Snippets ------------------------------------------------------------------------------


def test_snippet_escapes_html_and_marks_matches(index_of):
    paper = make_paper(
        "XSS", abstract="Beware <script>alert(1)</script> in a graph abstract & $a<b$."
    )
    snippet = engine.snippets(index_of(), parse_query("graphs"), [paper.pk])[paper.pk]
    assert isinstance(snippet, SafeString)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in snippet
    assert "<script>" not in snippet
    assert "<mark>graph</mark>" in snippet
    assert "&amp;" in snippet and "$a&lt;b$" in snippet


def test_snippet_marks_the_right_characters_after_non_ascii_text(index_of):
    paper = make_paper(abstract="Über naïve Garçons — 😀 日本語: the models and one modèle.")
    snippet = engine.snippets(index_of(), parse_query("model"), [paper.pk])[paper.pk]
    assert snippet == (  # "modèle" is "model" with its accent folded
        "Über naïve Garçons — 😀 日本語: the <mark>models</mark> and one <mark>modèle</mark>."
    )


def test_snippet_is_bounded_centred_on_the_match_and_cut_with_ellipses(index_of):
    filler = " ".join(f"word{n}" for n in range(200))
    paper = make_paper("Long", abstract=f"{filler} the quokka appears here. {filler}")
    snippet = engine.snippets(index_of(), parse_query("quokka"), [paper.pk])[paper.pk]
    assert "<mark>quokka</mark>" in snippet
    assert snippet.startswith("… ") and snippet.endswith(" …")
    assert len(snippet) < SNIPPET_CHARS + 40


def test_snippet_marks_only_wanted_words_and_opens_abstracts_without_a_match(library, index_of):
    searcher = index_of()
    robots, title_hit = library["robots"], library["title_hit"]
    snippets = engine.snippets(
        searcher, parse_query("networks -manipulation or sparse"), [robots.pk, title_hit.pk]
    )
    assert "<mark>networks</mark>" in snippets[robots.pk]
    assert "<mark>manipulation</mark>" not in snippets[robots.pk]
    assert snippets[title_hit.pk] == "We make transformers cheaper on long inputs."
    opening = engine.snippets(searcher, None, [robots.pk])[robots.pk]
    assert opening == "Reinforcement learning for manipulation with neural networks."
    assert engine.snippets(searcher, parse_query("x"), []) == {}
    assert engine.snippets(searcher, parse_query("x"), [10**9]) == {}


def test_snippet_of_a_phrase_marks_its_words(library, index_of):
    robots = library["robots"]
    snippet = engine.snippets(index_of(), parse_query('"neural networks"'), [robots.pk])
    assert "<mark>neural</mark> <mark>networks</mark>" in snippet[robots.pk]


def test_snippet_marks_the_words_a_prefix_matched(library, index_of):
    # Typed ("manipul", search as you type) or starred ("manip*"): the completions are marked.
    searcher = index_of()
    robots = library["robots"]
    for query in (parse_query("manipul", prefix_last=True), parse_query("manip*")):
        snippet = engine.snippets(searcher, query, [robots.pk])[robots.pk]
        assert "<mark>manipulation</mark>" in snippet
    # Typed past its stem: "learni" matches "learning" through the stem "learn".
    snippet = engine.snippets(searcher, parse_query("learni", prefix_last=True), [robots.pk])
    assert "<mark>learning</mark>" in snippet[robots.pk]
    # Only words that begin so: "net*" marks "networks", not "neural".
    snippet = engine.snippets(searcher, parse_query("net*"), [robots.pk])[robots.pk]
    assert snippet.count("<mark>") == 1 and "<mark>networks</mark>" in snippet


def _unescaped_dollars(html: str) -> int:
    return html.replace("\\$", "").count("$")


def test_snippet_never_cuts_a_math_expression_in_half(index_of):
    # Wherever the match sits, a window of SNIPPET_CHARS around it would start or end inside
    # one of the expressions (each holds spaces, where Tantivy cuts fragments).
    expression = r"$\mathcal{O}(n \log n + m \cdot k + p \cdot q)$"
    filler = " ".join(f"word{n}" for n in range(12))
    papers = [
        make_paper(
            abstract=f"{filler} {expression} {' w' * shift} quokka {' w' * shift} {expression} "
            f"{filler}"
        )
        for shift in range(0, 80, 7)
    ]
    snippets = engine.snippets(index_of(), parse_query("quokka"), [p.pk for p in papers])
    for paper in papers:
        snippet = snippets[paper.pk]
        assert "<mark>quokka</mark>" in snippet
        # Each expression is in the snippet whole, or not at all: the dollars pair up.
        assert _unescaped_dollars(snippet) % 2 == 0, snippet
        assert snippet.count("$") == 2 * snippet.count(expression), snippet


def test_snippet_renders_text_mode_latex_and_marks_math_whole(index_of):
    paper = make_paper(
        abstract=r"We study the \emph{quokka} and 50\% of $\text{quokka}_i$ <b>samples</b>."
    )
    snippet = engine.snippets(index_of(), parse_query("quokka"), [paper.pk])[paper.pk]
    # As on the paper's page: \emph is emphasis, \% a percent sign, the math left for KaTeX;
    # a match inside an expression marks the whole expression (a <mark> inside it would cut
    # its text in two, and KaTeX would typeset neither half).
    assert snippet == (
        "We study the <em><mark>quokka</mark></em> and 50% of "
        "<mark>$\\text{quokka}_i$</mark> &lt;b&gt;samples&lt;/b&gt;."
    )


def test_snippet_text_cannot_forge_marks(index_of):
    paper = make_paper(abstract="A quokka \ue000<i>x</i>\ue001 and \ue001 more \ue000.")
    snippet = engine.snippets(index_of(), parse_query("quokka"), [paper.pk])[paper.pk]
    assert snippet.count("<mark>") == snippet.count("</mark>") == 1
    assert "<i>" not in snippet and "&lt;i&gt;x&lt;/i&gt;" in snippet


def test_opening_of_an_abstract_does_not_cut_a_math_expression(index_of):
    expression = "$" + " + ".join(f"x_{n}" for n in range(20)) + "$"
    paper = make_paper(abstract=f"{'word ' * 30}{expression} and more words after it.")
    opening = engine.snippets(index_of(), None, [paper.pk])[paper.pk]
    assert expression in opening and opening.endswith(" …")


def test_opening_of_a_long_abstract_is_cut(index_of):
    paper = make_paper(abstract="word " * 300)
    lone = make_paper(abstract="y" * 5000)
    snippets = engine.snippets(index_of(), None, [paper.pk, lone.pk])
    assert snippets[paper.pk].endswith(" …") and len(snippets[paper.pk]) < 210
    assert snippets[lone.pk] == "y" * SNIPPET_CHARS + " …"


def test_snippets_of_hostile_abstracts_stay_bounded(index_of):
    # One word repeated 5,000 times to the abstract limit: every token is a match.
    abstract = ("x " * MAX_ABSTRACT)[:MAX_ABSTRACT]
    pks = [make_paper(abstract=abstract).pk for _ in range(25)]
    searcher = index_of()
    query = parse_query('x "' + " ".join(["x"] * 200) + '"')
    assert engine.search(searcher, BrowseQuery(parsed=query)).total == 25
    started = time.perf_counter()
    snippets = engine.snippets(searcher, query, pks)
    elapsed = time.perf_counter() - started
    for pk in pks:
        assert 0 < snippets[pk].count("<mark>x</mark>") <= SNIPPET_CHARS // 2
        assert len(snippets[pk].replace("<mark>", "").replace("</mark>", "")) <= 210
    # A regression guard, not a benchmark: linear work takes milliseconds here.
    assert elapsed < 1.5


# --- Similar papers ------------------------------------------------------------------------


def test_similar_papers_weigh_title_words_as_a_search_does(index_of):
    # Found by QA: papers sharing generic abstract words ("solvers") came before those sharing
    # the title's topic ("Schrödinger bridges").
    for n in range(12):
        make_paper(f"Filler {n}", abstract=f"Leaves and roots, sample {n}.")
    paper = make_paper(
        "Light Schrodinger bridge",
        abstract="Bridges between densities with simple solvers: a combination of solvers.",
    )
    topic = make_paper("Diffusion Schrodinger bridge ensembles", abstract="Fast ensembles.")
    make_paper("Branching for exact solvers", abstract="A simple combination of solvers.")
    similar = engine.similar(index_of(), paper.pk, limit=2)
    assert similar[0].id == topic.pk


def test_similar_papers_share_topic_words_and_authors_with_explanations(library, index_of):
    paper = make_paper(
        "Sparse attention on graphs",
        abstract="Sparse attention, cheap for long inputs; attention over graph nodes.",
        authors=["Alan Turing", "Grace Hopper"],
    )
    make_paper("Sparse attention on graphs", abstract="A near duplicate, sparse attention.")
    searcher = index_of()
    similar = engine.similar(searcher, paper.pk, limit=3)
    assert paper.pk not in [s.id for s in similar]
    assert len(similar) == 3
    by_id = {s.id: s for s in similar}
    title_hit = by_id[library["title_hit"].pk]  # shares Grace Hopper and the topic
    assert title_hit.shared_authors == 1
    assert "shares 1 author" in title_hit.reasons
    assert "sparse" in title_hit.shared_terms and "attention" in title_hit.shared_terms
    assert any(reason.startswith("shares: ") for reason in title_hit.reasons)
    assert similar[0].id in {library["title_hit"].pk, library["abstract_hit"].pk}


def test_similar_papers_rank_coauthored_papers_up(library, index_of):
    paper = make_paper(
        "Message passing with attention",
        abstract="Message passing meets attention.",
        authors=["Ada Lovelace", "Grace Hopper"],
    )
    similar = engine.similar(index_of(), paper.pk, limit=5)
    assert similar[0].id == library["graphs"].pk
    assert similar[0].shared_authors == 2
    assert similar[0].reasons[0] == "shares 2 authors"


def test_latex_command_names_are_not_shared_words(library, index_of):
    for n in range(3):
        make_paper(f"Bounds {n}", abstract=r"A $\mathcal{O}(n)$ bound on $\mathbb{E}[x]$.")
    paper = make_paper(
        r"Sparse attention in $\mathcal{O}(n \log n)$",
        abstract=r"Sparse attention costs $\mathcal{O}(n)$; $\mathbb{E}$ of the attention.",
    )
    similar = engine.similar(index_of(), paper.pk, limit=10)

    shared = {word for s in similar for word in s.shared_terms}
    assert "sparse" in shared
    assert not shared & {"mathcal", "mathbb", "log"}
    # Writing math is not a topic: the bounds papers share nothing else with this one.
    in_library = {p.pk for p in library.values()}
    assert all(s.shared_terms == () for s in similar if s.id not in in_library)


def test_similar_papers_in_an_index_holding_deleted_documents(tmp_path):
    # An update deletes a paper's document and adds it again; until a merge the index holds
    # the deleted one, and doc_freq counts it. Tantivy's own "more like this" then panicked
    # (doc_freq 4 > 3 live documents): the paper page answered 500 after a member tagged a paper.
    papers = [make_paper(f"Kelp forests {n}", abstract="Kelp forests and kelp.") for n in range(3)]
    index = schema.create_index(str(tmp_path))
    writer = index.writer(num_threads=1)  # one segment, so the deletion stays in it
    for document in documents.paper_documents():
        writer.add_document(document)
    writer.commit()
    writer.delete_documents_by_query(
        tantivy.Query.term_set_query(schema.build_schema(), schema.ID, [papers[0].pk])
    )
    writer.add_document(next(documents.paper_documents([papers[0].pk])))
    writer.commit()
    index.reload()
    searcher = index.searcher()
    assert searcher.doc_freq(schema.ABSTRACT, "kelp") > searcher.num_docs

    similar = engine.similar(searcher, papers[0].pk)

    assert {hit.id for hit in similar} == {papers[1].pk, papers[2].pk}
    assert all("kelp" in hit.shared_terms for hit in similar)


def test_similar_papers_of_an_unknown_or_unsearchable_paper(index_of):
    paper = make_paper("The", abstract="Of the.")
    make_paper("Anything", abstract="At all.")
    searcher = index_of()
    assert engine.similar(searcher, paper.pk) == []
    assert engine.similar(searcher, 10**9) == []
    assert engine.similar(searcher, paper.pk, limit=0) == []


# --- Documents -----------------------------------------------------------------------------


def test_documents_hold_the_paper_its_authors_in_order_and_its_tags():
    paper = make_paper(
        "A title",
        abstract="An abstract.",
        authors=["Zed Last", "Amy First"],
        tags=[("ICLR 2024", VENUE), ("Oral", TRACK)],
    )
    make_lab_tag(paper, "rl")
    [document] = documents.paper_documents([paper.pk])
    fields = document.to_dict()
    assert fields[schema.ID] == [paper.pk]
    assert fields[schema.TITLE] == ["A title"]
    assert fields[schema.AUTHORS] == ["Zed Last", "Amy First"]
    assert fields[schema.AUTHOR_IDS] == [
        a.author_id for a in paper.authorships.order_by("position")
    ]
    assert fields[schema.VENUE_IDS] == [make_tag("ICLR 2024", VENUE).pk]
    assert fields[schema.TRACK_IDS] == [make_tag("Oral", TRACK).pk]
    assert fields[schema.LAB_IDS] == [make_tag("rl", LAB).pk]


def test_documents_of_deleted_papers_are_skipped(django_assert_num_queries):
    kept = [make_paper(authors=["Ann"], tags=[("Oral", TRACK)]) for _ in range(3)]
    gone = make_paper()
    gone_id = gone.pk
    gone.delete()
    wanted = [gone_id, kept[1].pk, kept[0].pk, kept[1].pk]
    with django_assert_num_queries(3):  # papers, authorships, tags
        docs = list(documents.paper_documents(wanted, popular=frozenset()))
    assert [d.get_first(schema.ID) for d in docs] == [kept[0].pk, kept[1].pk]
    with django_assert_num_queries(1):  # no paper: no links to read
        assert list(documents.paper_documents([gone_id + 1000], popular=frozenset())) == []


def test_all_documents_stream_in_chunks_of_a_few_queries(monkeypatch, django_assert_num_queries):
    monkeypatch.setattr(documents, "CHUNK_SIZE", 4)
    papers = [make_paper(authors=["Ann", "Bo"], tags=[("Oral", TRACK)]) for _ in range(10)]
    # The popular authors, then 3 chunks of 3 queries; the last, being short, needs no look
    # for more.
    with django_assert_num_queries(10):
        ids = [d.get_first(schema.ID) for d in documents.paper_documents()]
    assert ids == [p.pk for p in papers]


# --- Spelling ---------------------------------------------------------------------------------


def test_misspelt_words_are_replaced_by_the_nearest_indexed_ones(index_of):
    make_paper("Graph neural networks", abstract="Message passing with models of graphs.")
    make_paper("Diffusion models", abstract="Score-based diffusion; the modes of a density.")
    searcher = index_of()
    suggest = lambda text: engine.spelling_suggestion(searcher, text)  # noqa: E731
    assert suggest("difusion modles") == "diffusion models"  # "models", not "modes"
    assert suggest("grpah neural netwroks") == "graph neural networks"  # swapped letters
    # Syntax and known words stay as typed; an excluded word is not corrected.
    assert suggest('"difusion models" or GRAPH -modles') == '"diffusion models" or GRAPH -modles'
    assert suggest("grph") == "graph"
    # Nor is a word after NOT, a field name before a colon or a prefix before a star.
    assert suggest("difusion NOT modles") == "diffusion NOT modles"
    assert suggest("title:difusion") == "title:diffusion"  # "title" is in no paper
    assert suggest("Abstract:modles grph*") == "Abstract:models grph*"
    for text in ["diffusion models", "qwertyuiop", "grh", "", "-difusion", "the and"]:
        assert suggest(text) is None, text  # known, near nothing, too short, no words


def test_a_misspelt_author_name_is_corrected_from_the_authors_as_typed(index_of):
    make_paper("Meta-learning", abstract="Chess engines adapt.", authors=["Chelsea Finn"])
    searcher = index_of()
    # Only titles and abstracts were read: "Chelsae" became "chess", and lowercase.
    assert engine.spelling_suggestion(searcher, "Chelsae Finn") == "Chelsea Finn"
    assert engine.spelling_suggestion(searcher, "CHELSAE") == "CHELSEA"


def test_only_the_first_words_of_a_long_query_are_looked_at(index_of):
    make_paper("Diffusion models", abstract="Score-based diffusion.")
    searcher = index_of()
    typed = " ".join(["difusion"] * (spelling.MAX_SPELLING_WORDS + 2))
    expected = " ".join(["diffusion"] * spelling.MAX_SPELLING_WORDS + ["difusion"] * 2)
    assert engine.spelling_suggestion(searcher, typed) == expected


def test_edit_distance_counts_a_swap_of_neighbours_once():
    assert spelling._edits("modles", "models") == 1
    assert spelling._edits("modles", "modes") == 1
    assert spelling._edits("difusion", "diffusion") == 1
    assert spelling._edits("", "abc") == 3 and spelling._edits("abc", "abc") == 0
