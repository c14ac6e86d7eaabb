"""The annotation panel on the paper page: what each visitor sees and what it costs."""

from __future__ import annotations

import re

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from annotations.forms import TAG_NAME_MAX_LENGTH
from annotations.models import ReadingListItem, Visibility
from papers.models import TagKind
from papers.search.sync import current_searcher
from tests.factories import (
    make_comment,
    make_lab_tag,
    make_note,
    make_paper,
    make_reading_list,
    make_user,
)


def _paper_with_everything(user, other_user):
    paper = make_paper(
        "Budgeted paper",
        authors=["Ada Lovelace", "Alan Turing"],
        tags=[("ICLR 2024", "venue"), ("Poster", "track")],
    )
    make_note(user, paper, "first note")
    make_note(user, paper, "second note")
    make_reading_list(user, "Mine", papers=[paper])
    make_reading_list(user, "Empty")
    make_reading_list(other_user, "Theirs", papers=[paper], visibility=Visibility.SHARED)
    make_comment(user, paper, "my comment")
    make_comment(other_user, paper, "their comment")
    make_lab_tag(paper, "robotics", added_by=user)
    make_lab_tag(paper, "vision", added_by=other_user)
    return paper


def test_logged_in_paper_page_stays_within_the_query_budget(
    client, user, other_user, django_assert_max_num_queries
):
    paper = _paper_with_everything(user, other_user)
    client.force_login(user)
    current_searcher()  # the search index catches up now, as on a running server
    # Paper page (papers app, 8): session, user, paper, authorships+authors,
    # paper_tags+tags, the reviews the member may read, search index up to date?, similar
    # papers' rows.
    # Annotation panel (4): own notes on the paper, own lists with whether the paper is in
    # each (one query with a subquery), comments with their authors (select_related), the
    # highlights the member may see with their authors and reply counts.
    # Lab tags come from the paper page's paper_tags prefetch: no query.
    with django_assert_max_num_queries(13):
        response = client.get(paper.get_absolute_url())
    assert response.status_code == 200
    content = response.content.decode()
    assert all(text in content for text in PANEL_TEXTS)


# What the panel of `_paper_with_everything` shows its member: notes, lists, comments, tags.
PANEL_TEXTS = ["first note", "second note", "Mine", "my comment", "their comment", "vision"]


def _annotation_queries_and_content(client, url) -> tuple[list[str], str]:
    """The queries of one page view that read annotation tables, and the page it answered."""
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200
    queries = [query["sql"] for query in captured.captured_queries]
    return [sql for sql in queries if "annotations_" in sql], response.content.decode()


def test_panel_adds_three_queries_for_a_member_and_none_for_anonymous(client, user, other_user):
    paper = _paper_with_everything(user, other_user)
    queries, content = _annotation_queries_and_content(client, paper.get_absolute_url())
    assert queries == []
    assert "Log in to comment" in content and "first note" not in content
    client.force_login(user)
    queries, content = _annotation_queries_and_content(client, paper.get_absolute_url())
    # notes, lists (+ subquery over items, same statement), comments with their replies, who
    # in the lab has the paper in a shared list; and the header's unread notification count;
    # the highlights the member may see (it joins the comments for their reply counts)
    assert len(queries) == 6
    assert all(text in content for text in PANEL_TEXTS)


def test_member_sees_own_notes_lists_comments_and_lab_tags(client, user, other_user):
    paper = _paper_with_everything(user, other_user)
    make_note(other_user, paper, "someone else's private note")
    make_reading_list(other_user, "Their private list", papers=[paper])
    client.force_login(user)
    content = client.get(paper.get_absolute_url()).content.decode()
    assert "first note" in content and "second note" in content
    assert "someone else" not in content
    assert "Their private list" not in content
    assert "Mine" in content and "✓ in this list" in content
    assert "my comment" in content and "their comment" in content
    assert "robotics" in content and "vision" in content


