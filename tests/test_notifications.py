"""Who hears about a comment, and each member's notifications page (theirs alone)."""

from __future__ import annotations

from django.urls import reverse
from django.utils import timezone

from annotations.models import Comment, Notification, NotificationKind, Visibility
from tests.factories import make_comment, make_note, make_paper, make_reading_list, make_user


def _post(client, paper, body, parent=None):
    data = {"body": body} | ({"parent": str(parent.pk)} if parent else {})
    response = client.post(reverse("annotations:comment-add", args=[paper.pk]), data)
    assert response.status_code == 302, response.content.decode()
    return Comment.objects.latest("pk")


def _told(comment) -> dict[str, str]:
    return {
        n.recipient.username: n.kind
        for n in Notification.objects.filter(comment=comment).select_related("recipient")
    }


# Mentions in the stored body.


def test_a_saved_comment_links_active_members_only(db):
    make_user("bob")
    make_user("gone", is_active=False)
    comment = make_comment(make_user("ann"), make_paper(), "@bob @gone @nobody")
    assert '<span class="mention">@bob</span>' in comment.body_html
    assert "@gone" in comment.body_html and '<span class="mention">@gone' not in comment.body_html
    assert '<span class="mention">@nobody' not in comment.body_html


def test_script_after_an_at_sign_stays_escaped_on_the_page(client, user):
    paper = make_paper()
    client.force_login(user)
    _post(client, paper, "@<script>alert(1)</script> @alice")
    content = client.get(paper.get_absolute_url()).content.decode()
    assert "<script>alert(1)" not in content and "@&lt;script&gt;" in content
    assert '<span class="mention">@alice</span>' in content


# Who is told.


def test_only_the_mentioned_member_gets_the_mention_and_the_author_nothing(
    client, user, other_user
):
    carol = make_user("carol")
    paper = make_paper()
    client.force_login(user)
    comment = _post(client, paper, "what do you think, @bob? (cc @alice @nobody)")
    assert _told(comment) == {"bob": NotificationKind.MENTION}
    assert not carol.notifications.exists() and not user.notifications.exists()


def test_list_owners_private_or_shared_hear_of_comments_on_their_papers(client, user):
    paper = make_paper()
    private_owner, shared_owner, unrelated = make_user("priv"), make_user("shar"), make_user("un")
    make_reading_list(private_owner, "Secret reading", papers=[paper])
    make_reading_list(shared_owner, "Lab picks", papers=[paper], visibility=Visibility.SHARED)
    make_reading_list(shared_owner, "Second list", papers=[paper])
    make_reading_list(unrelated, "Other papers", papers=[make_paper()])
    make_reading_list(user, "My own", papers=[paper])
    client.force_login(user)
    comment = _post(client, paper, "worth reading")
    assert _told(comment) == {
        "priv": NotificationKind.LISTED_PAPER,
        "shar": NotificationKind.LISTED_PAPER,
    }


def test_a_reply_tells_the_parents_author_once_even_when_mentioned_and_listing_it(
    client, user, other_user
):
    paper = make_paper()
    make_reading_list(user, "Mine", papers=[paper])
    top = make_comment(user, paper, "a question")
    client.force_login(other_user)
    reply = _post(client, paper, "an answer", parent=top)
    assert _told(reply) == {"alice": NotificationKind.REPLY}
    second = _post(client, paper, "and @alice, one more thing", parent=top)
    assert _told(second) == {"alice": NotificationKind.MENTION}
    assert Notification.objects.filter(recipient=user).count() == 2


def test_replying_to_yourself_tells_nobody(client, user):
    paper = make_paper()
    top = make_comment(user, paper, "note to self")
    client.force_login(user)
    reply = _post(client, paper, "and @alice again", parent=top)
    assert _told(reply) == {}


def test_an_edit_tells_newly_mentioned_members_only_once(client, user, other_user):
    carol = make_user("carol")
    paper = make_paper()
    client.force_login(user)
    comment = _post(client, paper, "hello @bob")
    edit = reverse("annotations:comment-edit", args=[comment.pk])
    client.post(edit, {"body": "hello @bob and @carol"})
    client.post(edit, {"body": "hello @bob and @carol and @alice!"})
    assert _told(comment) == {"bob": NotificationKind.MENTION, "carol": NotificationKind.MENTION}
    assert carol.notifications.count() == 1 and other_user.notifications.count() == 1


