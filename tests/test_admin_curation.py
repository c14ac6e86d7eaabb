"""Issue 27, point 2 in admin: the index says how many papers wait, how many are likely
duplicates and how many import conflicts are open; "Find duplicates" on a paper's page (and as
an action) flags and lists its likely duplicates; the merge page shows the papers side by side
(title, authors, abstract, ids, what moves) without counting members' private annotations."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from papers.models import ImportConflict, Paper
from tests.factories import make_comment, make_note, make_paper, make_reading_list, make_user

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:papers_paper_changelist"
ABSTRACT = (
    "We study how axolotls regrow their limbs after injury and what this tells us about "
    "learning systems that must repair themselves. Our model treats regeneration as an "
    "iterative denoising process over a latent body plan, trained on thousands of recorded "
    "regrowth sequences, and recovers the shape of a lost limb from a few cells alone."
)


@pytest.fixture
def twins() -> tuple[Paper, Paper]:
    """The full record of a paper and its abstract-only record, reworded at both ends."""
    titled = make_paper("Axolotl Limbs as Denoising", abstract=ABSTRACT + " Code is public.")
    untitled = make_paper(
        "",
        abstract="Here we study how" + ABSTRACT[8:].replace("alone.", "only."),
        needs_curation=True,
        curation_reason="Imported without a title",
    )
    return titled, untitled


def test_the_index_counts_the_queue_its_duplicates_and_open_conflicts(admin_client, twins):
    titled, untitled = twins
    Paper.objects.filter(pk=titled.pk).update(
        needs_curation=True, curation_reason=f"possible duplicate of #{untitled.pk}"
    )
    ImportConflict.objects.create(paper=titled, kind="sources", field="title", source="a")
    ImportConflict.objects.create(
        paper=titled, kind="sources", field="doi", source="a", resolved_at="2026-01-01T00:00Z"
    )
    content = admin_client.get(reverse("admin:index")).content.decode()
    assert "2 papers need curation" in content
    duplicates = f"{reverse(CHANGELIST)}?needs_curation__exact=1&amp;curation_reason__startswith="
    assert f'href="{duplicates}possible+duplicate+of">1 possible duplicate</a>' in content
    conflicts = reverse("admin:papers_importconflict_changelist")
    assert f'href="{conflicts}">1 open import conflict</a>' in content
    listed = admin_client.get(
        reverse(CHANGELIST),
        {"needs_curation__exact": 1, "curation_reason__startswith": "possible duplicate of"},
    )
    assert [p.pk for p in listed.context["cl"].result_list] == [titled.pk]


def test_curators_who_cannot_see_conflicts_are_not_told_their_number(client, twins):
    curator = make_user("curator", is_staff=True)
    curator.user_permissions.add(Permission.objects.get(codename="view_paper"))
    client.force_login(curator)
    content = client.get(reverse("admin:index")).content.decode()
    assert "1 paper needs curation" in content
    assert "import conflict" not in content


def test_find_duplicates_on_a_papers_page_flags_and_lists_its_twin(admin_client, twins):
    titled, untitled = twins
    page = admin_client.get(reverse("admin:papers_paper_change", args=[titled.pk]))
    content = page.content.decode()
    assert 'name="action" value="find_duplicates"' in content
    assert f'name="_selected_action" value="{titled.pk}"' in content

    response = admin_client.post(
        reverse(CHANGELIST),
        {"action": "find_duplicates", "_selected_action": [titled.pk]},
        follow=True,
    )
    content = response.content.decode()
    pair = f"{reverse(CHANGELIST)}?id__in={titled.pk},{untitled.pk}"
    assert f'<a href="{pair}">#{titled.pk} “Axolotl Limbs as Denoising” and #{untitled.pk}' in (
        content
    )
    titled.refresh_from_db()
    assert titled.curation_reason == f"possible duplicate of #{untitled.pk}"
    both = admin_client.get(pair)
    assert {p.pk for p in both.context["cl"].result_list} == {titled.pk, untitled.pk}


def test_find_duplicates_says_so_when_there_are_none(admin_client):
    paper = make_paper("A lonely paper")
    response = admin_client.post(
        reverse(CHANGELIST),
        {"action": "find_duplicates", "_selected_action": [paper.pk]},
        follow=True,
    )
    assert "No likely duplicates of the selected papers." in response.content.decode()


def test_a_viewer_cannot_find_duplicates(client, twins):
    viewer = make_user("viewer", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_paper"))
    client.force_login(viewer)
    titled, _ = twins
    page = client.get(reverse("admin:papers_paper_change", args=[titled.pk])).content.decode()
    assert "find_duplicates" not in page
    client.post(reverse(CHANGELIST), {"action": "find_duplicates", "_selected_action": [titled.pk]})
    titled.refresh_from_db()
    assert not titled.needs_curation


def merge_page(client, papers: list[Paper]):
    data = {"action": "merge_papers", "_selected_action": [p.pk for p in papers]}
    return client.post(reverse(CHANGELIST), data)


PRIVATE_COUNT = re.compile(r"\d+ (notes?|reading list items?|recommendations?)\b")


def test_the_merge_page_shows_both_papers_side_by_side(admin_client, twins):
    titled, untitled = twins
    member, other = make_user("ann"), make_user("bo")
    make_note(member, untitled, "My private thought.")
    make_reading_list(other, papers=[untitled])
    make_comment(member, untitled)
    content = merge_page(admin_client, [titled, untitled]).content.decode()
    row = re.search(r"<tr><th scope=\"row\">abstract</th>(.*?)</tr>", content, re.S)
    assert row is not None
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)
    assert len(cells) == 2
    assert cells[0].startswith("We study how axolotls") and cells[1].startswith("Here we study")
    assert "Untitled paper (awaiting curation)" in content
    assert f"<td>{titled.forum_id}</td><td>{untitled.forum_id}</td>" in content
    # What moves: the public comment is counted, members' notes and lists never are.
    assert "<td>none</td><td>1 comment</td>" in content
    assert not PRIVATE_COUNT.search(content)
    assert "My private thought." not in content
    assert "css/admin_curation.css" in content  # abstracts top-aligned, side by side


def test_the_merge_page_costs_the_same_queries_for_more_papers(admin_client):
    papers = [make_paper(f"Paper {n}", authors=["Ann One", "Bo Two"]) for n in range(4)]
    merge_page(admin_client, papers[:2])  # sessions and content types settled
    with CaptureQueriesContext(connection) as two:
        assert merge_page(admin_client, papers[:2]).status_code == 200
    with CaptureQueriesContext(connection) as four:
        assert merge_page(admin_client, papers).status_code == 200
    assert len(four) == len(two)
