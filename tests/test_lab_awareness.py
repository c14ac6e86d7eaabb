"""Lab awareness (issue 13, part 3): who in the lab reads a paper (shared lists only, with the
item's status) and the lab page's most saved, most discussed and recently added papers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils import timezone

from annotations.models import Comment, ReadingListItem, ReadingStatus, Visibility
from tests.factories import make_comment, make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db

SHARED = {"visibility": Visibility.SHARED}


def render_readers(paper, user) -> str:
    template = Template("{% load lab_tags %}{% lab_readers paper %}")
    return template.render(Context({"paper": paper, "user": user})).strip()


def test_lab_readers_shows_shared_lists_with_status_and_never_private_ones(
    user, django_assert_num_queries
):
    ana, ben, cy = make_user("Ana"), make_user("Ben"), make_user("Cy")
    paper = make_paper("Diffusion")
    make_reading_list(ana, "Reading group", papers=[paper], **SHARED)
    make_reading_list(ben, "Done pile", papers=[paper], **SHARED)
    make_reading_list(cy, "Cy's secret list", papers=[paper], visibility=Visibility.PRIVATE)
    ReadingListItem.objects.filter(reading_list__owner=ana).update(status=ReadingStatus.READING)
    ReadingListItem.objects.filter(reading_list__owner=ben).update(status=ReadingStatus.READ)

    # The viewer's role (outside a request; in one, the session holds it), the shared items
    # with their lists and owners.
    with django_assert_num_queries(2):
        html = render_readers(paper, user)
    assert "In the lab: Ana (Reading group, reading), Ben (Done pile, read)" in html
    assert "Cy" not in html and "secret" not in html


def test_lab_readers_shows_nothing_to_visitors_or_for_unread_papers(user):
    from django.contrib.auth.models import AnonymousUser

    paper = make_paper("Diffusion")
    make_reading_list(make_user("Ana"), "Reading group", papers=[paper], **SHARED)
    assert render_readers(paper, AnonymousUser()) == ""
    assert render_readers(make_paper("Unread"), user) == ""


def lab(client, period: str | None = None) -> str:
    response = client.get(reverse("alerts:lab"), {"period": period} if period else {})
    assert response.status_code == 200
    return response.content.decode()


def section(html: str, heading: str) -> str:
    start = html.index(f"<h2>{heading}</h2>")
    return html[start : html.index("</section>", start)]


def test_the_lab_page_counts_shared_lists_and_comments_only(client, user):
    ana, ben, cy = make_user("Ana"), make_user("Ben"), make_user("Cy")
    popular, discussed, secret = (
        make_paper("Popular"),
        make_paper("Discussed"),
        make_paper("Secret"),
    )
    make_reading_list(ana, papers=[popular], **SHARED)
    make_reading_list(ben, papers=[popular, discussed], **SHARED)
    # Private lists are never counted, however many.
    for owner in (ana, ben, cy):
        make_reading_list(owner, papers=[secret, discussed], visibility=Visibility.PRIVATE)
    for author in (ana, ben, cy):
        make_comment(author, discussed)
    make_comment(ana, popular)
    removed = make_comment(cy, popular)
    Comment.objects.filter(pk=removed.pk).update(removed_at=timezone.now())

    client.force_login(user)
    html = lab(client)
    saved = section(html, "Most saved")
    assert saved.index("Popular") < saved.index("Discussed")
    assert "2 shared lists" in saved and "1 shared list<" in saved
    assert "Secret" not in html
    talked = section(html, "Most discussed")
    assert talked.index("Discussed") < talked.index("Popular")
    assert "3 comments" in talked and "1 comment<" in talked  # the removed one is not counted
    assert "Discussed" in section(html, "Recently added")


def test_the_period_switch_leaves_out_what_is_older(client, user):
    ana = make_user("Ana")
    old, new = make_paper("Old news"), make_paper("Fresh")
    make_reading_list(ana, papers=[old, new], **SHARED)
    ReadingListItem.objects.filter(paper=old).update(added_at=timezone.now() - timedelta(days=20))
    client.force_login(user)
    week, month = lab(client, "week"), lab(client, "month")
    assert "Old news" not in week and "Fresh" in week
    assert "Old news" in month and "Fresh" in month
    assert "This week" in lab(client, "<script>")  # an unknown period is the default one


def test_the_lab_page_needs_a_login(client, db):
    response = client.get(reverse("alerts:lab"))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_the_lab_page_has_a_fixed_number_of_queries(client, user, django_assert_num_queries):
    members = [make_user(f"m{n}") for n in range(4)]
    for n, member in enumerate(members):
        papers = [make_paper(f"Paper {n}-{k}") for k in range(3)]
        make_reading_list(member, papers=papers, **SHARED)
        for paper in papers:
            make_comment(member, paper)
    client.force_login(user)
    # session, user, most saved, recently added, most discussed, what the lab is reading
    # (statuses on items, members' statuses, suggestions), their papers, the header's unread
    # notifications
    with django_assert_num_queries(10):
        lab(client)
