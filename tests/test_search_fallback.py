"""A question finds papers with most of its words when few have all of them (issue 30, point 3).

A search of three plain words or more whose words all match fewer than FEW_MATCHES papers
lists the papers holding a share of them that grows with its length, ranked by BM25, stop
words dropped; phrases, exclusions and filters keep their meaning; the page says so.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from papers.models import Paper, TagKind
from papers.search import engine, parse_query
from papers.search.engine import BrowseQuery
from papers.search.loose import FEW_MATCHES, LOOSE_STOP_WORDS, required_words
from tests.factories import make_paper

pytestmark = pytest.mark.django_db


QUESTION = "how can a small student network imitate a larger teacher"


@pytest.fixture
def distillation():
    """Papers holding some of QUESTION's words (small, student, network, imitate, larger,
    teacher), none all of them."""
    return {
        "four": make_paper(
            "Knowledge distillation", abstract="A student network imitates its teacher."
        ),
        "three": make_paper("Compact models", abstract="A small student learns from a teacher."),
        "two": make_paper("Signals", abstract="Teacher signals for any network."),
        "one": make_paper("Small data", abstract="Learning from small samples."),
        "none": make_paper("Protein folding", abstract="Structures from sequences."),
    }


def search(searcher, text: str, **fields) -> engine.Results:
    return engine.search(searcher, BrowseQuery(parsed=parse_query(text), limit=100, **fields))


def test_a_long_question_lists_papers_with_most_of_its_words_best_first(distillation, index_of):
    searcher = index_of()
    results = search(searcher, QUESTION)
    # Six words: two of them needed (40%, rounded down, at least two); more words rank higher.
    assert results.ids[0] == distillation["four"].pk
    assert set(results.ids) == {distillation[n].pk for n in ("four", "three", "two")}
    assert results.loose is not None and results.loose.all_words == 0
    assert results.total == 3  # not "Small data", with one word
    today = search(searcher, QUESTION, loose_fallback=False)
    assert today.ids == [] and today.loose is None


def test_the_share_needed_grows_with_the_length_of_the_search():
    assert [required_words(n) for n in range(1, 13)] == [1, 2, 2, 2, 2, 2, 2, 3, 3, 4, 4, 4]


def test_short_searches_keep_all_words_precision(distillation, index_of):
    searcher = index_of()
    # Two words, in no paper together: nothing, as before.
    assert search(searcher, "protein teacher").ids == []
    # Three words with enough papers holding all of them: those papers only.
    for n in range(FEW_MATCHES):
        make_paper(f"Student teacher network {n}", abstract="Distilled.")
    searcher = index_of()
    results = search(searcher, "student teacher network")
    assert results.loose is None
    assert {Paper.objects.get(pk=pk).title for pk in results.ids} == {
        "Knowledge distillation",
        *(f"Student teacher network {n}" for n in range(FEW_MATCHES)),
    }  # and not "Compact models", with two of the words


def test_the_few_papers_with_every_word_come_first(distillation, index_of):
    searcher = index_of()
    # "student teacher network" is in one paper: few, so papers with two of the words follow.
    results = search(searcher, "student teacher network")
    assert results.ids[0] == distillation["four"].pk
    assert set(results.ids[1:]) == {distillation["three"].pk, distillation["two"].pk}
    assert results.loose is not None and results.loose.all_words == 1


def test_question_words_do_not_count_towards_the_share(distillation, index_of):
    assert {"using", "way", "papers", "make"} <= LOOSE_STOP_WORDS
    searcher = index_of()
    # Plain words: small, samples, protein ("papers", "using" dropped): two of them needed.
    # "Small data" has small and samples; no paper has two words counting "papers" or "using".
    results = search(searcher, "papers using small samples protein")
    assert results.ids == [distillation["one"].pk]


def test_a_phrase_stays_required_and_an_exclusion_excluded(distillation, index_of):
    searcher = index_of()
    phrased = search(searcher, '"student network" small teacher imitate')
    assert phrased.ids == [distillation["four"].pk]  # "three" has the words, not the phrase
    excluded = search(searcher, "small student network imitate teacher -distillation")
    assert excluded.ids == [distillation["three"].pk, distillation["two"].pk]
    assert excluded.loose is not None


def test_facets_count_the_papers_shown(distillation, index_of):
    tagged = make_paper(
        "Students imitate", abstract="Small teachers.", tags=[("Oral", TagKind.TRACK)]
    )
    searcher = index_of()
    results = search(searcher, QUESTION)
    assert tagged.pk in results.ids and results.total == len(results.ids)
    oral = tagged.tags.get(kind=TagKind.TRACK).pk
    assert results.facets.track == {oral: 1, 0: results.total - 1}
    only_oral = search(searcher, QUESTION, track_ids=frozenset({oral}))
    assert only_oral.ids == [tagged.pk] and only_oral.loose is not None


def test_the_page_says_the_papers_have_some_of_the_words(client, distillation):
    html = client.get(reverse("papers:list"), {"q": QUESTION}).content.decode()
    assert "No paper has all these words; showing papers with most of them." in html
    assert "Knowledge distillation" in html and "Protein folding" not in html
    html = client.get(reverse("papers:list"), {"q": "student teacher network"}).content.decode()
    assert "Only 1 paper has all these words, listed first" in html
    html = client.get(reverse("papers:list"), {"q": "protein folding"}).content.decode()
    assert "most of them" not in html


def test_search_as_you_type_falls_back_as_enter_does(client, distillation):
    # "teac" is being typed: read as a prefix, it is one of the words as "teacher" is.
    typed = client.get(
        reverse("papers:list"), {"q": QUESTION[:-3], "typing": "1"}, HTTP_HX_REQUEST="true"
    )
    entered = client.get(reverse("papers:list"), {"q": QUESTION})
    assert [p.pk for p in typed.context["papers"]] == [p.pk for p in entered.context["papers"]]
    assert typed.context["papers"][0].pk == distillation["four"].pk
    assert typed.context["loose"] is not None


def test_a_long_question_whose_share_matches_nothing_asks_for_two_words(distillation, index_of):
    searcher = index_of()
    # Ten plain words, four needed: no paper has four; "Small data" has two (small, samples).
    text = "small samples quantum gravity lattice bosons spin glass entropy turbulence"
    results = search(searcher, text)
    assert results.ids == [distillation["one"].pk] and results.loose is not None


def test_a_hyphenated_compound_is_one_of_the_words_a_quoted_phrase_is_required(index_of):
    routed = make_paper("Routing tokens", abstract="Each token goes to a few experts.")
    searcher = index_of()
    # No "sub networks" in the paper: as a compound it is one word of four, not a requirement.
    assert search(searcher, "sub-networks routing experts tokens").ids == [routed.pk]
    assert search(searcher, '"sub networks" routing experts tokens').ids == []
