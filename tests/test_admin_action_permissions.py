"""Admin actions are offered only to staff whose permissions cover what the action does."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission, User
from django.contrib.messages import get_messages
from django.test import RequestFactory
from django.urls import reverse

from annotations.models import Comment
from papers.models import Author, Paper
from tests.factories import make_paper

pytestmark = pytest.mark.django_db


def staff_with(*codenames: str) -> User:
    user = User.objects.create_user("staff", password="x", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__in=codenames))
    return User.objects.get(pk=user.pk)  # a fresh object: no cached permissions


def actions(model, user: User) -> set[str]:
    request = RequestFactory().get("/admin/")
    request.user = user
    return set(admin.site._registry[model].get_actions(request)) - {"delete_selected"}


def test_view_only_staff_are_offered_no_paper_or_comment_action():
    user = staff_with("view_paper", "view_comment")
    assert actions(Paper, user) == set()
    assert actions(Comment, user) == set()


def test_staff_who_can_change_papers_and_comments_get_their_actions():
    user = staff_with("view_paper", "change_paper", "view_comment", "change_comment")
    assert {"mark_reviewed", "flag_for_curation", "forget_curator_edits"} <= actions(Paper, user)
    assert {"remove_comments", "restore_comments"} <= actions(Comment, user)


def test_merging_authors_needs_both_change_and_delete():
    assert "merge_authors" not in actions(Author, staff_with("view_author", "change_author"))
    User.objects.all().delete()
    both = staff_with("view_author", "change_author", "delete_author")
    assert "merge_authors" in actions(Author, both)


# --- Messages: singular for one, plural for several -------------------------------------------


@pytest.mark.parametrize(
    "action, papers, expected",
    [
        ("mark_reviewed", 1, "Marked 1 paper reviewed."),
        ("mark_reviewed", 2, "Marked 2 papers reviewed."),
        ("flag_for_curation", 1, "Flagged 1 paper for curation."),
        ("flag_for_curation", 3, "Flagged 3 papers for curation."),
        ("forget_curator_edits", 1, "Cleared curator edits on 1 paper."),
        ("forget_curator_edits", 2, "Cleared curator edits on 2 papers."),
    ],
)
def test_paper_action_messages_count_in_words(admin_client, action, papers, expected):
    selected = [make_paper(needs_curation=True) for _ in range(papers)]
    response = admin_client.post(
        reverse("admin:papers_paper_changelist"),
        {"action": action, "_selected_action": [paper.pk for paper in selected]},
    )
    assert [str(m) for m in get_messages(response.wsgi_request)] == [expected]
