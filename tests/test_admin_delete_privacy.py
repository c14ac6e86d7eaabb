"""Delete confirmation pages list what goes with the deleted object, but tell nothing of what
members keep to themselves: their notes, private reading lists and their items,
recommendations, saved searches, the "paper in your reading lists" notices. Such rows are
neither named, nor listed one per row, nor counted; the page says once, the same whether or not
there are any, that members' private annotations go too."""

from __future__ import annotations

import html
import re

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from alerts.models import SavedSearch
from annotations.discussion import post_comment
from annotations.models import (
    Note,
    Notification,
    NotificationKind,
    ReadingList,
    ReadingListItem,
    Visibility,
)
from papers.admin.deletion import PRIVATE_ANNOTATIONS_DELETED
from papers.models import Paper
from recommendations.models import Recommendation
from tests.factories import make_lab_tag, make_note, make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db

SECRET_LIST = "Secret job-talk papers"
SHARED_LIST = "Lab reading group"
SECRET_SEARCH = "Competitor watch"

PAPER_SENTENCE = PRIVATE_ANNOTATIONS_DELETED % {
    "kinds": "highlights, notes, notifications, reading list items, recommendations, suggestions"
}
MEMBER_SENTENCE = PRIVATE_ANNOTATIONS_DELETED % {
    "kinds": "digest states, highlight preferences, highlights, log entries, notes, "
    "notifications, reading list items, reading lists, recommendations, saved searches, "
    "suggestions"
}

# Summary lines and object lines of the kinds that can hold private rows.
PRIVATE_KIND_LINES = re.compile(
    r"(Notes?|Reading list items?|Recommendations?|Notifications?|Reading lists?|"
    r"Saved search(es)?|Digest states?|Log entr(y|ies)): ",
)


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


def recommend(user, paper) -> Recommendation:
    return Recommendation.objects.create(
        user=user, paper=paper, score=1.5, computed_at=timezone.now()
    )


