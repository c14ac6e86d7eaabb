"""A merged author lives on as the author they were merged into (issue 38, point 5), as a
merged paper (MergedPaper) and a merged tag (TagAlias) do: their old page answers 301 to the
kept author's, the list page's author filter and the exports take the old id for the kept
author, and a saved search on them keeps counting and mailing only the kept author's new
papers. An author deleted outright leaves a saved search that matches nothing, and its owner
is told, rather than one that widens to every paper."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

import pytest
from django.core import mail
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from alerts.models import SavedSearch
from alerts.queries import new_counts
from papers import identity
from papers.models import Author, Paper, TagKind
from papers.services import merge_authors
from papers.tags.service import merge_tags
from tests.factories import make_paper, make_tag, make_user

pytestmark = pytest.mark.django_db


def author(name: str) -> Author:
    return Author.objects.get(name=name)


def make_old(*papers: Paper) -> None:
    """Papers imported yesterday: before any saved search of the test."""
    yesterday = timezone.now() - timedelta(days=1)
    Paper.objects.filter(pk__in=[paper.pk for paper in papers]).update(created_at=yesterday)


def saved(owner, query: str, name: str = "Saved") -> SavedSearch:
    search = SavedSearch.objects.create(owner=owner, name=name, query=query, alert=True)
    earlier = timezone.now() - timedelta(minutes=5)
    SavedSearch.objects.filter(pk=search.pk).update(created_at=earlier, last_seen_at=earlier)
    search.refresh_from_db()
    return search


def send_digests() -> None:
    call_command("send_digests", stdout=io.StringIO())


def admin_merge(admin_client, keep: Author, other: Author) -> None:
    admin_client.post(
        reverse("admin:papers_author_changelist"),
        {
            "action": "merge_authors",
            "_selected_action": [keep.pk, other.pk],
            "confirm": "yes",
            "target": keep.pk,
        },
    )
    assert not Author.objects.filter(pk=other.pk).exists()


@pytest.fixture
def spellings():
    """Two spellings of one person, each with an old paper, and someone else."""
    make_old(
        make_paper("Old paper by the initials", authors=["Y. Bengio"]),
        make_paper("Old paper by the full name", authors=["Yoshua Bengio"]),
        make_paper("Old paper by someone else", authors=["Ada Lovelace"]),
    )
    return author("Yoshua Bengio"), author("Y. Bengio")


# --- saved searches and the digest ----------------------------------------------------------


def test_a_saved_search_on_a_merged_author_counts_and_mails_only_its_new_paper(
    admin_client, spellings
):
    kept, merged = spellings
    ana = make_user("ana")
    search = saved(ana, f"author={merged.pk}", name="Bengio")
    admin_merge(admin_client, kept, merged)
    make_paper("New paper by the kept author", authors=[kept])
    make_paper("Unrelated new paper", authors=["Ada Lovelace"])

    assert new_counts(ana, [search]) == {search.pk: 1}
    send_digests()
    (message,) = mail.outbox
    assert message.to == ["ana@example.org"] and "1 new paper" in message.subject
    assert "New paper by the kept author" in message.body
    assert "Unrelated new paper" not in message.body


def test_a_saved_search_whose_author_was_deleted_matches_nothing_and_says_so(client, spellings):
    kept, gone = spellings
    gone_id = gone.pk
    ana = make_user("ana")
    stale = saved(ana, f"author={gone_id}", name="Gone")
    living = saved(ana, f"author={kept.pk}", name="Living")  # the positive control
    gone.delete()
    make_paper("New paper by the living author", authors=[kept])
    make_paper("Unrelated new paper", authors=["Ada Lovelace"])

    assert new_counts(ana, [stale, living]) == {stale.pk: 0, living.pk: 1}
    send_digests()
    (message,) = mail.outbox
    assert "1 new paper" in message.subject and "Unrelated new paper" not in message.body
    assert "Gone" not in message.body

    client.force_login(ana)
    html = client.get(reverse("alerts:searches")).content.decode()
    stale_row = html[html.index(f'id="saved-search-{stale.pk}"') :]
    stale_row = stale_row[: stale_row.index("</li>")]
    assert "matches nothing" in stale_row and f"author #{gone_id}" in stale_row
    living_row = html[html.index(f'id="saved-search-{living.pk}"') :]
    assert "matches nothing" not in living_row[: living_row.index("</li>")]


def test_a_saved_search_keeps_matching_when_only_some_of_its_authors_vanished(spellings):
    kept, gone = spellings
    ana = make_user("ana")
    search = saved(ana, f"author={gone.pk}&author={kept.pk}")
    gone.delete()
    make_paper("New paper by the living author", authors=[kept])
    make_paper("Unrelated new paper", authors=["Ada Lovelace"])
    assert new_counts(ana, [search]) == {search.pk: 1}


def test_deleting_the_kept_author_leaves_the_merged_id_naming_nobody(client, spellings):
    kept, merged = spellings
    merge_authors(target=kept, others=[merged])
    ana = make_user("ana")
    search = saved(ana, f"author={merged.pk}")
    Author.objects.filter(pk=kept.pk).delete()
    make_paper("Unrelated new paper", authors=["Ada Lovelace"])
    assert new_counts(ana, [search]) == {search.pk: 0}
    assert client.get(reverse("papers:author", args=[merged.pk])).status_code == 404


# --- addresses --------------------------------------------------------------------------------


def test_the_old_author_url_answers_301_to_the_kept_author(client, spellings):
    kept, merged = spellings
    old_url = reverse("papers:author", args=[merged.pk])
    assert client.get(old_url).status_code == 200  # before the merge: their own page
    merge_authors(target=kept, others=[merged])

    response = client.get(old_url, {"page": "2"})
    assert response.status_code == 301
    assert response["Location"] == f"{reverse('papers:author', args=[kept.pk])}?page=2"
    assert client.get(reverse("papers:author", args=[999_999])).status_code == 404


def test_merged_twice_the_old_url_leads_to_the_author_who_now_holds_both(client, spellings):
    kept, merged = spellings
    merge_authors(target=kept, others=[merged])
    final = author("Ada Lovelace")  # not the same person, but a curator may decide so
    merge_authors(target=final, others=[kept])
    for old in (merged, kept):
        response = client.get(reverse("papers:author", args=[old.pk]))
        assert response.status_code == 301
        assert response["Location"] == reverse("papers:author", args=[final.pk])


def test_the_list_page_author_filter_with_the_old_id_shows_the_kept_author_s_papers(
    client, spellings
):
    kept, merged = spellings
    merge_authors(target=kept, others=[merged])

    response = client.get(reverse("papers:list"), {"author": merged.pk, "q": "paper"})
    assert response.status_code == 301
    assert response["Location"] == f"{reverse('papers:list')}?author={kept.pk}&q=paper"
    page = client.get(reverse("papers:list"), {"author": merged.pk}, follow=True)
    titles = sorted(paper.title for paper in page.context["papers"])
    assert titles == ["Old paper by the full name", "Old paper by the initials"]
    assert page.context["ignored"] == []


def test_exports_of_the_old_author_are_the_kept_author_s(client, spellings):
    kept, merged = spellings
    merge_authors(target=kept, others=[merged])

    response = client.get(reverse("annotations:author-export", args=[merged.pk, "csv"]))
    assert response.status_code == 301
    assert response["Location"] == reverse("annotations:author-export", args=[kept.pk, "csv"])
    # The list page's export takes the parameters as the page does, without a redirect.
    body = client.get(reverse("annotations:papers-export", args=["csv"]), {"author": merged.pk})
    text = body.getvalue().decode("utf-8-sig")
    assert "Old paper by the initials" in text and "Old paper by the full name" in text
    assert "someone else" not in text


def test_a_search_saved_with_the_old_id_is_saved_as_the_kept_author(client, spellings):
    kept, merged = spellings
    merge_authors(target=kept, others=[merged])
    ana = make_user("ana")
    client.force_login(ana)
    client.post(reverse("alerts:save"), {"name": "Bengio", "query": f"author={merged.pk}"})
    assert SavedSearch.objects.get(owner=ana).query == f"author={kept.pk}"


def test_the_kept_author_s_admin_page_lists_the_authors_merged_into_them(admin_client, spellings):
    kept, merged = spellings
    page = reverse("admin:papers_author_change", args=[kept.pk])
    assert "merged authors" not in admin_client.get(page).content.decode().lower()
    admin_merge(admin_client, kept, merged)
    html = admin_client.get(page).content.decode()
    assert "merged authors" in html.lower() and "Y. Bengio" in html


# --- one resolver --------------------------------------------------------------------------


def test_only_the_resolver_reads_merged_records_by_old_id_or_slug():
    """One home for "the kept record of this id or slug": a caller that looked a merged paper,
    author or tag up itself would miss a kind (as the saved searches missed authors)."""
    root = Path(__file__).resolve().parents[1]
    apps = ["papers", "annotations", "alerts", "recommendations", "operations", "pdfs"]
    sources = {
        str(path.relative_to(root)): path.read_text("utf-8")
        for app in apps
        for path in (root / app).rglob("*.py")
        if "migrations" not in path.parts
    }
    assert {path for path, text in sources.items() if "MergedAuthor.objects" in text} == {
        "papers/identity.py",
        "papers/services.py",  # writes them, in the author merge
    }
    # Papers: written by the merge, matched by forum id or abstract by the importer; read by
    # old id only in the resolver.
    assert {path for path, text in sources.items() if "MergedPaper.objects" in text} == {
        "papers/identity.py",
        "papers/services.py",
        "papers/importing/loader.py",
        "papers/importing/review_rows.py",
    }
    assert [
        path for path, text in sources.items() if "paper_id=pk" in text and "Merged" in text
    ] == ["papers/identity.py"]


def test_one_resolution_answers_every_kind_living_or_merged_in_two_queries(
    spellings, django_assert_num_queries
):
    kept, merged = spellings
    merge_authors(target=kept, others=[merged])
    venue, old_venue = make_tag("ICLR 2024"), make_tag("ICLR 24")
    merge_tags(target=venue, others=[old_venue])
    lovelace = author("Ada Lovelace")
    venue_kind = str(TagKind.VENUE)

    # living tags and authors together; the merged ones not found there, together
    with django_assert_num_queries(2):
        resolved = identity.resolve(
            {venue_kind: [venue.slug, old_venue.slug, "never-was"]},
            [lovelace.pk, merged.pk, 999_999],
        )
    assert resolved.tag(venue_kind, venue.slug) == identity.Kept(venue.pk, venue.slug, venue.name)
    assert resolved.tag(venue_kind, old_venue.slug) == identity.Kept(
        venue.pk, venue.slug, venue.name, merged=True
    )
    assert resolved.author(lovelace.pk) == identity.Kept(lovelace.pk, "", "Ada Lovelace")
    assert resolved.author(merged.pk) == identity.Kept(kept.pk, "", kept.name, merged=True)
    assert resolved.tag(venue_kind, "never-was") is None and resolved.author(999_999) is None
    with django_assert_num_queries(1):  # all found: the merged records are not read
        identity.resolve({venue_kind: [venue.slug]}, [lovelace.pk])
