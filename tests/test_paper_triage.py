"""The paper page's "Save and reading status" section: the results' triage block for the one
paper, without the selection box, list menu and tag box the panel has its own sections for."""

from __future__ import annotations

from django.urls import reverse

from annotations.models import ReadingListItem, ReadingStatus
from tests.factories import make_paper, make_reading_list

HTMX = {"HTTP_HX_REQUEST": "true"}


def _section(content: str) -> str:
    start = content.index('id="paper-triage"')
    return content[start : content.index("</section>", start)]


def test_a_member_saves_and_sets_the_status_from_the_paper_page(client, user):
    paper = make_paper("Workspace paper")
    client.force_login(user)
    url = paper.get_absolute_url()

    section = _section(client.get(url).content.decode())
    assert "Save<span" in section
    assert "data-triage-check" not in section and "Lab tag" not in section
    assert 'name="next" value="/papers/' in client.get(url).content.decode()

    # With htmx the block comes back alone, still without the results' extra controls.
    field = f"p{paper.pk}-status"
    response = client.post(
        reverse("annotations:triage-status", args=[paper.pk]),
        {field: ReadingStatus.READING, "layout": "single"},
        **HTMX,
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "Saved ✓" in html and "data-triage-check" not in html and "Lab tag" not in html
    item = ReadingListItem.objects.get(paper=paper)
    assert (item.reading_list.owner, item.status) == (user, ReadingStatus.READING)

    # Without JavaScript the form posts and comes back to the paper page.
    response = client.post(
        reverse("annotations:triage-status", args=[paper.pk]),
        {field: ReadingStatus.READ, "next": url},
    )
    assert response.status_code == 302 and response["Location"] == url
    assert ReadingListItem.objects.get(paper=paper).status == ReadingStatus.READ
    assert "Saved ✓" in _section(client.get(url).content.decode())


def test_the_section_shows_my_default_lists_status_not_anothers(client, user, other_user):
    paper = make_paper("Shared interest")
    theirs = make_reading_list(other_user, "Their default", papers=[paper], is_default=True)
    theirs.items.update(status=ReadingStatus.READ)
    mine = make_reading_list(user, "My default", papers=[paper], is_default=True)
    mine.items.update(status=ReadingStatus.SKIPPED)
    client.force_login(user)

    section = _section(client.get(paper.get_absolute_url()).content.decode())

    assert "in My default" in section and "Their default" not in section
    assert '<option value="skipped" selected>' in section


def test_an_anonymous_visitor_has_no_triage_section(client, db):
    paper = make_paper("Public paper")
    assert 'id="paper-triage"' not in client.get(paper.get_absolute_url()).content.decode()
