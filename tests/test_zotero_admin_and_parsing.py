"""Connecting a Zotero group library in the admin (its key never shown back), and Zotero's
JSON read into what the site stores (zotero.parsing, no database)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import make_user
from zotero import parsing
from zotero.models import Library


@pytest.mark.django_db
def test_the_admin_never_shows_a_librarys_key_and_a_blank_field_keeps_it(admin_client):
    member = make_user("zotero-sync")
    library = Library.objects.create(group_id=12, api_key="s3cret-key-value", member=member)
    url = reverse("admin:zotero_library_change", args=[library.pk])

    page = admin_client.get(url)

    assert page.status_code == 200
    assert b"s3cret-key-value" not in page.content
    form = {"group_id": "12", "api_key": "", "member": str(member.pk), "enabled": "on"}
    assert admin_client.post(url, form).status_code == 302
    library.refresh_from_db()
    assert library.api_key == "s3cret-key-value"
    admin_client.post(url, {**form, "api_key": "a-new-key"})
    library.refresh_from_db()
    assert library.api_key == "a-new-key"


@pytest.mark.django_db
def test_what_the_sync_made_is_listed_read_only(admin_client):
    assert admin_client.get(reverse("admin:zotero_item_changelist")).status_code == 200
    assert admin_client.get(reverse("admin:zotero_item_add")).status_code == 403


def test_a_conference_paper_becomes_a_record_with_its_venue_year_and_authors():
    data = {
        "itemType": "conferencePaper",
        "title": "  Attention   Is All You Need ",
        "creators": [
            {"creatorType": "author", "firstName": "Ashish", "lastName": "Vaswani"},
            {"creatorType": "contributor", "firstName": "Some", "lastName": "One"},
            {"creatorType": "author", "name": "Google Brain"},
        ],
        "proceedingsTitle": "Advances in Neural Information Processing Systems",
        "date": "2017",
        "DOI": "",
        "extra": "DOI: 10.5555/3295222.3295349",
        "url": "https://arxiv.org/abs/1706.03762",
        "abstractNote": "The dominant sequence transduction models...",
    }
    record = parsing.record(data, source="zotero:1", line=3)
    assert record.title == "Attention Is All You Need"
    assert record.authors == ["Ashish Vaswani", "Google Brain"]
    assert record.year == 2017
    assert record.doi == "10.5555/3295222.3295349"
    assert record.arxiv_id == "1706.03762"
    assert record.publication_type == "conference-paper"
    assert record.source == "zotero:1" and record.line == 3


@pytest.mark.parametrize(
    ("attachment", "link"),
    [
        ({"linkMode": "linked_url", "url": "https://x.org/a.pdf"}, "https://x.org/a.pdf"),
        (
            {
                "linkMode": "imported_url",
                "url": "https://x.org/get?id=1",
                "contentType": "application/pdf",
            },
            "https://x.org/get?id=1",
        ),
        (
            {
                "linkMode": "linked_url",
                "url": "https://x.org/page.html",
                "contentType": "text/html",
            },
            "",
        ),
        # A stored file's or a local file's link is no address the site may record.
        ({"linkMode": "imported_file", "url": "https://x.org/a.pdf"}, ""),
        ({"linkMode": "linked_file", "path": "/home/ada/a.pdf"}, ""),
        (
            {
                "linkMode": "linked_url",
                "url": "file:///home/ada/a.pdf",
                "contentType": "application/pdf",
            },
            "",
        ),
    ],
)
def test_only_an_attachments_web_pdf_link_is_kept(attachment, link):
    assert parsing.pdf_link(attachment) == link


def test_a_note_is_kept_as_text_with_its_paragraphs():
    html = "<div><p>First &amp; <em>foremost</em>.</p><ul><li>one</li><li>two</li></ul></div>"
    assert parsing.note_text({"note": html}) == "First & foremost.\n\none\n\ntwo"


def test_what_is_not_an_item_is_left_out():
    assert parsing.item({"key": "AAAA"}) is None
    assert parsing.item({"data": "nonsense"}) is None
    item = parsing.item(
        {
            "key": "AAAA",
            "version": 7,
            "data": {"itemType": "preprint", "tags": [{"tag": " x "}, {"no": 1}]},
        }
    )
    assert item is not None and item.is_paper and item.tags == ["x"] and item.version == 7