def test_anonymous_visitor_is_invited_to_log_in_and_sees_no_comments(client, user, other_user):
    paper = _paper_with_everything(user, other_user)
    content = client.get(paper.get_absolute_url()).content.decode()
    assert "Log in to comment" in content
    assert "my comment" not in content
    assert "first note" not in content
    assert "robotics" in content  # lab tags are public like the catalogue


def test_remove_buttons_only_for_own_lab_tags(client, user, other_user):
    paper = make_paper()
    mine = make_lab_tag(paper, "mine", added_by=user)
    theirs = make_lab_tag(paper, "theirs", added_by=other_user)
    client.force_login(user)
    content = client.get(paper.get_absolute_url()).content.decode()
    assert f"/lab-tags/{mine.pk}/remove/" in content
    assert f"/lab-tags/{theirs.pk}/remove/" not in content


def test_panel_has_no_inline_script_or_event_handler_attributes(client, user, other_user):
    paper = _paper_with_everything(user, other_user)
    client.force_login(user)
    content = client.get(paper.get_absolute_url()).content.decode()
    assert "<script>" not in content
    assert " onclick=" not in content and " onsubmit=" not in content
    assert "hx-post=" in content  # htmx enhancement present, configured by attributes


def test_hostile_user_text_is_escaped_on_the_paper_page(client, user, other_user):
    attack = "<img src=x onerror=alert(1)>"
    paper = make_paper()
    make_note(user, paper, attack)
    make_comment(other_user, paper, attack)
    make_reading_list(user, attack, papers=[paper])
    make_lab_tag(paper, "<b>bold</b>", added_by=user)
    client.force_login(user)
    content = client.get(paper.get_absolute_url()).content.decode()
    assert "<img src=x" not in content
    assert "<b>bold</b>" not in content
    assert "&lt;img src=x onerror=alert(1)&gt;" in content


def test_markdown_javascript_link_is_not_rendered_as_a_link(client, user):
    paper = make_paper()
    make_note(user, paper, "[x](javascript:alert(1)) and [ok](https://example.org)")
    client.force_login(user)
    content = client.get(paper.get_absolute_url()).content.decode()
    assert 'href="javascript:' not in content
    assert '<a href="https://example.org" rel="nofollow noopener">ok</a>' in content


def test_a_staff_member_sees_a_moderation_button_on_others_comments(client, other_user):
    paper = make_paper()
    comment = make_comment(other_user, paper, "needs moderation")
    client.force_login(make_user("mod", is_staff=True))
    content = client.get(paper.get_absolute_url()).content.decode()
    assert f"/comments/{comment.pk}/delete/" in content
    assert f"/comments/{comment.pk}/edit/" not in content


def test_htmx_refreshes_each_section_with_its_content_and_its_form(client, user):
    paper = make_paper("This paper")
    make_note(user, make_paper("Another paper"), "a note on another paper")
    queue = make_reading_list(user, "Queue")
    client.force_login(user)

    def fragment(name: str, data: dict) -> str:
        response = client.post(
            reverse(f"annotations:{name}", args=[paper.pk]), data, HTTP_HX_REQUEST="true"
        )
        assert response.status_code == 200
        content = response.content.decode()
        assert "<html" not in content
        # The fragment's forms post again: each carries its CSRF token.
        assert 'name="csrfmiddlewaretoken"' in content
        return content

    tags = fragment("tag-add", {"name": "robotics"})
    assert 'id="paper-tags"' in tags and ">robotics</a>" in tags
    assert f'name="name" maxlength="{TAG_NAME_MAX_LENGTH}"' in tags
    assert 'class="flash flash-success"' in tags
    refused = fragment("tag-add", {"name": "   "})
    assert 'class="flash flash-error"' in refused and ">robotics</a>" in refused
    lists = fragment("paper-list-add", {"reading_list": queue.pk})
    assert 'id="paper-lists"' in lists and "Queue" in lists and "✓ in this list" in lists
    notes = fragment("note-add", {"body": "a fresh note"})
    assert 'id="paper-notes"' in notes and "a fresh note" in notes and "<textarea" in notes
    assert "a note on another paper" not in notes
    comments = fragment("comment-add", {"body": "a fresh comment"})
    assert 'id="paper-comments"' in comments and "a fresh comment" in comments
    assert "<textarea" in comments
    invalid = fragment("comment-add", {"body": ""})
    assert "This field is required." in invalid and "a fresh comment" in invalid


