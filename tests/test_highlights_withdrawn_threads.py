"""A lab highlight made private or deleted takes its text with it for good: its thread's
comment is deleted (nothing replies) or blanked (replies keep their thread), so a curator's
"Restore selected comments" never puts the private quote and note back on the paper page, in
recent activity, or in the Comment admin's list, search or change form (issue 43, finding 1).
The lab highlight still shared beside it is the positive control: its comment shows."""

from __future__ import annotations

import html

import pytest
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from annotations.models import Comment
from highlights.models import Highlight
from tests.factories import make_paper, make_user

pytestmark = pytest.mark.django_db

SECRET = "ann's withdrawn quote"
SECRET_NOTE = "ann's withdrawn note"
SHARED = "ann's shared quote"
SHARED_NOTE = "ann's shared note"


def post_lab_highlight(client: Client, paper, exact: str, note: str) -> Highlight:
    data = {"page": "2", "exact": exact, "start": "0", "end": str(len(exact)), "note": note}
    response = client.post(
        reverse("highlights:list", args=[paper.pk]), {**data, "visibility": "lab"}
    )
    assert response.status_code == 201, response.content
    return Highlight.objects.get(pk=response.json()["id"])


def page_text(client: Client, url: str, **params) -> str:
    response = client.get(url, params)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


@pytest.fixture
def curator() -> Client:
    """Staff who moderate comments, and nothing more."""
    user = make_user("curator", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(codename__in=["view_comment", "change_comment"])
    )
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("closed_by", ["made private", "deleted"])
@pytest.mark.parametrize("replied", [False, True], ids=["no reply", "a reply"])
def test_a_curators_restore_shows_nothing_of_a_withdrawn_highlight(curator, closed_by, replied):
    ann, bob = make_user("ann"), make_user("bob")
    paper = make_paper("Highlighted paper")
    member = Client()
    member.force_login(ann)
    shared = post_lab_highlight(member, paper, SHARED, SHARED_NOTE)
    withdrawn = post_lab_highlight(member, paper, SECRET, SECRET_NOTE)
    thread = withdrawn.comment
    if replied:
        Comment.objects.create(paper=paper, author=bob, body="bob's reply", parent=thread)
    if closed_by == "made private":
        member.post(reverse("highlights:edit", args=[withdrawn.pk]), {"visibility": "private"})
    else:
        member.post(reverse("highlights:delete", args=[withdrawn.pk]))

    # The curator selects every comment of the paper, the withdrawn thread's id included.
    selected = [shared.comment_id, thread.pk]
    changelist = reverse("admin:annotations_comment_changelist")
    curator.post(changelist, {"action": "restore_comments", "_selected_action": selected})

    member.force_login(bob)
    for url in (paper.get_absolute_url(), reverse("annotations:activity")):
        seen = page_text(member, url)
        assert SHARED in seen and SHARED_NOTE in seen  # positive control
        assert SECRET not in seen and SECRET_NOTE not in seen
    for params in ({}, {"q": "withdrawn"}, {"q": "ann's"}):
        listed = page_text(curator, changelist, **params)
        assert SECRET not in listed and SECRET_NOTE not in listed
    assert SHARED in page_text(curator, changelist, q="shared")
    assert Comment.objects.filter(pk=thread.pk).exists() == replied
    if replied:
        change = page_text(curator, reverse("admin:annotations_comment_change", args=[thread.pk]))
        assert SECRET not in change and SECRET_NOTE not in change
        assert "bob's reply" in page_text(member, paper.get_absolute_url())


def test_restoring_a_withdrawn_comment_is_refused_with_a_message(curator):
    ann, bob = make_user("ann"), make_user("bob")
    paper = make_paper()
    member = Client()
    member.force_login(ann)
    highlight = post_lab_highlight(member, paper, SECRET, SECRET_NOTE)
    Comment.objects.create(paper=paper, author=bob, body="bob's reply", parent=highlight.comment)
    member.post(reverse("highlights:edit", args=[highlight.pk]), {"visibility": "private"})
    thread = Comment.objects.get(parent=None)
    response = curator.post(
        reverse("admin:annotations_comment_changelist"),
        {"action": "restore_comments", "_selected_action": [thread.pk]},
        follow=True,
    )
    thread.refresh_from_db()
    assert thread.is_withdrawn
    assert (thread.body, thread.body_html, thread.quote) == ("", "", "")
    messages = [str(m) for m in get_messages(response.wsgi_request)]
    assert "Restored 0 comments." in messages
    assert "1 comment was withdrawn with its text and cannot be restored." in messages


def test_a_thread_removed_by_a_moderator_is_withdrawn_when_its_highlight_goes_private(
    curator,
):
    from annotations.services import remove_comment

    ann = make_user("ann")
    paper = make_paper()
    member = Client()
    member.force_login(ann)
    highlight = post_lab_highlight(member, paper, SECRET, SECRET_NOTE)
    remove_comment(comment=highlight.comment, by=make_user("moderator", is_staff=True))
    member.post(reverse("highlights:edit", args=[highlight.pk]), {"visibility": "private"})
    assert not Comment.objects.exists()


def test_the_migration_withdraws_threads_closed_before(user, other_user):
    """Rows as closing a thread left them before: removed, unlinked, the text kept."""
    from importlib import import_module

    from django.apps import apps
    from django.utils import timezone

    from annotations.services import remove_comment
    from highlights import threads
    from tests.highlight_helpers import make_highlight

    migration = import_module("highlights.migrations.0002_withdraw_closed_threads")
    paper = make_paper()
    made_private = make_highlight(user, paper, exact=SECRET, note=SECRET_NOTE)

    def closed_thread(highlight: Highlight) -> Comment:
        body = threads.comment_body(highlight)
        return Comment.objects.create(
            paper=paper, author=user, body=body, removed_at=timezone.now(), removed_by=user
        )

    alone, replied = closed_thread(made_private), closed_thread(made_private)
    reply = Comment.objects.create(paper=paper, author=other_user, body="a reply", parent=replied)
    lab = make_highlight(user, paper, exact=SHARED, visibility="lab")
    threads.open_thread(lab)
    remove_comment(comment=lab.comment, by=other_user)  # moderated, still the lab's thread
    removed_otherwise = Comment.objects.create(
        paper=paper, author=user, body="Highlighted on page 3, see there", removed_at=timezone.now()
    )
    live = Comment.objects.create(paper=paper, author=user, body=threads.comment_body(lab))
    still_linked = make_highlight(user, paper, exact="private, yet linked")
    linked = Comment.objects.create(paper=paper, author=user, body="private, yet linked")
    Highlight.objects.filter(pk=still_linked.pk).update(comment=linked)

    migration.withdraw_closed_threads(apps, None)

    assert not Comment.objects.filter(pk__in=[alone.pk, linked.pk]).exists()
    replied.refresh_from_db()
    assert replied.is_withdrawn and replied.body_html == ""
    assert Comment.objects.filter(pk=reply.pk, removed_at__isnull=True).exists()
    kept = Comment.objects.filter(pk__in=[lab.comment_id, removed_otherwise.pk, live.pk])
    assert all(comment.body for comment in kept) and kept.count() == 3
    assert SECRET not in " ".join(Comment.objects.values_list("body", flat=True))
