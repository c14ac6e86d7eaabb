"""The comment thread: posting, editing, soft deletion and moderation."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
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
    client.post(reverse("annotations:comment-delete", args=[comment.pk]), {"confirmed": "yes"})
    comment.refresh_from_db()
    assert comment.removed_at is not None and comment.removed_by == user
    client.force_login(other_user)
    content = client.get(paper.get_absolute_url()).content.decode()
    assert "comment removed" in content and "regrettable" not in content


def test_removed_comment_cannot_be_edited_or_removed_again(client, user):
    comment = make_comment(user, make_paper(), "gone")
    client.force_login(user)
    client.post(reverse("annotations:comment-delete", args=[comment.pk]), {"confirmed": "yes"})
    assert client.get(reverse("annotations:comment-edit", args=[comment.pk])).status_code == 404
    assert (
        client.post(
            reverse("annotations:comment-delete", args=[comment.pk]), {"confirmed": "yes"}
        ).status_code
        == 404
    )


def test_staff_moderates_a_comment(client, other_user):
    comment = make_comment(other_user, make_paper(), "spam")
    moderator = make_user("mod", is_staff=True)
    client.force_login(moderator)
    client.post(reverse("annotations:comment-delete", args=[comment.pk]), {"confirmed": "yes"})
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


# Threads: replies one level deep.


def _reply(client, paper, parent, body, **headers):
    return client.post(
        reverse("annotations:comment-add", args=[paper.pk]),
        {"body": body, "parent": str(parent.pk)},
        **headers,
    )


def test_a_reply_is_shown_indented_under_its_comment_in_time_order(client, user, other_user):
    paper = make_paper()
    first = make_comment(user, paper, "top-level one")
    second = make_comment(user, paper, "top-level two")
    client.force_login(other_user)
    _reply(client, paper, first, "reply A")
    _reply(client, paper, first, "reply B")
    reply_a, reply_b = Comment.objects.filter(parent=first).order_by("pk")
    assert (reply_a.body, reply_b.body) == ("reply A", "reply B")
    content = client.get(paper.get_absolute_url()).content.decode()
    replies = content[content.index('class="replies"') : content.index(f'id="comment-{second.pk}"')]
    assert replies.index("reply A") < replies.index("reply B")
    assert "top-level two" not in replies


def test_a_reply_to_a_reply_joins_the_top_level_thread(client, user, other_user):
    paper = make_paper()
    top = make_comment(user, paper, "top")
    reply = make_comment(other_user, paper, "first reply", parent=top)
    client.force_login(user)
    response = _reply(client, paper, reply, "answer to the reply")
    assert response.status_code == 302
    answer = Comment.objects.get(body="answer to the reply")
    assert answer.parent == top
    assert response["Location"].endswith(f"#comment-{answer.pk}")


def test_reply_to_a_comment_on_another_paper_is_a_clear_error_that_keeps_the_text(
    client, user, other_user
):
    paper, elsewhere = make_paper(), make_paper()
    foreign = make_comment(other_user, elsewhere, "elsewhere")
    client.force_login(user)
    response = _reply(client, paper, foreign, "my careful reply")
    content = response.content.decode()
    assert response.status_code == 200
    assert "not on this paper" in content and "my careful reply" in content
    assert not Comment.objects.filter(body="my careful reply").exists()


@pytest.mark.parametrize("parent", ["1 OR 1", "²", "1²"])  # "²" is a digit to isdigit()
def test_reply_with_a_nonsense_parent_is_refused(client, user, parent):
    paper = make_paper()
    client.force_login(user)
    response = client.post(
        reverse("annotations:comment-add", args=[paper.pk]), {"body": "x", "parent": parent}
    )
    assert "not on this paper" in response.content.decode()
    assert not Comment.objects.exists()


def test_a_removed_comment_keeps_its_replies_but_takes_no_new_ones(client, user, other_user):
    paper = make_paper()
    top = make_comment(user, paper, "soon removed")
    make_comment(other_user, paper, "a reply that stays", parent=top)
    client.force_login(user)
    client.post(reverse("annotations:comment-delete", args=[top.pk]), {"confirmed": "yes"})
    content = client.get(paper.get_absolute_url()).content.decode()
    assert "comment removed" in content and "a reply that stays" in content
    assert "soon removed" not in content
    response = _reply(client, paper, top, "too late", HTTP_HX_REQUEST="true")
    assert "was removed" in response.content.decode()
    assert not Comment.objects.filter(body="too late").exists()


def test_a_failed_htmx_reply_comes_back_open_under_its_comment(client, user, other_user):
    paper = make_paper()
    top = make_comment(other_user, paper, "question")
    client.force_login(user)
    response = _reply(client, paper, top, "", HTTP_HX_REQUEST="true")
    content = response.content.decode()
    assert '<details class="reply-box" open>' in content
    assert f'id="reply{top.pk}_body"' in content and "This field is required." in content
    # Labelled as the reply box it is, like the reply boxes that did not fail.
    assert f'<label for="reply{top.pk}_body">Reply:</label>' in content


def test_reply_forms_work_without_javascript(client, user, other_user):
    # A <details> disclosure with a plain form: no script needed to open or post it.
    paper = make_paper()
    top = make_comment(other_user, paper, "question")
    client.force_login(user)
    content = client.get(paper.get_absolute_url()).content.decode()
    assert "<summary>Reply</summary>" in content
    assert f'<input type="hidden" name="parent" value="{top.pk}">' in content
    assert f'action="{reverse("annotations:comment-add", args=[paper.pk])}"' in content


def test_the_thread_costs_one_query_however_many_comments_and_replies(
    rf, user, other_user, django_assert_num_queries
):
    from django.template.loader import render_to_string

    from annotations.views.common import paper_section

    paper = make_paper()
    for n in range(5):
        top = make_comment(user, paper, f"top {n}")
        for m in range(3):
            make_comment(other_user, paper, f"reply {n}.{m}", parent=top)
    request = rf.get(paper.get_absolute_url())
    request.user = user
    # comments with their authors (replies included, threaded in Python)
    with django_assert_num_queries(1):
        template, context = paper_section(request, paper, "comments")
        content = render_to_string(template, context, request=request)
    assert content.count('class="comment reply"') == 15 and "reply 4.2" in content


def test_the_paper_page_costs_the_same_with_a_long_discussion(client, user, other_user):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    paper = make_paper()
    make_comment(user, paper, "alone")
    client.force_login(user)
    client.get(paper.get_absolute_url())  # the search index catches up once
    with CaptureQueriesContext(connection) as short:
        client.get(paper.get_absolute_url())
    for n in range(10):
        top = make_comment(other_user, paper, f"top {n}")
        make_comment(user, paper, f"reply {n}", parent=top)
    with CaptureQueriesContext(connection) as long:
        response = client.get(paper.get_absolute_url())
    assert "reply 9" in response.content.decode()
    assert len(long.captured_queries) == len(short.captured_queries)


# Editing in place (htmx) and on a page of its own (no JavaScript).


def test_htmx_edit_swaps_the_comment_for_its_form_and_back(client, user, other_user):
    paper = make_paper()
    comment = make_comment(user, paper, "first version")
    make_comment(other_user, paper, "a reply", parent=comment)
    client.force_login(user)
    url = reverse("annotations:comment-edit", args=[comment.pk])
    form = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert f'<article class="comment editing" id="comment-{comment.pk}">' in form
    assert "first version</textarea>" in form and "<html" not in form
    assert re.search(r"<textarea[^>]*autofocus", form)  # the keyboard lands in the text
    saved = client.post(url, {"body": "second version"}, HTTP_HX_REQUEST="true")
    content = saved.content.decode()
    assert f'id="comment-{comment.pk}"' in content and "second version" in content
    assert "Comment updated." in content and "data-flash" in content and "<html" not in content
    assert "a reply" not in content  # only the comment itself is swapped: its replies stay
    comment.refresh_from_db()
    assert comment.body == "second version" and comment.edited_at is not None


def test_htmx_cancel_puts_the_comment_back_unchanged(client, user):
    comment = make_comment(user, make_paper(), "unchanged")
    client.force_login(user)
    url = reverse("annotations:comment-edit", args=[comment.pk]) + "?cancel=1"
    content = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "unchanged" in content and "<textarea" not in content
    # The keyboard goes back to the Edit link it left from.
    assert re.search(r"<a [^>]*autofocus[^>]*>Edit</a>", content)


def test_htmx_edit_with_an_empty_body_keeps_the_form_and_the_comment(client, user):
    comment = make_comment(user, make_paper(), "keep me")
    client.force_login(user)
    url = reverse("annotations:comment-edit", args=[comment.pk])
    content = client.post(url, {"body": ""}, HTTP_HX_REQUEST="true").content.decode()
    assert "This field is required." in content and "<textarea" in content
    comment.refresh_from_db()
    assert comment.body == "keep me" and comment.edited_at is None


def test_edit_without_javascript_is_a_page_and_a_redirect(client, user):
    comment = make_comment(user, make_paper(), "old")
    client.force_login(user)
    url = reverse("annotations:comment-edit", args=[comment.pk])
    page = client.get(url).content.decode()
    assert "<html" in page and "Edit comment" in page
    response = client.post(url, {"body": "new"})
    assert response.status_code == 302 and response["Location"] == comment.get_absolute_url()


def test_only_the_author_edits_even_staff_only_removes(client, user, other_user):
    comment = make_comment(user, make_paper(), "mine")
    moderator = make_user("moderator", is_staff=True)
    url = reverse("annotations:comment-edit", args=[comment.pk])
    for someone in (other_user, moderator):
        client.force_login(someone)
        assert client.get(url, HTTP_HX_REQUEST="true").status_code == 404
        assert client.post(url, {"body": "hijacked"}).status_code == 404
    content = client.get(comment.paper.get_absolute_url()).content.decode()
    assert "Remove (moderator)" in content and url not in content
    comment.refresh_from_db()
    assert comment.body == "mine"


def test_flashes_are_marked_to_go_once_read(client, user):
    paper = make_paper()
    client.force_login(user)
    response = client.post(
        reverse("annotations:comment-add", args=[paper.pk]), {"body": "hi"}, HTTP_HX_REQUEST="true"
    )
    assert '<p class="flash flash-success" role="status" data-flash>' in response.content.decode()
    page = client.post(
        reverse("annotations:comment-add", args=[paper.pk]), {"body": "again"}, follow=True
    )
    assert '<ul class="messages" role="status" data-flash>' in page.content.decode()
    # Django's messages are used up by the page that shows them: the next page has none.
    assert "Comment posted." not in client.get(paper.get_absolute_url()).content.decode()
