"""Suggest a paper to a colleague (issue 41, point 3): the suggestion, its notification, the
"suggested to me" page, accepting into a list, dismissing, and who may see what."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.models import (
    ListEditor,
    Notification,
    NotificationKind,
    Suggestion,
    SuggestionState,
    Visibility,
)
from tests.factories import make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def ann():
    return make_user("ann")


@pytest.fixture
def bob():
    return make_user("bob")


def _suggest(client, paper, to: str, why: str = "Relevant to your thesis"):
    return client.post(
        reverse("annotations:paper-suggest", args=[paper.pk]), {"recipient": to, "reason": why}
    )


def test_a_suggestion_reaches_the_colleague_with_who_why_and_a_notification(client, ann, bob):
    paper = make_paper("Worth reading")
    client.force_login(ann)
    assert _suggest(client, paper, "bob").status_code == 302
    suggestion = Suggestion.objects.get()
    assert (suggestion.sender, suggestion.recipient) == (ann, bob)
    notice = Notification.objects.get(recipient=bob)
    assert notice.kind == NotificationKind.SUGGESTION
    client.force_login(bob)
    page = client.get(reverse("annotations:suggestions")).content.decode()
    assert "Worth reading" in page and "ann" in page and "Relevant to your thesis" in page
    assert "Worth reading" in client.get(reverse("annotations:notifications")).content.decode()


def test_accepting_puts_the_paper_in_the_chosen_list(client, ann, bob):
    paper = make_paper("Accepted paper")
    own = make_reading_list(bob, "Mine")
    Suggestion.objects.create(sender=ann, recipient=bob, paper=paper)
    client.force_login(bob)
    suggestion = Suggestion.objects.get()
    url = reverse("annotations:suggestion-accept", args=[suggestion.pk])
    assert client.post(url, {"reading_list": own.pk}).status_code == 302
    suggestion.refresh_from_db()
    assert suggestion.state == SuggestionState.ACCEPTED and suggestion.accepted_into == own
    assert own.items.get().added_by == bob
    page = client.get(reverse("annotations:suggestions")).content.decode()
    assert 'class="suggestion"' not in page  # no longer waiting


def test_accepting_into_a_lab_editable_list_works_but_not_into_a_read_only_one(client, ann, bob):
    lab = make_reading_list(ann, "Lab edits", visibility=Visibility.LAB_EDIT)
    read_only = make_reading_list(ann, "Lab reads", visibility=Visibility.SHARED)
    client.force_login(bob)
    first = Suggestion.objects.create(sender=ann, recipient=bob, paper=make_paper("One"))
    url = reverse("annotations:suggestion-accept", args=[first.pk])
    client.post(url, {"reading_list": read_only.pk})
    assert not read_only.items.exists()
    first.refresh_from_db()
    assert first.state == SuggestionState.OPEN
    client.post(url, {"reading_list": lab.pk})
    assert lab.items.get().paper.title == "One"


def test_dismissing_closes_it(client, ann, bob):
    suggestion = Suggestion.objects.create(sender=ann, recipient=bob, paper=make_paper("Meh"))
    client.force_login(bob)
    client.post(reverse("annotations:suggestion-dismiss", args=[suggestion.pk]))
    suggestion.refresh_from_db()
    assert suggestion.state == SuggestionState.DISMISSED


def test_nobody_else_sees_answers_or_is_told_of_a_suggestion(client, ann, bob):
    carol = make_user("carol")
    suggestion = Suggestion.objects.create(sender=ann, recipient=bob, paper=make_paper("Secret"))
    client.force_login(carol)
    assert "Secret" not in client.get(reverse("annotations:suggestions")).content.decode()
    for action in ("accept", "dismiss"):
        url = reverse(f"annotations:suggestion-{action}", args=[suggestion.pk])
        assert client.post(url, {"reading_list": "1"}).status_code == 404
    suggestion.refresh_from_db()
    assert suggestion.state == SuggestionState.OPEN
    # Positive control: the recipient sees it.
    client.force_login(bob)
    assert "Secret" in client.get(reverse("annotations:suggestions")).content.decode()


def test_a_member_cannot_suggest_to_a_non_member_or_to_themselves(client, ann, bob):
    gone = make_user("gone", is_active=False)
    paper = make_paper("Paper")
    client.force_login(ann)
    for name in ("nobody", gone.username, "ann"):
        _suggest(client, paper, name)
    assert not Suggestion.objects.exists()
    _suggest(client, paper, "bob")  # positive control
    assert Suggestion.objects.count() == 1


def test_the_same_suggestion_twice_while_it_waits_is_refused(client, ann, bob):
    paper = make_paper("Twice")
    client.force_login(ann)
    _suggest(client, paper, "bob")
    _suggest(client, paper, "bob")
    assert Suggestion.objects.count() == 1


def test_the_lab_page_shows_what_the_lab_is_reading_this_week(client, ann, bob):
    paper = make_paper("Read by the lab")
    hidden = make_paper("Read in a named-editors list")
    lab = make_reading_list(ann, "Lab", papers=[paper], visibility=Visibility.LAB_EDIT)
    named = make_reading_list(ann, "Named", papers=[hidden], visibility=Visibility.EDITORS)
    ListEditor.objects.create(reading_list=named, user=bob)
    client.force_login(bob)
    for reading_list, item_paper in ((lab, paper), (named, hidden)):
        item = reading_list.items.get(paper=item_paper)
        client.post(
            reverse("annotations:list-item-status", args=[reading_list.pk, item.pk]),
            {"status": "reading"},
        )
    Suggestion.objects.create(sender=bob, recipient=make_user("carol"), paper=paper)
    page = client.get(reverse("alerts:lab")).content.decode()
    section = page[page.index("What the lab is reading") :]
    assert "Read by the lab" in section and "2 members" in section
    assert "Read in a named-editors list" not in section