def _edit(client, comment, body):
    response = client.post(reverse("annotations:comment-edit", args=[comment.pk]), {"body": body})
    assert response.status_code == 302, response.content.decode()


def test_an_edit_mentioning_a_member_told_for_another_reason_tells_them_of_the_mention(
    client, user, other_user
):
    paper = make_paper()
    make_reading_list(other_user, "Bob's list", papers=[paper])
    client.force_login(user)
    comment = _post(client, paper, "worth reading")
    assert _told(comment) == {"bob": NotificationKind.LISTED_PAPER}
    Notification.objects.update(read_at=timezone.now())  # bob has seen it
    _edit(client, comment, "worth reading, @bob")
    notification = other_user.notifications.get()
    assert notification.kind == NotificationKind.MENTION and not notification.is_read


def test_an_edit_dropping_an_unread_mention_takes_it_back(client, user, other_user):
    carol = make_user("carol")
    paper = make_paper()
    make_reading_list(carol, "Carol's list", papers=[paper])
    client.force_login(user)
    comment = _post(client, paper, "hello @bob and @carol")
    _edit(client, comment, "hello everyone")
    # Bob was told only because of the mention; Carol still hears of it through her list.
    assert _told(comment) == {"carol": NotificationKind.LISTED_PAPER}


def test_a_mention_already_read_stays_and_is_not_told_twice(client, user, other_user):
    paper = make_paper()
    client.force_login(user)
    comment = _post(client, paper, "hello @bob")
    Notification.objects.update(read_at=timezone.now())
    _edit(client, comment, "hello")
    assert _told(comment) == {"bob": NotificationKind.MENTION}  # what bob was told
    _edit(client, comment, "hello again @bob")
    assert other_user.notifications.get().is_read


def test_no_notification_reveals_another_members_private_list_or_note(client, user, other_user):
    paper = make_paper("A paper on secrets")
    make_reading_list(other_user, "My secret shortlist", papers=[paper])
    make_note(other_user, paper, "private thought about it")
    mentioned = make_user("dave")
    client.force_login(user)
    _post(client, paper, "nice one @dave")
    for member in (other_user, mentioned, user):
        client.force_login(member)
        content = client.get(reverse("annotations:notifications")).content.decode()
        assert "My secret shortlist" not in content and "private thought" not in content
    client.force_login(other_user)
    content = client.get(reverse("annotations:notifications")).content.decode()
    assert (
        "commented on a paper in your reading lists" in content and "A paper on secrets" in content
    )


# The notifications page.


def test_the_page_lists_my_notifications_newest_first_with_excerpt_paper_and_link(
    client, user, other_user
):
    paper = make_paper("Attention everywhere")
    client.force_login(other_user)
    older = _post(client, paper, "first ping @alice")
    newer = _post(client, paper, "second ping @alice")
    client.force_login(user)
    content = client.get(reverse("annotations:notifications")).content.decode()
    assert content.index("second ping") < content.index("first ping")
    assert "Attention everywhere" in content and "mentioned you on" in content
    link = reverse("annotations:notification-open", args=[newer.notifications.get().pk])
    assert f'action="{link}"' in content
    assert older.notifications.get().read_at is None


def test_opening_a_notification_marks_it_read_and_goes_to_the_comment(client, user, other_user):
    paper = make_paper()
    client.force_login(other_user)
    comment = _post(client, paper, "look @alice")
    notification = comment.notifications.get()
    client.force_login(user)
    response = client.post(reverse("annotations:notification-open", args=[notification.pk]))
    assert response.status_code == 302
    assert response["Location"] == f"{paper.get_absolute_url()}#comment-{comment.pk}"
    notification.refresh_from_db()
    assert notification.read_at is not None


def test_mark_all_read_is_a_post_and_touches_only_mine(client, user, other_user):
    carol = make_user("carol")
    paper = make_paper()
    client.force_login(other_user)
    _post(client, paper, "@alice @carol")
    client.force_login(user)
    url = reverse("annotations:notifications-mark-all-read")
    assert client.get(url).status_code == 405
    response = client.post(url, follow=True)
    assert "Marked 1 notification read." in response.content.decode()
    assert not user.notifications.filter(read_at__isnull=True).exists()
    assert carol.notifications.get().read_at is None


