"""Honest facets: papers whose sources name no venue or no track are a "Not given" value of
that facet, counted like the others (disjunctively) and selectable."""

from __future__ import annotations

import pytest
from django.urls import reverse

from papers.filters import NOT_GIVEN_SLUG
from papers.models import TagKind
from tests.factories import make_paper

VENUE, TRACK = TagKind.VENUE, TagKind.TRACK


@pytest.fixture
def catalogue(db):
    make_paper("Oral Paper", tags=[("ICLR 2024", VENUE), ("Oral", TRACK)])
    make_paper("Poster Paper", tags=[("ICLR 2024", VENUE), ("Poster", TRACK)])
    make_paper("Venue Only", tags=[("ICLR 2024", VENUE)])
    make_paper("Bare Paper")


def get_list(client, query: str = ""):
    response = client.get(reverse("papers:list") + query)
    assert response.status_code == 200
    return response


def facet(response, param: str):
    return next(f for f in response.context["facets"] if f.param == param)


def shown(response, param: str) -> list[tuple[str, int, bool]]:
    return [(v.label, v.count, v.selected) for v in facet(response, param).values]


def titles(response) -> set[str]:
    return {paper.title for paper in response.context["papers"]}


def test_papers_without_a_track_or_venue_are_counted_as_not_given(client, catalogue):
    response = get_list(client)
    assert shown(response, "track") == [
        ("Poster", 1, False),
        ("Oral", 1, False),
        ("Not given", 2, False),  # always last
    ]
    assert shown(response, "venue") == [("ICLR 2024", 3, False), ("Not given", 1, False)]
    assert "sources name no track" in facet(response, "track").hint
    content = response.content.decode()
    assert f'name="track" value="{NOT_GIVEN_SLUG}"' in content
    assert "sources name no track" in content


def test_not_given_is_selectable_alone_or_with_values(client, catalogue):
    response = get_list(client, f"?track={NOT_GIVEN_SLUG}")
    assert titles(response) == {"Venue Only", "Bare Paper"}
    # Disjunctive: the track facet still counts every track; the venue facet counts within.
    assert shown(response, "track")[-1] == ("Not given", 2, True)
    assert shown(response, "venue") == [("ICLR 2024", 1, False), ("Not given", 1, False)]

    both = get_list(client, f"?track={NOT_GIVEN_SLUG}&track=oral")
    assert titles(both) == {"Oral Paper", "Venue Only", "Bare Paper"}

    narrowed = get_list(client, f"?track={NOT_GIVEN_SLUG}&venue={NOT_GIVEN_SLUG}")
    assert titles(narrowed) == {"Bare Paper"}


def test_a_catalogue_where_every_paper_has_a_track_shows_no_not_given(client, db):
    make_paper("Only Oral", tags=[("ICLR 2024", VENUE), ("Oral", TRACK)])
    response = get_list(client)
    assert [label for label, _, _ in shown(response, "track")] == ["Oral"]
    assert facet(response, "track").hint == ""


def test_not_given_is_not_a_value_of_other_facets(client, catalogue):
    response = get_list(client, f"?tag={NOT_GIVEN_SLUG}")
    assert titles(response) == {"Oral Paper", "Poster Paper", "Venue Only", "Bare Paper"}
    assert response.context["ignored"] == [f"tag “{NOT_GIVEN_SLUG}”"]
