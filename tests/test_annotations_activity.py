"""Recent activity: the lab's public actions, newest first, never anything private."""

from __future__ import annotations

import datetime
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from annotations.models import Comment, ReadingListItem, Visibility
from annotations.views.activity import ACTIVITY_LIMIT
from papers.models import PaperTag, TagKind
from tests.factories import (
    make_comment,
    make_lab_tag,
    make_note,
    make_paper,
    make_reading_list,
)


def test_activity_shows_comments_shared_additions_and_lab_tags(client, user, other_user):
    make_comment(other_user, make_paper("Commented paper"), "public remark")
    make_reading_list(
        other_user, "Lab queue", papers=[make_paper("Listed paper")], visibility=Visibility.SHARED
    )
    make_lab_tag(make_paper("Tagged paper"), "optimisation", added_by=other_user)
    # A catalogue tag is not lab activity, even one a curator set by hand.
    make_paper("Catalogued paper", tags=[("ICLR 2024", TagKind.VENUE)])
    PaperTag.objects.filter(tag__kind=TagKind.VENUE).update(added_by=other_user)
    client.force_login(user)
    response = client.get(reverse("annotations:activity"))
    assert response.status_code == 200
    content = response.content.decode()
    for text in ["public remark", "Lab queue", "Listed paper", "optimisation", "Tagged paper"]:
        assert text in content
    # Each entry says who did it and on which paper.
    assert content.count(f"<strong>{other_user.username}</strong>") == 3
    assert ">Commented paper</a>" in content
    assert "Catalogued paper" not in content and "ICLR 2024" not in content


def test_activity_never_shows_private_things(client, user, other_user):
    paper = make_paper("Some paper")
    make_note(other_user, paper, "private musing")
    make_reading_list(other_user, "Secret list", papers=[make_paper("Secret pick")])
    make_comment(other_user, paper, "withdrawn remark", removed_at=paper.created_at)
    make_lab_tag(paper, "imported", added_by=None)
    client.force_login(user)
    content = client.get(reverse("annotations:activity")).content.decode()
    for text in ["private musing", "Secret list", "Secret pick", "withdrawn remark", "imported"]:
        assert text not in content


def test_activity_is_newest_first(client, user, other_user):
    make_comment(other_user, make_paper(), "the older remark")
    make_comment(other_user, make_paper(), "the newer remark")
    client.force_login(user)
    content = client.get(reverse("annotations:activity")).content.decode()
    assert content.index("the newer remark") < content.index("the older remark")


def test_activity_has_bounded_queries(client, user, other_user, django_assert_max_num_queries):
    shared = make_reading_list(other_user, "Shared", visibility=Visibility.SHARED)
    for n in range(20):
        paper = make_paper(f"Paper {n}")
        make_comment(other_user, paper, f"remark {n}")
        make_lab_tag(paper, f"tag {n}", added_by=other_user)
        shared.items.create(paper=paper, position=n)
    client.force_login(user)
    # session, user, comments, shared-list additions, the shared lists' other changes, lab
    # tags, the header's unread notifications
    with django_assert_max_num_queries(7):
        response = client.get(reverse("annotations:activity"))
    assert response.status_code == 200
    content = response.content.decode()
    assert "remark 19" in content and "tag 19" in content and "Shared" in content


def test_activity_escapes_user_text(client, user, other_user):
    make_comment(other_user, make_paper(), "<img src=x onerror=alert(1)>")
    client.force_login(user)
    content = client.get(reverse("annotations:activity")).content.decode()
    assert "<img src=x" not in content


# How each kind of entry is made, and the model and field that date it.
ACTIVITY_KINDS = {
    "comment": (Comment, "created_at"),
    "list": (ReadingListItem, "added_at"),
    "tag": (PaperTag, "created_at"),
}


@pytest.mark.parametrize("kind", ACTIVITY_KINDS)
def test_activity_lists_the_newest_entries_by_their_time_not_their_id(
    client, user, other_user, kind
):
    limit = ACTIVITY_LIMIT
    shared = make_reading_list(other_user, "Shared", visibility=Visibility.SHARED)
    for n in range(limit + 1):
        paper = make_paper(f"Paper {n}")
        if kind == "comment":
            make_comment(other_user, paper, f"remark {n}")
        elif kind == "list":
            shared.items.create(paper=paper, position=n)
        else:
            make_lab_tag(paper, f"tag {n}", added_by=other_user)
    # Made in order, dated in reverse: the first one made is the newest.
    model, field = ACTIVITY_KINDS[kind]
    now = timezone.now()
    for n, pk in enumerate(model.objects.order_by("pk").values_list("pk", flat=True)):
        model.objects.filter(pk=pk).update(**{field: now - datetime.timedelta(minutes=n)})
    client.force_login(user)
    response = client.get(reverse("annotations:activity"))
    assert response.status_code == 200
    shown = re.findall(r">Paper (\d+)</a>", response.content.decode())
    assert shown == [str(n) for n in range(limit)]
