"""Reading groups: the presenter queue, RSVPs, notes in the papers' discussion, what a session
page gathers, and who may change what."""

from __future__ import annotations

import pytest
from django.urls import reverse

from annotations.models import Comment
from groups.models import Membership, Rsvp, Session
from highlights.models import HighlightVisibility
from tests.factories import make_comment, make_paper, make_user
from tests.group_helpers import make_group, make_session
from tests.highlight_helpers import make_highlight

pytestmark = pytest.mark.django_db


def queue_names(group) -> list[str]:
    return [
        m.member.username
        for m in Membership.objects.filter(group=group).order_by("queue_position", "pk")
    ]


def test_each_new_session_is_presented_by_the_next_member_in_the_queue():
    ann, bea, cal = make_user("ann"), make_user("bea"), make_user("cal")
    group = make_group([ann, bea, cal])
    presenters = [make_session(group, days=7 * week).presenter for week in (1, 2, 3, 4)]
    assert [p.username for p in presenters] == ["ann", "bea", "cal", "ann"]
    assert queue_names(group) == ["bea", "cal", "ann"]


def test_a_member_who_joins_goes_to_the_end_of_the_queue(client):
    ann, bea = make_user("ann"), make_user("bea")
    group = make_group([ann])
    client.force_login(bea)
    response = client.post(reverse("groups:join", args=[group.pk]))
    assert response.status_code == 302
    assert queue_names(group) == ["ann", "bea"]
    client.post(reverse("groups:join", args=[group.pk]))  # twice: still once
    assert queue_names(group) == ["ann", "bea"]


def test_two_sessions_swap_presenters(client):
    ann, bea = make_user("ann"), make_user("bea")
    group = make_group([ann, bea])
    first, second = make_session(group, days=7), make_session(group, days=14)
    client.force_login(bea)
    client.post(reverse("groups:swap", args=[first.pk]), {"other": second.pk})
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.presenter, second.presenter) == (bea, ann)


def test_a_swap_with_another_groups_session_is_refused(client):
    ann = make_user("ann")
    mine, other = make_group([ann]), make_group([ann], name="Other club")
    session, foreign = make_session(mine), make_session(other)
    client.force_login(ann)
    client.post(reverse("groups:swap", args=[session.pk]), {"other": foreign.pk})
    foreign.refresh_from_db()
    assert foreign.presenter == ann and Session.objects.get(pk=session.pk).presenter == ann


def test_members_answer_yes_no_or_maybe_and_can_change_their_mind(client):
    ann, bea = make_user("ann"), make_user("bea")
    session = make_session(make_group([ann, bea]))
    client.force_login(bea)
    client.post(reverse("groups:rsvp", args=[session.pk]), {"answer": "maybe"})
    client.post(reverse("groups:rsvp", args=[session.pk]), {"answer": "yes"})
    assert list(Rsvp.objects.values_list("member__username", "answer")) == [("bea", "yes")]
    page = client.get(session.get_absolute_url()).content.decode()
    assert "Yes: bea" in page


def test_notes_render_markdown_and_math_and_reach_each_papers_discussion(client):
    ann = make_user("ann")
    first, second = make_paper("Attention paper"), make_paper("Diffusion paper")
    session = make_session(make_group([ann]), papers=[first, second])
    client.force_login(ann)
    notes = "We **agreed** that $x^2$ bounds it."
    client.post(reverse("groups:session-notes", args=[session.pk]), {"notes": notes})
    page = client.get(session.get_absolute_url()).content.decode()
    assert "<strong>agreed</strong>" in page and "x^2" in page
    comments = Comment.objects.filter(paper__in=[first, second])
    assert comments.count() == 2
    for paper in (first, second):
        discussion = client.get(paper.get_absolute_url()).content.decode()
        assert "Meeting notes" in discussion and "<strong>agreed</strong>" in discussion
        assert session.get_absolute_url() in discussion


def test_edited_notes_edit_the_comment_instead_of_posting_another(client):
    ann = make_user("ann")
    paper = make_paper("Attention paper")
    session = make_session(make_group([ann]), papers=[paper])
    client.force_login(ann)
    url = reverse("groups:session-notes", args=[session.pk])
    client.post(url, {"notes": "First draft"})
    client.post(url, {"notes": "Second draft"})
    comment = Comment.objects.get(paper=paper)
    assert "Second draft" in comment.body and comment.edited_at is not None


def test_the_session_page_gathers_lab_highlights_and_comments_but_no_private_highlight(client):
    ann, bea = make_user("ann"), make_user("bea")
    paper = make_paper("Attention paper")
    session = make_session(make_group([ann, bea]), papers=[paper])
    make_highlight(ann, paper, exact="A lab quote", visibility=HighlightVisibility.LAB)
    make_highlight(ann, paper, exact="Ann's private quote", start=100)
    make_highlight(bea, paper, exact="Bea's own quote", start=200)
    make_comment(ann, paper, "A word on the proof")
    client.force_login(bea)
    page = client.get(session.get_absolute_url()).content.decode()
    assert "A lab quote" in page and "A word on the proof" in page
    assert "Bea&#x27;s own quote" in page  # her own, private: she sees it
    assert "private quote" not in page


def test_only_members_change_a_group_or_its_sessions_but_the_lab_sees_them(client):
    ann, stranger = make_user("ann"), make_user("stranger")
    group = make_group([ann])
    session = make_session(group)
    client.force_login(stranger)
    assert client.get(group.get_absolute_url()).status_code == 200
    assert client.get(session.get_absolute_url()).status_code == 200
    for name in ("groups:session-notes", "groups:rsvp", "groups:swap", "groups:session-edit"):
        assert client.post(reverse(name, args=[session.pk]), {"answer": "yes"}).status_code == 404
    assert client.post(reverse("groups:edit", args=[group.pk])).status_code == 404
    assert not Rsvp.objects.exists()


def test_a_visitor_is_sent_to_log_in(client):
    group = make_group([make_user("ann")])
    response = client.get(group.get_absolute_url())
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_session_is_entered_and_shown_in_the_groups_time_zone(client):
    ann = make_user("ann")
    group = make_group([ann], time_zone="America/New_York")
    client.force_login(ann)
    paper = make_paper("Attention paper")
    response = client.post(
        reverse("groups:session-create", args=[group.pk]),
        {"starts_at": "2031-03-06T16:00", "papers": f"/papers/{paper.pk}/", "agenda": ""},
    )
    assert response.status_code == 302
    session = Session.objects.get()
    assert session.starts_at.isoformat() == "2031-03-06T21:00:00+00:00"  # EST, UTC-5
    assert list(session.papers.all()) == [paper]
    page = client.get(session.get_absolute_url()).content.decode()
    assert "16:00" in page and "America/New_York" in page


def test_a_paper_number_not_in_the_catalogue_is_refused_with_a_message(client):
    ann = make_user("ann")
    group = make_group([ann])
    client.force_login(ann)
    response = client.post(
        reverse("groups:session-create", args=[group.pk]),
        {"starts_at": "2031-03-06T16:00", "papers": "999999"},
    )
    assert response.status_code == 400
    assert "No paper number 999999" in response.content.decode()
    assert not Session.objects.exists()
