"""Recent activity: the lab's public actions, newest first, never anything private."""

from __future__ import annotations

from django.urls import reverse

from annotations.models import Visibility
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
    client.force_login(user)
    content = client.get(reverse("annotations:activity")).content.decode()
    for text in ["public remark", "Lab queue", "Listed paper", "optimisation", "Tagged paper"]:
        assert text in content


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
    make_comment(other_user, make_paper(), "older")
    make_comment(other_user, make_paper(), "newer")
    client.force_login(user)
    content = client.get(reverse("annotations:activity")).content.decode()
    assert content.index("newer") < content.index("older")


def test_activity_has_bounded_queries(client, user, other_user, django_assert_max_num_queries):
    shared = make_reading_list(other_user, "Shared", visibility=Visibility.SHARED)
    for n in range(20):
        paper = make_paper(f"Paper {n}")
        make_comment(other_user, paper, f"remark {n}")
        make_lab_tag(paper, f"tag {n}", added_by=other_user)
        shared.items.create(paper=paper, position=n)
    client.force_login(user)
    # session, user, comments, shared-list additions, lab tags
    with django_assert_max_num_queries(5):
        response = client.get(reverse("annotations:activity"))
    assert response.status_code == 200
    content = response.content.decode()
    assert "remark 19" in content and "tag 19" in content and "Shared" in content


def test_activity_escapes_user_text(client, user, other_user):
    make_comment(other_user, make_paper(), "<img src=x onerror=alert(1)>")
    client.force_login(user)
    content = client.get(reverse("annotations:activity")).content.decode()
    assert "<img src=x" not in content
