"""Recommended for me: training per member, the command, the page, "more like these"."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from papers.models import TagKind
from recommendations import selectors, services, training
from recommendations.models import Recommendation
from tests.factories import (
    make_lab_tag,
    make_note,
    make_paper,
    make_reading_list,
)

pytestmark = pytest.mark.django_db

TOPICS = {
    "diffusion": (
        "Denoising diffusion models for {x}",
        "We train a score-based diffusion model with denoising score matching to generate {x}; "
        "the reverse diffusion process samples from noise.",
    ),
    "graphs": (
        "Graph neural networks on {x}",
        "Message passing graph neural networks learn node embeddings over {x} graphs with "
        "attention over neighbourhoods.",
    ),
    "bandits": (
        "Regret bounds for bandits in {x}",
        "We study contextual bandits and prove regret bounds for exploration policies in {x} "
        "with reinforcement learning rewards.",
    ),
}
SUBJECTS = ["images", "molecules", "proteins", "audio", "video", "text", "robots", "weather"]


@pytest.fixture
def library():
    """Eight papers on each of three topics: {topic: [papers]}."""
    return {
        topic: [
            make_paper(
                title.format(x=subject),
                abstract=abstract.format(x=subject),
                tags=[(f"{topic} keyword", TagKind.KEYWORD)],
            )
            for subject in SUBJECTS
        ]
        for topic, (title, abstract) in TOPICS.items()
    }


def recommendations(user, limit: int = training.DEFAULT_LIMIT) -> list[training.Scored]:
    corpus = training.build_corpus(training.corpus_rows())
    return training.recommend(corpus, training.member_signals(user), limit=limit)


def topic_of(library, paper_id: int) -> str:
    return next(topic for topic, papers in library.items() if paper_id in {p.pk for p in papers})


# --- Training ---------------------------------------------------------------------------------


def test_a_member_who_saved_diffusion_papers_gets_the_other_diffusion_papers_first(user, library):
    saved = library["diffusion"][:3]
    make_reading_list(user, "Reading group", papers=saved)

    scored = recommendations(user)

    top = [item.paper_id for item in scored[:5]]
    assert [topic_of(library, pk) for pk in top] == ["diffusion"] * 5
    assert not {p.pk for p in saved} & {item.paper_id for item in scored}
    assert scored == sorted(scored, key=lambda item: -item.score)


def test_explanations_name_topic_terms_and_the_members_own_closest_list(user, library):
    make_reading_list(user, "Reading group", papers=library["diffusion"][:3])
    make_reading_list(user, "Graphs", papers=library["graphs"][:1])

    best = recommendations(user)[0]

    assert best.terms and len(best.terms) <= training.REASON_TERMS
    assert any("diffusion" in term or "score" in term for term in best.terms)
    assert best.lists == [{"name": "Reading group", "count": 3}]
    row = Recommendation(reasons=best.reasons)
    assert row.explanation.startswith("because of: ")
    assert row.explanation.endswith("; like 3 papers in Reading group")


def test_notes_and_lab_tags_count_as_interest_too(user, library):
    make_note(user, library["graphs"][0])
    make_lab_tag(library["graphs"][1], "gnn", added_by=user)
    # Import tags (added_by empty) and keywords are nobody's interest.
    signals = training.member_signals(user)
    assert signals.positives == {library["graphs"][0].pk, library["graphs"][1].pk}
    assert signals.lists == {}

    scored = recommendations(user)
    assert topic_of(library, scored[0].paper_id) == "graphs"
    assert scored[0].lists == []  # notes and tags are not lists: no list is named


def test_a_catalogue_larger_than_the_fit_sample_is_learnt_from_a_sample_and_scored_whole(
    user, library, monkeypatch
):
    monkeypatch.setattr(training, "FIT_SAMPLE", 12)
    make_reading_list(user, papers=library["diffusion"][:3])

    corpus = training.build_corpus(training.corpus_rows())
    scored = training.recommend(corpus, training.member_signals(user))

    assert corpus.matrix.shape[0] == 24
    assert [topic_of(library, item.paper_id) for item in scored[:5]] == ["diffusion"] * 5


def test_fewer_than_two_positives_give_no_recommendations(user, library):
    assert recommendations(user) == []
    make_reading_list(user, papers=library["graphs"][:1])
    assert training.MIN_POSITIVES == 2
    assert recommendations(user) == []


def test_another_members_private_list_note_and_tags_never_change_mine(user, other_user, library):
    make_reading_list(user, "Reading group", papers=library["diffusion"][:3])
    mine = recommendations(user)

    make_reading_list(other_user, "Secret", papers=library["bandits"][:4])
    make_reading_list(other_user, "Shared", papers=library["diffusion"][3:6], visibility="shared")
    make_note(other_user, library["diffusion"][6], body="private thought")
    make_lab_tag(library["graphs"][0], "their tag", added_by=other_user)

    assert recommendations(user) == mine
    names = {entry["name"] for item in mine for entry in item.lists}
    assert names == {"Reading group"}


def test_limit_keeps_the_best(user, library):
    make_reading_list(user, papers=library["bandits"][:2])
    assert [s.paper_id for s in recommendations(user, limit=2)] == [
        s.paper_id for s in recommendations(user)[:2]
    ]


def test_an_empty_or_one_paper_catalogue_gives_nothing():
    assert training.build_corpus([]).matrix.shape == (0, 0)
    corpus = training.build_corpus([(1, "diffusion"), (2, "diffusion")])
    signals = training.Signals(positives=frozenset({1, 2}), lists={})
    assert training.recommend(corpus, signals) == []


@pytest.mark.django_db
def test_latex_command_names_are_not_terms():
    for n in range(2):
        make_paper(f"Bound {n}", abstract=r"Regret $\mathcal{O}(\sqrt{T})$ for bandits.")
        make_paper(f"Leaves {n}", abstract="Leaves and roots.")

    corpus = training.build_corpus(training.corpus_rows())

    assert "bandits" in set(corpus.terms)
    assert not {"mathcal", "sqrt"} & set(corpus.terms)


# --- The command and the service ----------------------------------------------------------------


def run_command(*args: str) -> str:
    out = io.StringIO()
    call_command("compute_recommendations", *args, stdout=out)
    return out.getvalue()


def test_command_recomputes_every_member_and_reports_times_and_totals(user, other_user, library):
    make_reading_list(user, papers=library["diffusion"][:3])
    Recommendation.objects.create(
        user=user, paper=library["diffusion"][0], score=9.0, computed_at="2020-01-01T00:00Z"
    )

    output = run_command("--limit", "5")

    assert re.search(r"^alice: 3 positives, 5 recommendations in \d+\.\d\d s$", output, re.M)
    assert re.search(r"^bob: 0 positives, none \(needs 2 saved", output, re.M)
    assert re.search(r"^Total: 2 members, 5 recommendations in \d+\.\d\d s$", output, re.M)
    rows = Recommendation.objects.filter(user=user)
    assert rows.count() == 5  # the old row is replaced
    assert not rows.filter(paper=library["diffusion"][0]).exists()
    assert not Recommendation.objects.filter(user=other_user).exists()


def test_command_for_one_member_leaves_the_others_rows(user, other_user, library):
    make_reading_list(user, papers=library["diffusion"][:3])
    make_reading_list(other_user, papers=library["graphs"][:3])
    run_command()
    theirs = list(Recommendation.objects.filter(user=other_user).values_list("pk", flat=True))

    output = run_command("--user", "alice")

    assert re.match(r"Features: 24 papers, \d+ terms in \d+\.\d\d s\nalice: ", output)
    assert "bob" not in output
    assert list(Recommendation.objects.filter(user=other_user).values_list("pk", flat=True)) == (
        theirs
    )


def test_command_rejects_an_unknown_member_and_a_bad_limit(user):
    with pytest.raises(CommandError, match="No user named 'nobody'"):
        run_command("--user", "nobody")
    with pytest.raises(CommandError, match="--limit must be at least 1"):
        run_command("--limit", "0")


def test_a_member_who_removed_their_papers_loses_their_recommendations(user, library):
    reading_list = make_reading_list(user, papers=library["diffusion"][:3])
    list(services.recompute([user]))
    assert Recommendation.objects.filter(user=user).exists()
    reading_list.delete()
    list(services.recompute([user]))
    assert not Recommendation.objects.filter(user=user).exists()


# --- The selector for other apps ----------------------------------------------------------------


def test_recommended_for_gives_the_best_first_with_papers_in_one_query(
    user, other_user, library, django_assert_num_queries
):
    make_reading_list(user, papers=library["diffusion"][:3])
    make_reading_list(other_user, papers=library["graphs"][:3])
    list(services.recompute())

    with django_assert_num_queries(1):
        rows = selectors.recommended_for(user, limit=3)
        titles = [row.paper.title for row in rows]
    assert len(rows) == 3 and all("diffusion" in title.lower() for title in titles)
    assert [row.score for row in rows] == sorted((row.score for row in rows), reverse=True)
    assert {row.user_id for row in rows} == {user.pk}


def test_papers_saved_or_noted_since_the_run_are_no_longer_recommended(client, user, library):
    make_reading_list(user, "Reading group", papers=library["diffusion"][:3])
    list(services.recompute([user]))
    first, second, third = selectors.recommended_for(user, limit=3)
    make_reading_list(user, "Later", papers=[first.paper])
    make_note(user, second.paper)

    assert [row.pk for row in selectors.recommended_for(user, limit=1)] == [third.pk]
    client.force_login(user)
    rows = client.get(reverse("recommendations:recommended")).context["rows"]
    assert {first.paper_id, second.paper_id}.isdisjoint(row.paper_id for row in rows)
    assert rows[0].pk == third.pk


def test_recommended_for_an_anonymous_user_is_empty():
    from django.contrib.auth.models import AnonymousUser

    assert selectors.recommended_for(AnonymousUser()) == []


# --- The page -----------------------------------------------------------------------------------


def test_recommended_page_needs_a_login(client):
    response = client.get(reverse("recommendations:recommended"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


def test_recommended_page_explains_how_to_get_recommendations_when_there_are_none(client, user):
    client.force_login(user)
    html = client.get(reverse("recommendations:recommended")).content.decode()
    assert "No recommendations for you yet" in html
    assert "save at least 2 papers" in html
    # In words a member can act on: no pointer to the repository's docs they cannot open.
    assert "not the moment you save a paper" in html
    assert "docs/" not in html and ".md" not in html


def test_recommended_page_shows_ranked_papers_with_reasons_in_a_fixed_number_of_queries(
    client, user, other_user, library, django_assert_num_queries
):
    make_reading_list(user, "Reading group", papers=library["diffusion"][:3])
    make_reading_list(other_user, "Theirs", papers=library["graphs"][:3], visibility="private")
    list(services.recompute())
    client.force_login(user)
    url = reverse("recommendations:recommended")

    # Session, user, the unread count in the header; recommendations, their papers with their
    # first authors.
    with django_assert_num_queries(5):
        response = client.get(url)
    html = response.content.decode()
    rows = response.context["rows"]
    assert len(rows) == 24 - 3
    assert "Denoising diffusion models for" in rows[0].paper.title
    assert "because of: " in html and "like 3 papers in Reading group" in html
    assert "Theirs" not in html
    assert "data-math" in html and "Computed <time" in html
    assert 'href="/recommended/"' in html  # the nav link

    Recommendation.objects.filter(user=user).exclude(pk=rows[0].pk).delete()
    with django_assert_num_queries(5):
        assert len(client.get(url).context["rows"]) == 1


# --- More like these (a reading list) ----------------------------------------------------------


def test_more_like_a_list_gives_papers_like_its_own_and_not_in_it(client, user, library):
    reading_list = make_reading_list(user, "Reading group", papers=library["graphs"][:2])
    client.force_login(user)

    list_page = client.get(reading_list.get_absolute_url()).content.decode()
    url = reverse("recommendations:list-similar", args=[reading_list.pk])
    assert f'href="{url}"' in list_page and "More like these" in list_page

    response = client.get(url)
    assert response.status_code == 200
    similar = response.context["similar"]
    ids = [item.paper.pk for item in similar]
    assert ids and not set(ids) & {p.pk for p in library["graphs"][:2]}
    assert [topic_of(library, pk) for pk in ids[:4]] == ["graphs"] * 4
    assert "like 2 papers in this list" in response.content.decode()


def test_more_like_a_list_follows_the_lists_visibility(client, user, other_user, library):
    private = make_reading_list(other_user, "Secret", papers=library["graphs"][:2])
    shared = make_reading_list(
        other_user, "Shared", papers=library["graphs"][:2], visibility="shared"
    )
    private_url = reverse("recommendations:list-similar", args=[private.pk])
    shared_url = reverse("recommendations:list-similar", args=[shared.pk])

    assert client.get(shared_url).status_code == 302  # a login first
    client.force_login(user)
    assert client.get(private_url).status_code == 404
    assert client.get(shared_url).status_code == 200
    client.force_login(other_user)
    assert client.get(private_url).status_code == 200


def test_more_like_an_empty_list_says_so(client, user):
    reading_list = make_reading_list(user, "Empty")
    client.force_login(user)
    response = client.get(reverse("recommendations:list-similar", args=[reading_list.pk]))
    assert "No similar papers found" in response.content.decode()


def test_more_like_a_list_without_a_search_index_says_so(client, user, library, monkeypatch):
    from papers.search.store import IndexUnavailable

    def unavailable():
        raise IndexUnavailable("no index")

    monkeypatch.setattr(selectors, "current_searcher", unavailable)
    reading_list = make_reading_list(user, papers=library["graphs"][:2])
    client.force_login(user)
    response = client.get(reverse("recommendations:list-similar", args=[reading_list.pk]))
    assert response.status_code == 200
    assert "search index is not available" in response.content.decode()


def test_member_signals_read_three_queries(user, library, django_assert_num_queries):
    make_reading_list(user, papers=library["graphs"][:2])
    with django_assert_num_queries(3):
        training.member_signals(user)


def test_the_two_members_get_different_rows(user, other_user, library):
    make_reading_list(user, papers=library["diffusion"][:3])
    make_reading_list(other_user, papers=library["bandits"][:3])
    list(services.recompute())
    mine = Recommendation.objects.filter(user=user).order_by("-score").first()
    theirs = Recommendation.objects.filter(user=other_user).order_by("-score").first()
    assert mine is not None and theirs is not None
    assert topic_of(library, mine.paper_id) == "diffusion"
    assert topic_of(library, theirs.paper_id) == "bandits"


def test_more_like_a_list_reads_a_fixed_number_of_queries(
    client, user, library, django_assert_num_queries
):
    small = make_reading_list(user, "Small", papers=library["graphs"][:2])
    large = make_reading_list(user, "Large", papers=library["bandits"][:6])
    client.force_login(user)
    client.get(reverse("recommendations:list-similar", args=[small.pk]))  # builds the index

    for reading_list in (small, large):
        # Session, user, the list, its papers, the index's change counter, the similar papers
        # with their first authors, the unread count in the header.
        with django_assert_num_queries(7):
            response = client.get(reverse("recommendations:list-similar", args=[reading_list.pk]))
        assert response.context["similar"]
