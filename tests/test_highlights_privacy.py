"""A private highlight is its author's alone: not in the admin (superusers included), not on
a delete page, not through a changelist lookup, not on the lab page, in recent activity or in
notifications. Lab highlights are listed for curators."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from annotations.models import Comment, Notification
from highlights.models import Highlight
from tests.factories import make_paper, make_reading_list, make_user
from tests.highlight_helpers import make_highlight

pytestmark = pytest.mark.django_db

SECRET = "ann's secret quote"
SHARED = "ann's shared quote"


@pytest.fixture
def ann():
    return make_user("ann")


@pytest.fixture
def paper(ann):
    paper = make_paper("Highlighted paper")
    make_highlight(ann, paper, exact=SECRET, note="secret margin note")
    return paper


def test_admin_lists_lab_highlights_and_the_curators_own_only(admin_client, admin_user, ann, paper):
    make_highlight(ann, paper, exact=SHARED, visibility="lab")
    make_highlight(admin_user, paper, exact="the curator's private quote")
    page = admin_client.get(reverse("admin:highlights_highlight_changelist")).content.decode()
    page = html.unescape(page)
    assert SHARED in page and "the curator's private quote" in page
    assert SECRET not in page


def test_admin_change_page_of_a_private_highlight_is_not_found(admin_client, ann, paper):
    secret = Highlight.objects.get(exact=SECRET)
    response = admin_client.get(reverse("admin:highlights_highlight_change", args=[secret.pk]))
    assert response.status_code == 302  # the admin sends a missing object's URL home
    assert SECRET not in response.content.decode()
    admin_client.post(
        reverse("admin:highlights_highlight_delete", args=[secret.pk]), {"post": "yes"}
    )
    assert Highlight.objects.filter(pk=secret.pk).exists()


def test_admin_search_does_not_find_private_highlights(admin_client, ann, paper):
    url = reverse("admin:highlights_highlight_changelist")
    page = admin_client.get(url, {"q": "secret"}).content.decode()
    assert SECRET not in html.unescape(page)


def test_changelist_lookup_through_highlights_is_refused(admin_client, ann, paper):
    secret = Highlight.objects.get(exact=SECRET)
    response = admin_client.get(reverse("admin:papers_paper_changelist"), {"highlights": secret.pk})
    assert response.status_code == 400
    response = admin_client.get(reverse("admin:auth_user_changelist"), {"highlights": secret.pk})
    assert response.status_code == 400


def test_paper_delete_page_does_not_name_a_private_highlight(admin_client, ann, paper):
    page = admin_client.get(reverse("admin:papers_paper_delete", args=[paper.pk])).content.decode()
    page = html.unescape(page)
    assert "Are you sure" in page
    assert "Highlight by ann" not in page and "Highlights:" not in page
    assert "highlights" in page  # named once among the kinds of private annotations


def test_curator_deleting_a_lab_highlight_removes_its_thread(admin_client, ann, paper):
    from highlights import services

    lab = services.create_highlight(
        paper=paper,
        author=ann,
        fields={"page": 1, "exact": SHARED, "start": 0, "end": len(SHARED), "visibility": "lab"},
    )
    admin_client.post(reverse("admin:highlights_highlight_delete", args=[lab.pk]), {"post": "yes"})
    assert not Highlight.objects.filter(pk=lab.pk).exists()
    assert not Comment.objects.exists()  # nothing replied: the thread goes with it


def test_lab_page_and_recent_activity_never_show_private_highlights(client, ann, paper):
    bob = make_user("bob")
    make_reading_list(ann, "Ann's lab list", papers=[paper], visibility="shared")
    client.force_login(bob)
    for url in (reverse("alerts:lab"), reverse("annotations:activity")):
        page = client.get(url).content.decode()
        assert SECRET not in page and "secret margin note" not in page


def test_lab_highlight_shows_in_recent_activity_through_its_thread(client, ann, paper):
    bob = make_user("bob")
    client.force_login(ann)
    data = {"page": "2", "exact": SHARED, "start": "0", "end": str(len(SHARED))}
    client.post(reverse("highlights:list", args=[paper.pk]), {**data, "visibility": "lab"})
    client.force_login(bob)
    page = html.unescape(client.get(reverse("annotations:activity")).content.decode())
    assert SHARED in page
    assert SECRET not in page


def test_private_highlights_make_no_notifications(client, ann, paper):
    bob = make_user("bob")
    make_reading_list(bob, papers=[paper])
    client.force_login(ann)
    data = {"page": "2", "exact": "words", "start": "0", "end": "5", "note": "@bob hi"}
    client.post(reverse("highlights:list", args=[paper.pk]), {**data, "visibility": "private"})
    assert not Notification.objects.exists()