def test_another_members_notifications_cannot_be_seen_or_marked(client, user, other_user):
    paper = make_paper()
    client.force_login(user)
    mine = _post(client, paper, "private-ish ping for @bob").notifications.get()
    carol = make_user("carol")
    client.force_login(carol)
    open_url = reverse("annotations:notification-open", args=[mine.pk])
    assert client.get(open_url).status_code == 404
    assert client.post(open_url).status_code == 404
    for probe in (f"/notifications/?recipient={other_user.pk}", "/notifications/?user=bob"):
        content = client.get(probe).content.decode()
        assert "private-ish ping" not in content and "No notifications yet" in content
    assert client.get(f"/notifications/{other_user.pk}/").status_code == 404
    mine.refresh_from_db()
    assert mine.read_at is None


def test_the_page_needs_a_login(client):
    for url in (
        reverse("annotations:notifications"),
        reverse("annotations:notification-open", args=[1]),
    ):
        response = client.get(url)
        assert response.status_code == 302 and "/login" in response["Location"]
    assert client.post(reverse("annotations:notifications-mark-all-read")).status_code == 302


def test_removed_comments_show_no_text_on_the_page(client, user, other_user):
    paper = make_paper()
    client.force_login(other_user)
    comment = _post(client, paper, "regrettable words for @alice")
    client.post(reverse("annotations:comment-delete", args=[comment.pk]), {"confirmed": "yes"})
    client.force_login(user)
    content = client.get(reverse("annotations:notifications")).content.decode()
    assert "regrettable" not in content and "comment removed" in content


# The header's unread count and the costs.


def test_the_header_counts_unread_notifications(client, user, other_user):
    paper = make_paper()
    client.force_login(other_user)
    _post(client, paper, "@alice one")
    _post(client, paper, "@alice two")
    client.force_login(user)
    content = client.get(reverse("papers:list")).content.decode()
    assert 'aria-label="Notifications, 2 unread"' in content
    assert '<span class="badge badge-unread" aria-hidden="true">2 unread</span>' in content
    client.post(reverse("annotations:notifications-mark-all-read"))
    content = client.get(reverse("papers:list")).content.decode()
    assert 'aria-label="Notifications"' in content and "unread" not in content


def test_anonymous_visitors_cost_no_notification_query(client, db):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        client.get(reverse("annotations:activity"))
    assert not [q for q in captured.captured_queries if "annotations_notification" in q["sql"]]


def test_notifications_page_query_budget(client, user, django_assert_num_queries):
    for n in range(30):
        author = make_user(f"writer{n}")
        paper = make_paper(f"Paper {n}")
        make_comment(author, paper, f"comment {n}")
        Notification.objects.create(
            recipient=user, kind=NotificationKind.MENTION, comment=paper.comments.get()
        )
    client.force_login(user)
    # session, user, notifications with their comments, authors and papers, unread count
    with django_assert_num_queries(4):
        response = client.get(reverse("annotations:notifications"))
    content = response.content.decode()
    assert "comment 29" in content and "writer0" in content


def test_admin_lists_notifications_read_only_and_comments_with_their_parent(admin_client, user):
    paper = make_paper()
    top = make_comment(user, paper, "top")
    reply = make_comment(make_user("bob"), paper, "hi @alice", parent=top)
    Notification.objects.create(recipient=user, kind=NotificationKind.REPLY, comment=reply)
    response = admin_client.get(reverse("admin:annotations_notification_changelist"))
    assert response.status_code == 200 and "alice" in response.content.decode()
    assert admin_client.get(reverse("admin:annotations_notification_add")).status_code == 403
    comments = admin_client.get(reverse("admin:annotations_comment_changelist"))
    assert f"#{top.pk}" in comments.content.decode()


def test_a_mention_finds_the_member_whatever_the_case_typed(client, user, other_user):
    # Sign-up refuses "Bob" beside "bob": a username names one member, case aside.
    paper = make_paper()
    client.force_login(user)
    comment = _post(client, paper, "thanks @Bob and @CAROL")
    make_user("carol")
    assert _told(comment) == {"bob": NotificationKind.MENTION}
    assert '<span class="mention">@Bob</span>' in comment.body_html


def test_a_mention_in_one_case_tells_that_member_when_two_differ_by_case_only(db):
    # Staff may have made "Dan" and "dan" in admin: the exact spelling picks one.
    dan, big_dan = make_user("dan"), make_user("Dan")
    assert make_comment(make_user("ann"), make_paper(), "@dan").mentioned_users == [dan]
    assert make_comment(make_user("eve"), make_paper(), "@Dan").mentioned_users == [big_dan]
