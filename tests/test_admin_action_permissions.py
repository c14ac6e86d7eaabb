"""Admin actions are offered only to staff whose permissions cover what the action does."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission, User
from django.test import RequestFactory

from annotations.models import Comment
from papers.models import Author, Paper

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
