"""Facet semantics on the paper list: OR within a facet, AND across facets, disjunctive counts."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.models import Note, ReadingList, ReadingListItem
from papers.models import TagKind
from tests.factories import make_paper

VENUE, TRACK, LAB = TagKind.VENUE, TagKind.TRACK, TagKind.LAB


@pytest.fixture
def catalogue(db):
    """Five papers over two venues, three tracks, four authors and one lab tag."""
    return {
        "p1": make_paper(
            "Paper One",
            authors=["Ann Alpha", "Bob Beta"],
            tags=[("ICLR 2024", VENUE), ("Poster", TRACK), ("RL", LAB)],
        ),
        "p2": make_paper(
            "Paper Two",
            authors=["Ann Alpha", "Cid Gamma"],
            tags=[("ICLR 2024", VENUE), ("Oral", TRACK)],
        ),
        "p3": make_paper(
            "Paper Three", authors=["Bob Beta"], tags=[("NeurIPS 2023", VENUE), ("Poster", TRACK)]
        ),
        "p4": make_paper(
            "Paper Four",
            authors=["Dee Delta"],
            tags=[("NeurIPS 2023", VENUE), ("Spotlight", TRACK), ("RL", LAB)],
        ),
        "p5": make_paper(
            "Paper Five",
            authors=["Cid Gamma", "Dee Delta"],
            tags=[("ICLR 2024", VENUE), ("Poster", TRACK)],
        ),
    }


def get_list(client, query: str = ""):
    response = client.get(reverse("papers:list") + query)
    assert response.status_code == 200
    return response


def titles(response) -> set[str]:
    return {paper.title for paper in response.context["papers"]}


def counts(response, param: str) -> dict[str, int]:
    facet = next(f for f in response.context["facets"] if f.param == param)
    return {value.label: value.count for value in facet.values}


def selected(response, param: str) -> set[str]:
    facet = next(f for f in response.context["facets"] if f.param == param)
    return {value.label for value in facet.values if value.selected}


def test_unfiltered_counts_cover_the_whole_catalogue(client, catalogue):
    response = get_list(client)
    assert response.context["total"] == 5
    assert counts(response, "venue") == {"ICLR 2024": 3, "NeurIPS 2023": 2}
    assert counts(response, "track") == {"Poster": 3, "Spotlight": 1, "Oral": 1}
    assert counts(response, "author") == {
        "Ann Alpha": 2,
        "Bob Beta": 2,
        "Cid Gamma": 2,
        "Dee Delta": 2,
    }
    assert counts(response, "tag") == {"RL": 2}


def test_track_values_are_listed_poster_spotlight_oral(client, catalogue):
    response = get_list(client)
    assert list(counts(response, "track")) == ["Poster", "Spotlight", "Oral"]


def test_values_within_one_facet_are_ored(client, catalogue):
    response = get_list(client, "?track=poster&track=oral")
    assert titles(response) == {"Paper One", "Paper Two", "Paper Three", "Paper Five"}
    bob, dee = author_ids(catalogue, "Bob Beta", "Dee Delta")
    response = get_list(client, f"?author={bob}&author={dee}")
    assert titles(response) == {"Paper One", "Paper Three", "Paper Four", "Paper Five"}


def test_facets_are_anded(client, catalogue):
    response = get_list(client, "?venue=iclr-2024&track=poster")
    assert titles(response) == {"Paper One", "Paper Five"}
    response = get_list(client, "?venue=iclr-2024&track=poster&tag=rl")
    assert titles(response) == {"Paper One"}
    assert response.context["total"] == 1


def test_each_facet_is_counted_without_its_own_selection(client, catalogue):
    response = get_list(client, "?venue=iclr-2024&track=poster")
    # Venues are counted with only the track applied: ICLR p1, p5; NeurIPS p3.
    assert counts(response, "venue") == {"ICLR 2024": 2, "NeurIPS 2023": 1}
    # Tracks are counted with only the venue applied: Poster p1, p5; Oral p2; no Spotlight.
    assert counts(response, "track") == {"Poster": 2, "Oral": 1}
    # Authors and lab tags are counted over the full selection (p1, p5).
    assert counts(response, "author") == {
        "Ann Alpha": 1,
        "Bob Beta": 1,
        "Cid Gamma": 1,
        "Dee Delta": 1,
    }
    assert counts(response, "tag") == {"RL": 1}


def test_author_facet_counts_ignore_the_selected_author(client, catalogue):
    (ann,) = author_ids(catalogue, "Ann Alpha")
    response = get_list(client, f"?author={ann}&track=poster")
    assert titles(response) == {"Paper One"}
    # Authors among the posters (p1, p3, p5), regardless of the author selection.
    assert counts(response, "author") == {
        "Ann Alpha": 1,
        "Bob Beta": 2,
        "Cid Gamma": 1,
        "Dee Delta": 1,
    }
    # Tracks among Ann's papers (p1 poster, p2 oral).
    assert counts(response, "track") == {"Poster": 1, "Oral": 1}


def test_selected_value_stays_visible_with_zero_count(client, catalogue):
    response = get_list(client, "?venue=neurips-2023&track=oral")
    assert titles(response) == set()
    assert counts(response, "venue") == {"ICLR 2024": 1, "NeurIPS 2023": 0}
    assert selected(response, "venue") == {"NeurIPS 2023"}
    assert b"No results" in response.content


def test_zero_count_values_are_hidden(client, catalogue):
    response = get_list(client, "?venue=neurips-2023")
    assert counts(response, "author") == {"Bob Beta": 1, "Dee Delta": 1}
    assert "Oral" not in counts(response, "track")


def test_author_box_narrows_the_author_values_but_keeps_selected_ones(client, catalogue):
    (bob,) = author_ids(catalogue, "Bob Beta")
    response = get_list(client, "?author_q=ann")
    assert counts(response, "author") == {"Ann Alpha": 2}
    response = get_list(client, f"?author_q=ALPHA&author={bob}")
    assert counts(response, "author") == {"Ann Alpha": 2, "Bob Beta": 2}
    assert selected(response, "author") == {"Bob Beta"}


def test_author_box_finds_names_with_or_without_their_accents(client, db):
    make_paper("One", authors=["Jürgen Müller", "Zoë Ødegaard"])
    make_paper("Two", authors=["Jurgen Muller"])
    both = {"Jürgen Müller": 1, "Jurgen Muller": 1}
    assert counts(get_list(client, "?author_q=muller"), "author") == both
    assert counts(get_list(client, "?author_q=M%C3%BCller"), "author") == both  # Müller
    assert counts(get_list(client, "?author_q=zoe+odegaard"), "author") == {"Zoë Ødegaard": 1}


def test_chip_removes_only_its_value_and_clear_all_drops_every_facet(client, catalogue):
    response = get_list(client, "?q=&venue=iclr-2024&venue=neurips-2023&track=poster&page=1")
    chips = {chip["label"]: chip["query"].urlencode() for chip in response.context["chips"]}
    # The empty search box is left out of every link, as it is of the address bar.
    assert chips["ICLR 2024"] == "venue=neurips-2023&track=poster"
    assert chips["Poster"] == "venue=iclr-2024&venue=neurips-2023"
    assert 'href="/?venue=neurips-2023&amp;track=poster"' in response.content.decode()
    assert response.context["clear_query"].urlencode() == ""


def test_link_to_a_selection_reproduces_it(client, catalogue):
    first = get_list(client, "?venue=iclr-2024&track=poster&sort=title&per_page=10")
    again = get_list(client, "?per_page=10&sort=title&track=poster&venue=iclr-2024")
    assert [p.pk for p in first.context["papers"]] == [p.pk for p in again.context["papers"]]
    assert [p.title for p in first.context["papers"]] == ["Paper Five", "Paper One"]


@pytest.fixture
def my_annotations(catalogue, user, other_user):
    reading_list = ReadingList.objects.create(owner=user, name="Queue")
    ReadingListItem.objects.create(reading_list=reading_list, paper=catalogue["p1"], position=0)
    ReadingListItem.objects.create(reading_list=reading_list, paper=catalogue["p4"], position=1)
    Note.objects.create(owner=user, paper=catalogue["p3"], body="mine")
    Note.objects.create(owner=user, paper=catalogue["p4"], body="mine too")
    theirs = ReadingList.objects.create(owner=other_user, name="Theirs")
    ReadingListItem.objects.create(reading_list=theirs, paper=catalogue["p2"], position=0)
    Note.objects.create(owner=other_user, paper=catalogue["p5"], body="not mine")
    return catalogue


def test_mine_facet_counts_and_filters_for_the_logged_in_user(client, user, my_annotations):
    client.force_login(user)
    response = get_list(client)
    assert counts(response, "mine") == {"In my reading lists": 2, "Has my note": 2}
    response = get_list(client, "?mine=lists")
    assert titles(response) == {"Paper One", "Paper Four"}
    response = get_list(client, "?mine=lists&mine=notes")
    assert titles(response) == {"Paper One", "Paper Three", "Paper Four"}
    assert response.context["total"] == 3


def test_mine_facet_is_disjunctive_and_anded_with_other_facets(client, user, my_annotations):
    client.force_login(user)
    response = get_list(client, "?mine=notes&venue=neurips-2023&track=spotlight")
    assert titles(response) == {"Paper Four"}
    # Mine counted over NeurIPS spotlights (p4); venue counted over my noted spotlights (p4).
    assert counts(response, "mine") == {"In my reading lists": 1, "Has my note": 1}
    assert counts(response, "venue") == {"NeurIPS 2023": 1}
    assert counts(response, "track") == {"Poster": 1, "Spotlight": 1}


def test_mine_is_ignored_for_anonymous_visitors(client, my_annotations):
    response = get_list(client, "?mine=lists")
    assert response.context["total"] == 5
    assert "mine" not in {facet.param for facet in response.context["facets"]}


def test_other_users_lists_and_notes_never_count(client, other_user, my_annotations):
    client.force_login(other_user)
    response = get_list(client, "?mine=lists&mine=notes")
    assert titles(response) == {"Paper Two", "Paper Five"}


def author_ids(catalogue, *names: str) -> tuple[int, ...]:
    from papers.models import Author

    by_name = dict(Author.objects.values_list("name", "pk"))
    return tuple(by_name[name] for name in names)


def test_counts_follow_a_new_paper_at_once(client, catalogue):
    first = get_list(client, "?track=poster")
    assert counts(first, "venue") == {"ICLR 2024": 2, "NeurIPS 2023": 1}
    make_paper(
        "Paper Six",
        authors=["Ann Alpha"],
        tags=[("NeurIPS 2023", VENUE), ("Poster", TRACK), ("Vision", LAB)],
    )
    again = get_list(client, "?track=poster")
    assert counts(again, "venue") == {"ICLR 2024": 2, "NeurIPS 2023": 2}
    assert counts(again, "tag") == {"RL": 1, "Vision": 1}


def test_personal_counts_follow_the_users_lists(client, user, my_annotations):
    client.force_login(user)
    assert counts(get_list(client, "?mine=lists"), "venue") == {"ICLR 2024": 1, "NeurIPS 2023": 1}
    reading_list = ReadingList.objects.get(owner=user)
    ReadingListItem.objects.create(
        reading_list=reading_list, paper=my_annotations["p2"], position=5
    )
    assert counts(get_list(client, "?mine=lists"), "venue") == {"ICLR 2024": 2, "NeurIPS 2023": 1}


def test_removing_the_last_filter_links_to_the_unfiltered_list(client, catalogue):
    response = get_list(client, "?venue=iclr-2024")
    html = response.content.decode()
    assert 'class="chip" href="/"' in html
    assert 'class="clear-all" href="/"' in html