def confirmation(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def delete_selected(client, paper: Paper, **extra) -> str:
    response = client.post(
        reverse("admin:papers_paper_changelist"),
        {"action": "delete_selected", "_selected_action": [paper.pk], **extra},
    )
    return html.unescape(response.content.decode())


def private_kind_lines(page: str) -> list[str]:
    return [m.group(0) for m in PRIVATE_KIND_LINES.finditer(page)]


def test_paper_delete_page_neither_counts_nor_lists_private_things(admin_client, ann, paper):
    bob = make_user("bob")
    make_note(bob, paper, "Another note")
    recommend(ann, paper)
    post_comment(paper=paper, author=bob, body="Worth a look.")  # tells ann: on her lists
    assert Notification.objects.filter(kind=NotificationKind.LISTED_PAPER).exists()

    page = confirmation(admin_client, reverse("admin:papers_paper_delete", args=[paper.pk]))

    assert "Are you sure" in page
    assert SECRET_LIST not in page
    assert "Note by ann" not in page
    assert "private to another member" not in page
    assert "Notes:" not in page
    assert "Reading list items:" not in page
    assert "Recommendations:" not in page
    assert "Notifications:" not in page
    assert "Note:" not in page
    assert "Recommendation:" not in page
    assert "Notification:" not in page
    # Said once, in words that tell nothing of how many.
    assert page.count(PAPER_SENTENCE) == 1
    # The lab's own things are listed and counted as before: a shared list's item, comments.
    assert SHARED_LIST in page
    assert "Comments: 1" in page
    assert "Comment by bob" in page


def test_delete_selected_action_neither_counts_nor_lists_private_things(admin_client, ann, paper):
    recommend(ann, paper)
    other = make_paper("Also deleted")
    make_note(ann, other, "Yet another note")

    response = admin_client.post(
        reverse("admin:papers_paper_changelist"),
        {"action": "delete_selected", "_selected_action": [paper.pk, other.pk]},
    )
    page = html.unescape(response.content.decode())

    assert "Are you sure" in page
    assert SECRET_LIST not in page
    assert "Note by ann" not in page
    assert "private to another member" not in page
    assert "Notes:" not in page
    assert "Note:" not in page
    assert "Recommendation" not in page.replace(PAPER_SENTENCE, "")
    assert page.count(PAPER_SENTENCE) == 1
    assert SHARED_LIST in page


def _normalized(page: str, *titles: str) -> str:
    for title in titles:
        page = page.replace(title, "TITLE")
    page = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", page)
    page = re.sub(r'name="_selected_action" value="\d+"', "", page)
    return re.sub(r"/\d+/", "/ID/", page)


def _paper_with_lab_things(title: str) -> Paper:
    paper = make_paper(title, authors=["Ada Lovelace"])
    make_lab_tag(paper, "diffusion")
    return paper


def test_paper_delete_page_is_the_same_whether_or_not_members_annotated_it(admin_client):
    ann, bob = make_user("ann"), make_user("bob")
    annotated = _paper_with_lab_things("Annotated paper")
    plain = _paper_with_lab_things("Plain paper")
    make_note(ann, annotated, "Note one")
    make_note(bob, annotated, "Note two")
    make_reading_list(ann, SECRET_LIST, papers=[annotated])
    make_reading_list(bob, "Bob's secret list", papers=[annotated])
    recommend(ann, annotated)
    recommend(bob, annotated)

    def page_for(paper: Paper) -> str:
        url = reverse("admin:papers_paper_delete", args=[paper.pk])
        return _normalized(confirmation(admin_client, url), paper.title)

    assert page_for(annotated) == page_for(plain)
    assert _normalized(delete_selected(admin_client, annotated), annotated.title) == _normalized(
        delete_selected(admin_client, plain), plain.title
    )
    assert PAPER_SENTENCE in page_for(plain)


def test_deleting_the_paper_still_deletes_private_annotations(admin_client, ann, paper):
    recommend(ann, paper)
    post_comment(paper=paper, author=make_user("bob"), body="Worth a look.")
    secret = ReadingList.objects.get(name=SECRET_LIST)

    response = admin_client.post(
        reverse("admin:papers_paper_delete", args=[paper.pk]), {"post": "yes"}
    )

    assert response.status_code == 302
    assert not Paper.objects.filter(pk=paper.pk).exists()
    assert not Note.objects.exists()
    assert not ReadingListItem.objects.exists()
    assert not Recommendation.objects.exists()
    assert not Notification.objects.exists()
    # The list itself is ann's, not the paper's.
    assert ReadingList.objects.filter(pk=secret.pk).exists()


def test_delete_selected_action_still_deletes_private_annotations(admin_client, ann, paper):
    recommend(ann, paper)

    response = delete_selected(admin_client, paper, post="yes")

    assert not Paper.objects.filter(pk=paper.pk).exists(), response
    assert not Note.objects.exists()
    assert not ReadingListItem.objects.exists()
    assert not Recommendation.objects.exists()


@pytest.fixture
def curator(client):
    """Staff who may delete papers, comments and members, but not notes, reading lists or
    notifications."""
    curator = make_user("curator", is_staff=True)
    curator.user_permissions.set(
        Permission.objects.filter(
            codename__in=[
                "view_paper",
                "delete_paper",
                "view_comment",
                "delete_comment",
                "view_user",
                "delete_user",
            ]
        )
    )
    client.force_login(curator)
    return client


def test_curator_is_not_blocked_nor_told_by_private_rows_they_may_not_delete(curator, ann, paper):
    post_comment(paper=paper, author=make_user("bob"), body="Worth a look.")
    notice = Notification.objects.get(kind=NotificationKind.LISTED_PAPER)
    assert notice.recipient == ann

    page = confirmation(curator, reverse("admin:papers_paper_delete", args=[paper.pk]))

    assert "doesn't have permission" not in page
    assert "notification" not in page.replace(PAPER_SENTENCE, "")
    assert page.count(PAPER_SENTENCE) == 1

    curator.post(reverse("admin:papers_paper_delete", args=[paper.pk]), {"post": "yes"})
    assert not Paper.objects.filter(pk=paper.pk).exists()
    assert not Notification.objects.exists()


def test_member_delete_page_is_not_blocked_by_their_private_list(curator):
    member = make_user("member")
    make_reading_list(member, SECRET_LIST)

    page = confirmation(curator, reverse("admin:auth_user_delete", args=[member.pk]))

    assert "doesn't have permission" not in page
    assert SECRET_LIST not in page
    assert "Reading list" not in page
    assert page.count(MEMBER_SENTENCE) == 1


def test_a_shared_list_still_needs_the_permission_to_delete_it(curator):
    # The lab sees a shared list: Django's check stands, and names its kind.
    member = make_user("member")
    make_reading_list(member, SHARED_LIST, visibility=Visibility.SHARED)

    page = confirmation(curator, reverse("admin:auth_user_delete", args=[member.pk]))

    assert "doesn't have permission" in page
    assert "reading list" in page


def test_member_delete_page_neither_names_nor_counts_their_private_things(admin_client, ann, paper):
    page = confirmation(admin_client, reverse("admin:auth_user_delete", args=[ann.pk]))

    assert SECRET_LIST not in page
    assert SECRET_SEARCH not in page
    assert "Note by ann" not in page
    assert "Saved searches:" not in page
    assert "Notes:" not in page
    assert "private to another member" not in page
    assert page.count(MEMBER_SENTENCE) == 1
    # The shared list (and its item) are the lab's: listed as before.
    assert SHARED_LIST in page
    assert private_kind_lines(page) == ["Reading list: ", "Reading list item: "]


def test_own_private_things_are_named_on_the_delete_page(client, paper, ann):
    ann.is_staff = ann.is_superuser = True
    ann.save()
    client.force_login(ann)

    page = confirmation(client, reverse("admin:papers_paper_delete", args=[paper.pk]))

    assert SECRET_LIST in page
    assert "Note by ann" in page
    assert "Notes:" not in page
    assert page.count(PAPER_SENTENCE) == 1


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
    assert "Log entries:" not in page
    assert "Log entry:" not in page
    assert page.count(MEMBER_SENTENCE) == 1


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
