"""Delete confirmation pages list what goes with the deleted object, but never name another
member's private things: their notes, private reading lists, saved searches and the
"paper in your reading lists" notices that reveal what is on those lists."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.urls import reverse

from alerts.models import SavedSearch
from annotations.discussion import post_comment
from annotations.models import Notification, NotificationKind, ReadingList, Visibility
from tests.factories import make_note, make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db

SECRET_LIST = "Secret job-talk papers"
SHARED_LIST = "Lab reading group"
SECRET_SEARCH = "Competitor watch"


@pytest.fixture
def ann():
    return make_user("ann")


@pytest.fixture
def paper(ann):
    paper = make_paper("Deleted paper", authors=["Ada Lovelace"])
    make_note(ann, paper, "Note about the paper")
    make_reading_list(ann, SECRET_LIST, papers=[paper])
    make_reading_list(ann, SHARED_LIST, papers=[paper], visibility=Visibility.SHARED)
    SavedSearch.objects.create(owner=ann, name=SECRET_SEARCH, query="q=diffusion")
    return paper


def confirmation(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_paper_delete_page_counts_private_things_without_naming_them(admin_client, paper):
    page = confirmation(admin_client, reverse("admin:papers_paper_delete", args=[paper.pk]))

    assert SECRET_LIST not in page
    assert "Note by ann" not in page
    assert "(private to another member)" in page
    # The summary still tells the curator how much goes with the paper.
    assert "Notes: 1" in page
    assert "Reading list items: 2" in page
    # A shared list is the lab's: named as before.
    assert SHARED_LIST in page


def test_delete_selected_action_hides_private_things_too(admin_client, paper):
    response = admin_client.post(
        reverse("admin:papers_paper_changelist"),
        {"action": "delete_selected", "_selected_action": [paper.pk]},
    )
    page = response.content.decode()
    assert "Are you sure" in page
    assert SECRET_LIST not in page
    assert "Note by ann" not in page


def test_member_delete_page_does_not_name_their_private_things(admin_client, ann, paper):
    page = confirmation(admin_client, reverse("admin:auth_user_delete", args=[ann.pk]))

    assert SECRET_LIST not in page
    assert SECRET_SEARCH not in page
    assert "Note by ann" not in page
    assert "Saved searches: 1" in page
    assert SHARED_LIST in page


def test_own_private_things_are_named_on_the_delete_page(client, paper, ann):
    ann.is_staff = ann.is_superuser = True
    ann.save()
    client.force_login(ann)

    page = confirmation(client, reverse("admin:papers_paper_delete", args=[paper.pk]))

    assert SECRET_LIST in page
    assert "Note by ann" in page


def test_reading_list_notices_of_others_are_not_listed(admin_client, ann, paper):
    commenter = make_user("bob")
    post_comment(paper=paper, author=commenter, body="Worth a look.")
    assert Notification.objects.filter(recipient=ann, kind=NotificationKind.LISTED_PAPER)

    response = admin_client.get(reverse("admin:annotations_notification_changelist"))

    assert list(response.context["cl"].result_list) == []


def test_member_delete_page_does_not_name_their_private_list_from_their_admin_history(
    admin_client, ann, paper
):
    # A curator who keeps a private list can edit it in the admin; the log entry that makes
    # keeps the list's name and is deleted with the curator.
    secret = ReadingList.objects.get(owner=ann, name=SECRET_LIST)
    LogEntry.objects.log_actions(
        user_id=ann.pk,
        queryset=[secret],
        action_flag=CHANGE,
        change_message="Changed description.",
        single_object=True,
    )

    page = confirmation(admin_client, reverse("admin:auth_user_delete", args=[ann.pk]))

    assert SECRET_LIST not in page
    assert "Log entries: 1" in page
    assert "Log entry: (private to another member)" in page


def test_own_admin_history_is_named_on_the_delete_page(client, ann, paper):
    ann.is_staff = ann.is_superuser = True
    ann.save()
    client.force_login(ann)
    secret = ReadingList.objects.get(owner=ann, name=SECRET_LIST)
    LogEntry.objects.log_actions(
        user_id=ann.pk, queryset=[secret], action_flag=CHANGE, single_object=True
    )

    page = confirmation(client, reverse("admin:auth_user_delete", args=[ann.pk]))

    assert SECRET_LIST in page