def test_paper_page_shows_the_members_notes_on_this_paper_only(client, user):
    paper = make_paper("This paper")
    make_note(user, paper, "a note on this paper")
    make_note(user, make_paper("Another paper"), "a note on another paper")
    client.force_login(user)
    response = client.get(paper.get_absolute_url())
    assert response.status_code == 200
    content = response.content.decode()
    assert "a note on this paper" in content and "a note on another paper" not in content


def test_lists_section_marks_only_the_lists_that_hold_this_paper(client, user, other_user):
    paper = make_paper("This paper")
    make_reading_list(user, "Holds it", papers=[paper])
    make_reading_list(user, "Holds another", papers=[make_paper("Another paper")])
    make_reading_list(other_user, "Theirs", papers=[paper])
    client.force_login(user)
    response = client.post(
        reverse("annotations:paper-list-add", args=[paper.pk]),
        {"new_list_name": "Brand new"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    content = response.content.decode()
    assert content.count("✓ in this list") == 2  # "Holds it" and "Brand new"
    assert "Theirs" not in content
    # Each remove button names the member's own item of this paper, never another's.
    own_items = ReadingListItem.objects.filter(reading_list__owner=user, paper=paper)
    assert set(map(int, re.findall(r"/items/(\d+)/remove/", content))) == {
        item.pk for item in own_items
    }


def test_tags_section_shows_this_papers_lab_tags_only(client, user):
    paper = make_paper("This paper", tags=[("ICLR 2024", TagKind.VENUE)])
    make_lab_tag(make_paper("Another paper"), "elsewhere", added_by=user)
    client.force_login(user)
    response = client.post(
        reverse("annotations:tag-add", args=[paper.pk]), {"name": "here"}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 200
    content = response.content.decode()
    assert ">here</a>" in content
    assert "elsewhere" not in content and "ICLR 2024" not in content


def test_members_paper_page_has_the_note_comment_and_tag_forms(client, user):
    paper = make_paper()
    client.force_login(user)
    response = client.get(paper.get_absolute_url())
    assert response.status_code == 200
    content = response.content.decode()
    assert content.count('name="body"') == 2  # a new note, a new comment
    assert f'name="name" maxlength="{TAG_NAME_MAX_LENGTH}"' in content


def _save_panel_block(content: str, paper) -> str:
    """The paper page's Save panel block in an htmx response, sent to swap out of band."""
    match = re.search(rf'<div class="triage[^"]*" id="triage-{paper.pk}".*?</div>', content, re.S)
    assert match, "the response brings the Save panel's block"
    assert 'hx-swap-oob="true"' in match.group()
    return match.group()


def test_adding_and_removing_through_the_lists_section_refreshes_the_save_panel(client, user):
    paper = make_paper("This paper")
    queue = make_reading_list(user, "Queue")
    client.force_login(user)
    page = client.get(paper.get_absolute_url()).content.decode()
    assert "In Queue" not in page

    added = client.post(
        reverse("annotations:paper-list-add", args=[paper.pk]),
        {"reading_list": queue.pk},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="paper-lists",
    ).content.decode()
    assert "In Queue" in _save_panel_block(added, paper)

    item = ReadingListItem.objects.get(reading_list=queue, paper=paper)
    removed = client.post(
        reverse("annotations:list-item-remove", args=[queue.pk, item.pk]),
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="paper-lists",
    ).content.decode()
    assert "triage-in" not in _save_panel_block(removed, paper)
