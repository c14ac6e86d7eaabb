"""The comment thread: posting, editing, soft deletion and moderation."""

from __future__ import annotations

from datetime import timedelta

from django.urls import reverse

from annotations.models import BODY_MAX_LENGTH, Comment
from tests.factories import make_comment, make_paper, make_user


def test_post_a_comment(client, user):
    paper = make_paper()
    client.force_login(user)
    response = client.post(
        reverse("annotations:comment-add", args=[paper.pk]), {"body": "Nice ablation"}, follow=True
    )
    comment = Comment.objects.get()
    assert (comment.author, comment.paper, comment.body) == (user, paper, "Nice ablation")
    assert "Comment posted." in response.content.decode()


def test_50000_character_comment_is_a_form_error_that_keeps_the_thread(client, user, other_user):
    paper = make_paper()
    make_comment(other_user, paper, "earlier comment")
    client.force_login(user)
    response = client.post(
        reverse("annotations:comment-add", args=[paper.pk]), {"body": "y" * 50_000}
    )
    assert response.status_code == 200
    assert f"at most {BODY_MAX_LENGTH:,}".replace(",", "") in response.content.decode().replace(
        ",", ""
    )
    assert list(Comment.objects.values_list("body", flat=True)) == ["earlier comment"]


def test_empty_comment_is_a_form_error(client, user):
    paper = make_paper()
    client.force_login(user)
    response = client.post(reverse("annotations:comment-add", args=[paper.pk]), {"body": ""})
    assert "This field is required." in response.content.decode()
    assert not Comment.objects.exists()


def test_comment_on_unknown_paper_is_404(client, user):
    client.force_login(user)
    assert (
        client.post(reverse("annotations:comment-add", args=[123456]), {"body": "x"}).status_code
        == 404
    )


def test_author_edits_own_comment_and_it_is_marked_edited(client, user):
    paper = make_paper()
    comment = make_comment(user, paper, "typo")
    client.force_login(user)
    client.post(reverse("annotations:comment-edit", args=[comment.pk]), {"body": "fixed"})
    comment.refresh_from_db()
    assert comment.body == "fixed" and comment.edited_at is not None
    assert "(edited)" in client.get(paper.get_absolute_url()).content.decode()


def test_author_soft_deletes_own_comment(client, user, other_user):
    paper = make_paper()
    comment = make_comment(user, paper, "regrettable")
    client.force_login(user)
    client.post(reverse("annotations:comment-delete", args=[comment.pk]))
    comment.refresh_from_db()
    assert comment.removed_at is not None and comment.removed_by == user
    client.force_login(other_user)
    content = client.get(paper.get_absolute_url()).content.decode()
    assert "comment removed" in content and "regrettable" not in content


def test_removed_comment_cannot_be_edited_or_removed_again(client, user):
    comment = make_comment(user, make_paper(), "gone")
    client.force_login(user)
    client.post(reverse("annotations:comment-delete", args=[comment.pk]))
    assert client.get(reverse("annotations:comment-edit", args=[comment.pk])).status_code == 404
    assert client.post(reverse("annotations:comment-delete", args=[comment.pk])).status_code == 404


def test_staff_moderates_a_comment(client, other_user):
    comment = make_comment(other_user, make_paper(), "spam")
    moderator = make_user("mod", is_staff=True)
    client.force_login(moderator)
    client.post(reverse("annotations:comment-delete", args=[comment.pk]))
    comment.refresh_from_db()
    assert comment.is_removed and comment.removed_by == moderator


def test_htmx_comment_returns_the_thread_fragment(client, user):
    paper = make_paper()
    client.force_login(user)
    response = client.post(
        reverse("annotations:comment-add", args=[paper.pk]),
        {"body": "swap me in"},
        HTTP_HX_REQUEST="true",
    )
    content = response.content.decode()
    assert 'id="paper-comments"' in content and "swap me in" in content and "<html" not in content


def test_comment_markdown_is_safe(client, user):
    paper = make_paper()
    make_comment(user, paper, "<script>alert(1)</script> [x](javascript:alert(1))")
    client.force_login(user)
    content = client.get(paper.get_absolute_url()).content.decode()
    assert "<script>alert(1)" not in content
    assert 'href="javascript:' not in content


def test_a_thread_of_hostile_comments_at_the_limit_is_not_rendered_again_per_view(
    client, user, monkeypatch
):
    # Markdown of "[" * 20,000 takes ~0.2 s to render: a thread of them must not cost that
    # again on every view of the paper (rendering happens once, when a comment is saved).
    paper = make_paper()
    for _ in range(3):
        make_comment(user, paper, "[" * BODY_MAX_LENGTH)
    make_comment(user, paper, "a **bold** claim")

    def render_again(text):
        raise AssertionError("Markdown rendered while showing a page")

    monkeypatch.setattr("annotations.models.render_markdown", render_again)
    client.force_login(user)
    response = client.get(paper.get_absolute_url())
    assert response.status_code == 200
    assert "a <strong>bold</strong> claim" in response.content.decode()


def test_an_edited_comment_shows_its_new_text(client, user):
    comment = make_comment(user, make_paper(), "first *draft*")
    client.force_login(user)
    client.post(reverse("annotations:comment-edit", args=[comment.pk]), {"body": "final _text_"})
    comment.refresh_from_db()
    assert comment.body_html.strip() == "<p>final <em>text</em></p>"


def test_thread_is_in_the_order_comments_were_posted(client, user, other_user):
    paper = make_paper()
    later = make_comment(user, paper, "posted second")
    earlier = make_comment(other_user, paper, "posted first")
    Comment.objects.filter(pk=earlier.pk).update(created_at=later.created_at - timedelta(hours=1))
    client.force_login(user)
    response = client.get(paper.get_absolute_url())
    assert response.status_code == 200
    content = response.content.decode()
    assert content.index("posted first") < content.index("posted second")
