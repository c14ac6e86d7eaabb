"""Lab highlights are discussed through the paper's comments: replies, mentions and
notifications as for comments; private highlights reach nobody."""

from __future__ import annotations

from django.urls import reverse

from annotations.models import Comment, Notification, NotificationKind
from highlights.models import Highlight
from tests.factories import make_paper, make_reading_list, make_user
from tests.highlight_helpers import SENTENCE, highlight_post


def create(client, paper, **overrides) -> dict:
    response = client.post(reverse("highlights:list", args=[paper.pk]), highlight_post(**overrides))
    assert response.status_code == 201, response.content
    return response.json()


def test_lab_highlight_opens_a_thread_its_url_points_at(client, user):
    paper = make_paper()
    client.force_login(user)
    item = create(client, paper, visibility="lab", note="Compare with section 2.")
    comment = Comment.objects.get()
    assert Highlight.objects.get().comment == comment
    assert item["thread_url"] == f"{paper.get_absolute_url()}#comment-{comment.pk}"
    assert (comment.author, comment.paper) == (user, paper)
    assert SENTENCE in comment.body_html and "page 3" in comment.body
    assert "Compare with section 2." in comment.body
    page = client.get(paper.get_absolute_url()).content.decode()
    assert f'id="comment-{comment.pk}"' in page


def test_reply_to_a_lab_highlight_notifies_its_author_and_is_counted(client, user, other_user):
    paper = make_paper()
    client.force_login(user)
    item = create(client, paper, visibility="lab")
    client.force_login(other_user)
    client.post(
        reverse("annotations:comment-add", args=[paper.pk]),
        {"body": "Agreed", "parent": str(Highlight.objects.get().comment_id)},
    )
    notification = Notification.objects.get(recipient=user)
    assert notification.kind == NotificationKind.REPLY
    (listed,) = client.get(reverse("highlights:list", args=[paper.pk])).json()["highlights"]
    assert (listed["id"], listed["replies"]) == (item["id"], 1)


def test_mention_in_a_lab_highlights_note_notifies(client, user, other_user):
    paper = make_paper()
    client.force_login(user)
    create(client, paper, visibility="lab", note="@bob look at this")
    notification = Notification.objects.get(recipient=other_user)
    assert notification.kind == NotificationKind.MENTION


def test_private_highlight_tells_nobody(client, user, other_user):
    paper = make_paper()
    make_reading_list(other_user, papers=[paper])  # bob would hear of comments on it
    client.force_login(user)
    item = create(client, paper, visibility="private", note="@bob secret plan")
    assert item["thread_url"] is None
    assert not Comment.objects.exists()
    assert not Notification.objects.exists()
    client.force_login(other_user)
    assert "secret plan" not in client.get(reverse("annotations:notifications")).content.decode()
    assert "secret plan" not in client.get(paper.get_absolute_url()).content.decode()


def test_editing_a_lab_highlights_note_edits_its_comment_and_tells_new_mentions(client, user):
    paper = make_paper()
    carol = make_user("carol")
    client.force_login(user)
    item = create(client, paper, visibility="lab", note="first")
    client.post(reverse("highlights:edit", args=[item["id"]]), {"note": "now @carol too"})
    comment = Comment.objects.get()
    assert "now @carol too" in comment.body and comment.edited_at is not None
    assert Notification.objects.get(recipient=carol).kind == NotificationKind.MENTION


def test_making_a_lab_highlight_private_removes_its_comment_keeping_replies(
    client, user, other_user
):
    paper = make_paper()
    client.force_login(user)
    item = create(client, paper, visibility="lab", note="shared words")
    comment = Comment.objects.get()
    reply = Comment.objects.create(paper=paper, author=other_user, body="a reply", parent=comment)
    response = client.post(reverse("highlights:edit", args=[item["id"]]), {"visibility": "private"})
    assert response.json()["thread_url"] is None
    comment.refresh_from_db()
    assert comment.is_removed and comment.body == ""  # withdrawn: its text is gone for good
    assert Comment.objects.filter(pk=reply.pk, removed_at__isnull=True).exists()
    client.force_login(other_user)
    page = client.get(paper.get_absolute_url()).content.decode()
    assert "shared words" not in page and SENTENCE not in page


def test_shared_again_opens_a_new_thread(client, user):
    paper = make_paper()
    client.force_login(user)
    item = create(client, paper, visibility="lab")
    url = reverse("highlights:edit", args=[item["id"]])
    client.post(url, {"visibility": "private"})
    again = client.post(url, {"visibility": "lab"}).json()
    live = Comment.objects.get(removed_at__isnull=True)
    assert again["thread_url"].endswith(f"#comment-{live.pk}")


def test_deleting_a_lab_highlight_deletes_its_comment_when_nothing_replies(client, user):
    paper = make_paper()
    client.force_login(user)
    item = create(client, paper, visibility="lab", note="gone soon")
    client.post(reverse("highlights:delete", args=[item["id"]]))
    assert not Comment.objects.exists()
    assert not Highlight.objects.exists()


def test_the_quote_shows_as_written_in_the_thread(client, user):
    paper = make_paper()
    quote = "cost *is* $x^2$ [1](http://e.org) \\[y\\] <b>\n# 2.\n- a\n3. b"
    client.force_login(user)
    create(client, paper, visibility="lab", exact=quote, end=str(120 + len(quote)))
    html = Comment.objects.get().body_html
    assert "<em>" not in html and "<a " not in html and "math-display" not in html
    assert "<h1>" not in html and "<ul>" not in html and "<ol>" not in html
    assert "cost *is*" in html and "[1](http://e.org)" in html and "&lt;b&gt;" in html
    assert "# 2." in html and "- a" in html and "3. b" in html


def test_a_thread_removed_by_a_moderator_is_not_brought_back_by_an_edit(client, user):
    from annotations.services import remove_comment

    paper = make_paper()
    moderator = make_user("mod", is_staff=True)
    client.force_login(user)
    item = create(client, paper, visibility="lab", note="first")
    remove_comment(comment=Comment.objects.get(), by=moderator)
    client.post(reverse("highlights:edit", args=[item["id"]]), {"note": "second"})
    assert Comment.objects.count() == 1 and Comment.objects.get().is_removed
    assert Comment.objects.get().body.endswith("first")
