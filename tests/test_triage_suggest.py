""" "Suggest to…" in a result's "More" (issue 41, point 3): the paper page's suggestion,
through annotations.suggestions, from the list, author and tag pages; htmx answers with the
result's block, a plain form POST redirects back to the page it came from."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from annotations.models import Notification, NotificationKind, Suggestion
from papers.search.sync import current_searcher
from tests.factories import make_paper, make_user

HTMX = {"HTTP_HX_REQUEST": "true"}
LIST_URL = "/?q=graph&sort=title"


@pytest.fixture
def paper(db):
    made = make_paper("Graph paper to share", authors=["Ann Author"])
    current_searcher()  # the list page's index, as a running server has it
    return made


@pytest.fixture
def ann(client, db):
    member = make_user("ann")
    client.force_login(member)
    return member


def _suggest(client, paper, to: str, why: str = "For Thursday", **extra):
    prefix = f"p{paper.pk}"
    return client.post(
        reverse("annotations:triage-suggest", args=[paper.pk]),
        {f"{prefix}-recipient": to, f"{prefix}-reason": why, "next": LIST_URL},
        **extra,
    )


def test_each_result_offers_suggest_to_in_its_more_menu(client, ann, paper):
    html = client.get(LIST_URL).content.decode()
    url = reverse("annotations:triage-suggest", args=[paper.pk])
    assert f'name="p{paper.pk}-recipient" form="triage-form"' in html
    assert f'formaction="{url}" hx-post="{url}" data-triage-suggest' in html


def test_with_htmx_the_colleague_gets_it_and_the_block_says_so(client, ann, paper):
    bob = make_user("bob")
    response = _suggest(client, paper, "bob", **HTMX)

    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith(f'<div class="triage" id="triage-{paper.pk}"')
    assert "Suggested to bob: “Graph paper to share”." in html
    suggestion = Suggestion.objects.get()
    assert (suggestion.sender, suggestion.recipient) == (ann, bob)
    assert suggestion.reason == "For Thursday"
    assert Notification.objects.filter(
        recipient=bob, kind=NotificationKind.SUGGESTION, suggestion=suggestion
    ).exists()


def test_without_javascript_it_redirects_back_with_the_message(client, ann, paper):
    make_user("bob")
    response = _suggest(client, paper, "bob")

    assert response.status_code == 302 and response["Location"] == LIST_URL
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert messages == ["Suggested to bob: “Graph paper to share”."]
    assert Suggestion.objects.count() == 1


@pytest.mark.parametrize("to", ["ann", "nobody", ""])
def test_oneself_an_unknown_name_or_none_is_refused_in_place(client, ann, paper, to):
    response = _suggest(client, paper, to, **HTMX)

    assert response.status_code == 400
    assert "Not suggested:" in response.content.decode()
    assert not Suggestion.objects.exists() and not Notification.objects.exists()


def test_the_same_suggestion_twice_is_said_once(client, ann, paper):
    make_user("bob")
    _suggest(client, paper, "bob", **HTMX)
    again = _suggest(client, paper, "bob", **HTMX)

    assert again.status_code == 200
    assert "You already suggested “Graph paper to share” to bob." in again.content.decode()
    assert Suggestion.objects.count() == 1


def test_visitors_see_no_box_and_cannot_post(client, paper):
    make_user("bob")
    assert "-recipient" not in client.get(LIST_URL).content.decode()
    response = _suggest(client, paper, "bob")
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert not Suggestion.objects.exists()
