"""Links on pages listing papers are built without reverse() per link, and are the same URLs."""

from __future__ import annotations

import pytest
from django.urls import clear_script_prefix, reverse, set_script_prefix

from papers.models import Author
from papers.routes import int_route
from tests.factories import make_paper


@pytest.mark.parametrize("name", ["papers:author", "papers:detail"])
@pytest.mark.parametrize("pk", [1, 7, 10, 9081726354, 2**63 - 1])
def test_int_route_is_reverse(name, pk):
    assert int_route(name)(pk) == reverse(name, args=[pk])


def test_int_route_follows_the_script_prefix_of_the_request():
    plain = int_route("papers:author")
    set_script_prefix("/lab/")
    try:
        under_prefix = int_route("papers:author")
        assert under_prefix(42) == reverse("papers:author", args=[42]) == "/lab/authors/42/"
    finally:
        clear_script_prefix()
    assert plain(42) == "/authors/42/"


def test_int_route_accepts_integers_only():
    with pytest.raises(ValueError):
        int_route("papers:author")("1/../../admin")


@pytest.mark.django_db
def test_papers_and_authors_link_to_their_own_pages_under_any_script_prefix():
    paper, author = make_paper("A paper"), Author.objects.create(name="Ann Lee")
    assert paper.get_absolute_url() == reverse("papers:detail", args=[paper.pk])
    assert author.get_absolute_url() == reverse("papers:author", args=[author.pk])
    set_script_prefix("/lab/")
    try:
        assert paper.get_absolute_url() == f"/lab/papers/{paper.pk}/"
    finally:
        clear_script_prefix()
