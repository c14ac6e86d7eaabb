"""A reading list's "Add paper" box takes a paper's title as well as its identifiers.

Picking a suggestion fills in the paper's number (tests/browser/test_suggest.py); typing a
whole title and pressing Enter adds the one paper with that title.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.models import ReadingListItem
from tests.factories import make_paper, make_reading_list

pytestmark = pytest.mark.django_db


def add(client, reading_list, typed: str, **headers):
    return client.post(
        reverse("annotations:list-item-add", args=[reading_list.pk]), {"paper": typed}, **headers
    )


def listed(reading_list) -> list[str]:
    return [item.paper.title for item in reading_list.items.order_by("position")]


@pytest.fixture
def queue(user):
    return make_reading_list(user, "Queue")


def test_the_box_suggests_and_fills_in_the_pick(client, user, queue):
    client.force_login(user)
    html = client.get(queue.get_absolute_url()).content.decode()
    assert f'data-suggest-url="{reverse("papers:suggest")}"' in html
    assert 'data-suggest-action="fill"' in html


@pytest.mark.parametrize(
    "typed", ["Scalable Diffusion Transformers", "  scalable   DIFFUSION transformers "]
)
def test_a_paper_is_added_by_its_exact_title(client, user, queue, typed):
    make_paper("Scalable Diffusion Transformers")
    make_paper("Scalable Diffusion Transformers, revisited")
    client.force_login(user)
    assert add(client, queue, typed).status_code == 302
    assert listed(queue) == ["Scalable Diffusion Transformers"]


def test_a_paper_is_added_by_its_number_with_a_hash(client, user, queue):
    paper = make_paper("Numbered")
    client.force_login(user)
    assert add(client, queue, f"#{paper.pk}").status_code == 302
    assert listed(queue) == ["Numbered"]


def test_a_title_two_papers_share_is_refused_and_nothing_is_written(client, user, queue):
    make_paper("Attention Is All You Need")
    make_paper("attention is all you need")
    client.force_login(user)
    response = add(client, queue, "Attention is all you need", HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    html = response.content.decode()
    assert "Several papers are titled “Attention is all you need”." in html
    assert "Pick one from the suggestions." in html
    assert not ReadingListItem.objects.exists()


@pytest.mark.parametrize("typed", ["Scalable Diffusion", "Diffusion Transformers", "Scalable"])
def test_part_of_a_title_is_refused_with_a_pointer_to_the_suggestions(client, user, queue, typed):
    make_paper("Scalable Diffusion Transformers")
    client.force_login(user)
    response = add(client, queue, typed)
    assert response.status_code == 200
    assert f"No paper matches “{typed}”. Pick one from the suggestions." in (
        response.content.decode()
    )
    assert not ReadingListItem.objects.exists()


@pytest.mark.parametrize("typed", ["%", "_", "Scalable%", "²", "9" * 30, "a" * 501])
def test_odd_titles_are_form_errors(client, user, queue, typed):
    make_paper("Scalable Diffusion Transformers")
    client.force_login(user)
    response = add(client, queue, typed)
    assert response.status_code == 200
    assert 'class="errorlist' in response.content.decode()
    assert not ReadingListItem.objects.exists()


def test_another_members_private_list_takes_nothing_by_title(client, user, other_user):
    private = make_reading_list(user, "Mine")
    make_paper("Scalable Diffusion Transformers")
    client.force_login(other_user)
    assert add(client, private, "Scalable Diffusion Transformers").status_code == 404
    assert not ReadingListItem.objects.exists()
    # Nor does its page show them the box.
    assert client.get(private.get_absolute_url()).status_code == 404


def test_a_title_is_found_without_the_search_index_too(client, user, queue, monkeypatch):
    from papers.search.store import IndexUnavailable

    def unavailable():
        raise IndexUnavailable("no index")

    make_paper("Scalable Diffusion Transformers")
    monkeypatch.setattr("papers.suggest.current_searcher", unavailable)
    client.force_login(user)
    assert add(client, queue, "scalable diffusion transformers").status_code == 302
    assert listed(queue) == ["Scalable Diffusion Transformers"]


def test_a_long_title_many_others_begin_alike_is_still_found(client, user, queue):
    opening = "A study of one two three four five six seven eight nine ten"
    for n in range(12):
        make_paper(f"{opening}, part {n}")
    make_paper(opening)
    client.force_login(user)
    assert add(client, queue, opening.upper()).status_code == 302
    assert listed(queue) == [opening]
