"""Search says the same thing typed or entered (issue 27, point 5).

The last word of an entered search that the index does not hold is read as the start of a
word, as search as you type reads it; "Did you mean" offers the word a prefix was heading to;
Greek letter names, glued, hyphenated or apart, find titles written in LaTeX or in letters.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from papers.search import engine, parse_query
from papers.search.engine import BrowseQuery
from tests.factories import make_paper
from tests.search_engine_helpers import found

pytestmark = pytest.mark.django_db


@pytest.fixture
def diffusion_papers():
    papers = [
        make_paper(f"Diffusion models {n}", abstract=f"Score-based diffusion, study {n}.")
        for n in range(3)
    ]
    papers.append(make_paper("Light transport", abstract="Diffuse surfaces scatter light."))
    papers.append(make_paper("Quantum circuits", abstract="Qubits and gates."))
    return papers


def test_an_entered_partial_last_word_finds_the_papers_typing_showed(diffusion_papers, index_of):
    searcher = index_of()
    *diffusion, diffuse, _ = diffusion_papers
    expected = sorted(p.pk for p in [*diffusion, diffuse])
    assert sorted(found(searcher, "diffu")) == expected
    typing = BrowseQuery(parsed=parse_query("diffu", prefix_last=True), limit=100)
    assert sorted(engine.search(searcher, typing).ids) == expected


def test_a_complete_last_word_stays_whole(index_of):
    graph = make_paper("Graph networks", abstract="Nodes and edges.")
    estimation = make_paper("Graphon estimation", abstract="Limits of dense graph sequences.")
    make_paper("Graphons", abstract="Limits.")
    searcher = index_of()
    # "graph" is an indexed word: it does not also find "Graphons", as a prefix would.
    assert sorted(found(searcher, "graph")) == sorted([graph.pk, estimation.pk])
    assert found(searcher, "graphons nodes") == []  # not the last word: whole, in no paper


def test_only_the_last_wanted_word_is_completed(diffusion_papers, index_of):
    searcher = index_of()
    assert found(searcher, "diffu study") == []  # "diffu" is not last: a whole word
    assert found(searcher, "quantum -diffu") == [diffusion_papers[-1].pk]  # excluded: as typed


def test_the_snippet_marks_the_words_an_entered_prefix_matched(diffusion_papers, index_of):
    searcher = index_of()
    shown = engine.snippets(searcher, parse_query("diffu"), [diffusion_papers[0].pk])
    assert "<mark>diffusion</mark>" in shown[diffusion_papers[0].pk]


def test_did_you_mean_offers_the_word_a_prefix_was_heading_to(diffusion_papers, index_of):
    searcher = index_of()
    # "diffuse" is nearer "diffu" by letters; "diffusion" is what most papers write.
    assert engine.spelling_suggestion(searcher, "diffu") == "diffusion"
    assert engine.spelling_suggestion(searcher, "Diffusi") == "Diffusion"
    # Not the last word: corrected by letters, as any misspelt word.
    assert engine.spelling_suggestion(searcher, "difusion qubits") == "diffusion qubits"


def test_the_page_offers_the_heading_word_when_nothing_matches(client, diffusion_papers):
    response = client.get(reverse("papers:list"), {"q": "qubits diffu"})
    assert response.context["total"] == 0
    assert response.context["spelling"] == "qubits diffusion"


@pytest.fixture
def alpha_papers():
    return {
        "latex": make_paper("$\\alpha$TC-VAE: disentangled codes", abstract="Codes."),
        "letters": make_paper("αTC-VAE revisited", abstract="Again."),
        "pi": make_paper("$\\pi$2vec: policy representations", abstract="Policies."),
        "pixel": make_paper("Pixel shuffling", abstract="Images."),
        "other": make_paper("Total correlation", abstract="TC and VAE, apart."),
    }


@pytest.mark.parametrize(
    "text", ["alphaTC-VAE", "alpha-TC-VAE", "alphatc vae", "αTC-VAE", "ALPHATC-VAE", "alphaTC"]
)
def test_greek_names_glued_hyphenated_or_as_letters_find_both_spellings(
    alpha_papers, index_of, text
):
    searcher = index_of()
    assert sorted(found(searcher, text)) == sorted(
        [alpha_papers["latex"].pk, alpha_papers["letters"].pk]
    )


def test_greek_names_written_apart_find_both_spellings(alpha_papers, index_of):
    searcher = index_of()
    # "TC" and "VAE" apart are in a third paper too, which comes after them (two papers
    # with all three words are few: papers with two of them follow, issue 30).
    both = sorted([alpha_papers["latex"].pk, alpha_papers["letters"].pk])
    listed = found(searcher, "alpha TC VAE")
    assert sorted(listed[:2]) == both and listed[2:] == [alpha_papers["other"].pk]


def test_a_glued_name_is_split_only_as_an_alternative(alpha_papers, index_of):
    searcher = index_of()
    assert found(searcher, "pi2vec") == [alpha_papers["pi"].pk]
    assert found(searcher, "pixel") == [alpha_papers["pixel"].pk]  # not "pi xel"
