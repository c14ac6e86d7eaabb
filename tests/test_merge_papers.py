"""Merging duplicate papers: nothing anyone added is lost, and the merged identity lives on."""

from __future__ import annotations

import io
import json
import re

import pytest
import tantivy
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.contrib.messages import get_messages
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from annotations.models import Comment, Note, Priority, ReadingListItem, ReadingStatus
from highlights.models import Highlight
from papers.duplicate_keys import DUPLICATE_ABSTRACT_WORDS
from papers.duplicates import DUPLICATE_ABSTRACT_GROUP_MAX, flag_duplicate_papers
from papers.importing.pipeline import import_paths
from papers.models import MergedPaper, Paper, PaperTag, TagKind
from papers.search import schema, sync
from papers.services import merge_papers
from tests.factories import (
    make_comment,
    make_lab_tag,
    make_note,
    make_paper,
    make_reading_list,
    make_user,
)
from tests.highlight_helpers import make_highlight

CHANGELIST = "admin:papers_paper_changelist"
# A count of a kind of row that can be private to a member: never shown to a curator.
PRIVATE_COUNT = re.compile(r"\d+\s+(notes?|highlights?|reading list items?|recommendations?)\b")

pytestmark = pytest.mark.django_db


def found_by_title(word: str) -> list[int]:
    searcher = sync.current_searcher()
    query = tantivy.Query.term_query(schema.build_schema(), schema.TITLE, word)
    hits = searcher.search(query, 100).hits
    return sorted(searcher.doc(address).get_first(schema.ID) for _, address in hits)


@pytest.fixture
def pair():
    keep = make_paper("Axolotl Attention Is All You Need", authors=["Ann One"], pdf_url="")
    other = make_paper(
        "Axolotl attention is all you need.",
        authors=["A. One", "Bob Two"],
        pdf_url="https://example.org/other.pdf",
        tags=[("ICLR 2024", TagKind.VENUE)],
    )
    return keep, other


def test_merging_keeps_every_annotation(pair, user, other_user):
    keep, other = pair
    make_note(user, keep, "Alice on the kept paper.")
    make_note(user, other, "Alice on the duplicate.")  # same owner, both papers
    make_note(other_user, other, "Bob on the duplicate.")
    both = make_reading_list(user, "Both", papers=[keep, other])
    only_other = make_reading_list(other_user, "Other only", papers=[other])
    make_comment(user, keep, "First thread.")
    make_comment(other_user, other, "Second thread.")
    make_lab_tag(keep, "transformers", added_by=user)
    make_lab_tag(other, "transformers", added_by=other_user)  # the same lab tag twice
    make_lab_tag(other, "attention", added_by=other_user)

    result = merge_papers(target=keep, others=[other])

    assert not Paper.objects.filter(pk=other.pk).exists()
    assert sorted(Note.objects.filter(paper=keep).values_list("owner__username", "body")) == [
        ("alice", "Alice on the duplicate."),
        ("alice", "Alice on the kept paper."),
        ("bob", "Bob on the duplicate."),
    ]
    assert list(
        ReadingListItem.objects.filter(reading_list=both).values_list("paper", flat=True)
    ) == [keep.pk]
    assert list(only_other.items.values_list("paper", flat=True)) == [keep.pk]
    assert sorted(Comment.objects.filter(paper=keep).values_list("body", flat=True)) == [
        "First thread.",
        "Second thread.",
    ]
    assert sorted(PaperTag.objects.filter(paper=keep).values_list("tag__kind", "tag__name")) == [
        ("lab", "attention"),
        ("lab", "transformers"),
        ("venue", "ICLR 2024"),
    ]
    assert result.moved[Note] == 2
    assert result.dropped == {ReadingListItem: 1, PaperTag: 1}
    # Each model named in the singular or plural its count needs; private kinds never counted.
    summary = result.summary()
    assert "moved 1 comment, 2 paper tags; dropped as duplicates 1 paper tag." in summary
    assert not PRIVATE_COUNT.search(summary)


def test_a_list_holding_both_papers_keeps_how_far_the_member_got(pair, user):
    keep, other = pair
    both = make_reading_list(user, "Both", papers=[keep, other])
    both.items.filter(paper=keep).update(status=ReadingStatus.TO_READ)
    both.items.filter(paper=other).update(status=ReadingStatus.READ, priority=Priority.HIGH)

    merge_papers(target=keep, others=[other])

    [item] = both.items.all()
    assert (item.paper_id, item.status, item.priority) == (
        keep.pk,
        ReadingStatus.READ,
        Priority.HIGH,
    )


def test_the_kept_item_s_own_status_and_priority_win_when_further(pair, user):
    keep, other = pair
    both = make_reading_list(user, "Both", papers=[keep, other])
    both.items.filter(paper=keep).update(status=ReadingStatus.READING, priority=Priority.LOW)
    both.items.filter(paper=other).update(status=ReadingStatus.SKIPPED, priority=Priority.HIGH)

    merge_papers(target=keep, others=[other])

    [item] = both.items.all()
    assert (item.status, item.priority) == (ReadingStatus.READING, Priority.LOW)


def test_the_target_keeps_its_fields_and_authors_and_fills_the_blanks(pair):
    keep, other = pair
    result = merge_papers(target=keep, others=[other])
    keep.refresh_from_db()
    assert keep.title == "Axolotl Attention Is All You Need"
    assert keep.pdf_url == "https://example.org/other.pdf"
    assert keep.author_names == "Ann One"
    assert result.filled == {"pdf_url": other.pk}
    assert "filled pdf_url from #" in result.summary()


def test_a_target_without_authors_or_forum_id_takes_the_first_others():
    keep = make_paper(
        "", forum_id="", needs_curation=True, curation_reason="possible duplicate of #1"
    )
    other = make_paper("Full", authors=["Ann One", "Bob Two"], forum_id="abc")
    result = merge_papers(target=keep, others=[other])
    keep.refresh_from_db()
    assert (keep.title, keep.forum_id, keep.author_names) == ("Full", "abc", "Ann One, Bob Two")
    assert result.authors_from == other.pk
    assert not keep.needs_curation  # the duplicate flag is resolved by the merge


def test_the_merged_identity_is_remembered_and_follows_a_later_merge(pair):
    keep, other = pair
    merge_papers(target=keep, others=[other])
    final = make_paper("Third copy")
    merge_papers(target=final, others=[keep])
    assert sorted(MergedPaper.objects.values_list("paper_id", "forum_id", "into")) == sorted(
        [(other.pk, other.forum_id, final.pk), (keep.pk, keep.forum_id, final.pk)]
    )


def test_the_merged_papers_url_leads_to_the_kept_paper(client, pair):
    keep, other = pair
    old_url = other.get_absolute_url()
    merge_papers(target=keep, others=[other])

    response = client.get(old_url, {"from": "q=axolotl", "at": "1"})

    assert response.status_code == 301
    assert response["Location"] == f"{keep.get_absolute_url()}?from=q%3Daxolotl&at=1"
    assert client.get(keep.get_absolute_url()).status_code == 200
    # Merged again, the old link follows to the paper that now holds both.
    final = make_paper("Third copy")
    merge_papers(target=final, others=[keep])
    assert client.get(old_url)["Location"] == final.get_absolute_url()


@pytest.mark.parametrize("pk", [999_999, 10**30])
def test_a_paper_that_never_was_is_404(client, pk):
    assert client.get(f"/papers/{pk}/").status_code == 404


def test_the_search_index_finds_the_kept_paper_and_not_the_merged_one(pair):
    keep, other = pair
    assert found_by_title("axolotl") == sorted([keep.pk, other.pk])
    merge_papers(target=keep, others=[other])
    assert found_by_title("axolotl") == [keep.pk]


# --- re-imports ---------------------------------------------------------------------------


def write_jsonl(path, *records) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    return str(path)


def test_a_reimport_of_the_merged_forum_id_updates_the_kept_paper(tmp_path, pair):
    keep, other = pair
    merge_papers(target=keep, others=[other])
    record = {
        "title": "Axolotl attention is all you need.",
        "url": f"https://openreview.net/forum?id={other.forum_id}",
        "authors": ["A. One", "Bob Two"],
        "abstract": other.abstract,
        "pdf": "https://example.org/newer.pdf",
        "tags": "NeurIPS 2024",
    }
    import_paths([write_jsonl(tmp_path / "again.jsonl", record)])
    assert Paper.objects.count() == 1
    keep.refresh_from_db()
    assert keep.pdf_url == "https://example.org/newer.pdf"
    assert keep.forum_id != other.forum_id  # the kept paper's identity and forum page stay
    assert keep.forum_url == ""
    assert "NeurIPS 2024" in keep.tags.values_list("name", flat=True)


def test_a_reimport_of_the_merged_abstract_alone_updates_the_kept_paper(tmp_path, pair):
    keep, other = pair
    merge_papers(target=keep, others=[other])
    record = {"title": "", "abstract": other.abstract, "pdf": "https://example.org/v3.pdf"}
    import_paths([write_jsonl(tmp_path / "abstract.jsonl", record)])
    assert list(Paper.objects.values_list("pk", "pdf_url")) == [
        (keep.pk, "https://example.org/v3.pdf")
    ]


def test_another_forum_id_with_the_merged_abstract_is_a_paper_of_its_own(tmp_path, pair):
    keep, other = pair
    merge_papers(target=keep, others=[other])
    record = {
        "title": "T",
        "abstract": other.abstract,
        "url": "https://openreview.net/forum?id=zz9",
    }
    import_paths([write_jsonl(tmp_path / "new.jsonl", record)])
    assert Paper.objects.count() == 2


# --- the admin action ---------------------------------------------------------------------


@pytest.fixture
def curator(client):
    """Staff who may change and delete papers, and nothing more."""
    user = make_user("curator", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            content_type__app_label="papers",
            codename__in=["view_paper", "change_paper", "delete_paper"],
        )
    )
    client.force_login(user)
    return client


def merge_post(client, papers: list[Paper], *, keep: Paper | None = None):
    data = {"action": "merge_papers", "_selected_action": [p.pk for p in papers]}
    if keep is not None:
        data.update(confirm="yes", target=keep.pk)
    return client.post(reverse(CHANGELIST), data, follow=keep is not None)


def test_the_action_asks_which_paper_to_keep_and_shows_what_moves(curator, pair, user):
    keep, other = pair
    make_note(user, other)
    make_comment(user, other)
    make_reading_list(user, papers=[other])
    response = merge_post(curator, [keep, other])
    assert response.status_code == 200
    assert [t.name for t in response.templates][0] == "admin/papers/paper/merge.html"
    content = response.content.decode()
    assert other.forum_id in content and "Bob Two" in content
    # Each count says its model in the number it needs, never "1 comments".
    assert "1 comment, 1 paper tag" in content
    assert Paper.objects.count() == 2  # nothing merged before confirmation


def test_the_merge_page_counts_no_private_annotations(curator, pair, user, other_user):
    keep, other = pair
    make_note(user, other)
    make_note(other_user, other)
    make_reading_list(user, papers=[other])
    content = merge_post(curator, [keep, other]).content.decode()
    assert not PRIVATE_COUNT.search(content)
    # The paper's own row says what counts, and only that: its paper tag.
    assert "<td>1 paper tag</td>" in content


def test_the_merge_page_says_private_annotations_move_with_the_paper(curator, pair, user):
    keep, other = pair
    make_note(user, other)
    content = merge_post(curator, [keep, other]).content.decode()
    assert (
        "Members' private annotations (highlights, notes, reading list items, recommendations, "
        "suggestions) move with\nthe paper too. They are not counted here: they are theirs."
    ) in content


def test_the_confirmation_page_posts_back_the_selection_and_the_action(curator, pair):
    keep, other = pair
    page = merge_post(curator, [keep, other]).content.decode()
    hidden = re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]+)">', page)
    assert ("action", "merge_papers") in hidden and ("confirm", "yes") in hidden
    data = [pair for pair in hidden if pair[0] != "csrfmiddlewaretoken"]
    assert sorted(v for k, v in data if k == "_selected_action") == sorted(
        [str(keep.pk), str(other.pk)]
    )
    assert 'type="submit" class="default" value="Merge papers"' in page
    fields = {}
    for name, value in [*data, ("target", str(keep.pk))]:
        fields.setdefault(name, []).append(value)
    curator.post(reverse(CHANGELIST), fields)
    assert list(Paper.objects.values_list("pk", flat=True)) == [keep.pk]


def test_confirming_merges_and_reports(curator, pair, user):
    keep, other = pair
    make_note(user, other)
    response = merge_post(curator, [keep, other], keep=keep)
    assert list(Paper.objects.values_list("pk", flat=True)) == [keep.pk]
    assert Note.objects.get().paper == keep
    [message] = [str(m) for m in get_messages(response.wsgi_request)]
    assert message.startswith(f"Merged #{other.pk} into #{keep.pk}")
    assert LogEntry.objects.filter(object_id=str(keep.pk), action_flag=CHANGE).exists()


def test_the_merge_report_and_history_count_no_private_annotations(curator, pair, user, other_user):
    keep, other = pair
    make_note(user, other, "Alice's own.")
    make_note(other_user, other, "Bob's own.")
    make_reading_list(user, "Mine", papers=[other])
    make_reading_list(other_user, "Both", papers=[keep, other])  # one item dropped
    make_highlight(user, other)
    response = merge_post(curator, [keep, other], keep=keep)
    assert Note.objects.filter(paper=keep).count() == 2  # they did move
    assert Highlight.objects.get().paper == keep
    [message] = [str(m) for m in get_messages(response.wsgi_request)]
    [entry] = LogEntry.objects.filter(object_id=str(keep.pk), action_flag=CHANGE)
    history = entry.get_change_message()
    for text in (message, history):
        assert not PRIVATE_COUNT.search(text)
        assert "moved 1 paper tag." in text  # what the lab sees is still counted
        assert (
            "Members' private annotations (highlights, notes, reading list items, "
            "recommendations, suggestions), if any, went to the kept paper too; "
            "they are not counted."
        ) in text


def test_the_merge_report_is_the_same_with_or_without_private_annotations(pair, user):
    keep, other = pair
    bare_keep = make_paper("Bare kept paper", pdf_url="")
    bare_other = make_paper(
        "Bare other paper",
        pdf_url="https://example.org/bare.pdf",
        tags=[("ICLR 2024", TagKind.VENUE)],
    )
    make_note(user, other)
    make_reading_list(user, papers=[keep, other])
    annotated = merge_papers(target=keep, others=[other]).summary()
    bare = merge_papers(target=bare_keep, others=[bare_other]).summary()

    def anonymous(summary: str) -> str:
        return re.sub(r"#\d+", "#", re.sub(r"“[^”]*”", "“”", summary))

    # Only the ids and the title differ: nothing says whether members annotated the paper.
    assert anonymous(annotated) == anonymous(bare)


def test_the_action_needs_two_papers(curator, pair):
    keep, _ = pair
    response = curator.post(
        reverse(CHANGELIST), {"action": "merge_papers", "_selected_action": [keep.pk]}, follow=True
    )
    assert "Select at least two papers to merge." in [
        str(m) for m in get_messages(response.wsgi_request)
    ]
    assert Paper.objects.count() == 2


def test_the_action_is_refused_without_delete_permission(curator, pair):
    user = get_user_model().objects.get(username="curator")
    user.user_permissions.remove(Permission.objects.get(codename="delete_paper"))
    keep, other = pair
    merge_post(curator, [keep, other], keep=keep)
    assert Paper.objects.count() == 2


def test_the_action_merges_at_most_ten_papers(curator):
    papers = [make_paper() for _ in range(11)]
    response = merge_post(curator, papers, keep=papers[0])
    assert any("at most 10" in str(m) for m in get_messages(response.wsgi_request))
    assert Paper.objects.count() == 11


# --- flagging likely duplicates -----------------------------------------------------------


def test_papers_with_the_same_normalised_title_are_flagged(pair):
    keep, other = pair
    make_paper("Axolotl attention, is all you need")  # a third spelling
    unrelated = make_paper("Something else")
    untitled = [make_paper(""), make_paper("")]
    out = io.StringIO()
    call_command("flag_duplicate_papers", stdout=out)
    assert "Flagged 3 papers" in out.getvalue()
    keep.refresh_from_db()
    other.refresh_from_db()
    assert keep.needs_curation and keep.curation_reason == f"possible duplicate of #{other.pk}"
    assert other.curation_reason == f"possible duplicate of #{keep.pk}"
    assert not Paper.objects.filter(pk__in=[unrelated.pk, *(p.pk for p in untitled)]).filter(
        needs_curation=True
    )


ABSTRACT = (
    "We study how axolotls regrow their limbs after injury and what this tells us about "
    "learning systems that must repair themselves. Our model treats regeneration as an "
    "iterative denoising process over a latent body plan, trained on thousands of recorded "
    "regrowth sequences, and recovers the shape of a lost limb from a few cells alone."
)


def _flagged() -> set[int]:
    return set(Paper.objects.filter(needs_curation=True).values_list("pk", flat=True))


def test_papers_with_near_identical_abstracts_are_flagged(db):
    original = make_paper("Regrowing limbs", abstract=ABSTRACT)
    # Another revision: a new title and a sentence more at the end.
    longer = make_paper("Limb regrowth as denoising", abstract=ABSTRACT + " Code is public.")
    # Another: the opening reworded, the ending kept.
    reworded = make_paper("Axolotl limbs", abstract="In this paper we look at " + ABSTRACT[9:])
    # The untitled abstract-only record of the same paper (the importer queued it already).
    untitled = make_paper("", abstract=ABSTRACT.upper(), needs_curation=True)
    unrelated = make_paper("Something else", abstract=" ".join(ABSTRACT.split()[::-1]))
    assert flag_duplicate_papers() == 3
    assert _flagged() == {original.pk, longer.pk, reworded.pk, untitled.pk}
    longer.refresh_from_db()
    assert longer.curation_reason == f"possible duplicate of #{original.pk}"
    assert not Paper.objects.get(pk=unrelated.pk).needs_curation


def test_stock_and_template_abstracts_do_not_make_duplicates(db):
    for number in range(4):
        make_paper(f"Unrelated paper {number}", abstract="No abstract available.")
    # A series whose abstracts open with the same long boilerplate: a template, not copies.
    boilerplate = " ".join(ABSTRACT.split()[:DUPLICATE_ABSTRACT_WORDS])
    for number in range(DUPLICATE_ABSTRACT_GROUP_MAX + 1):
        make_paper(f"Report {number}", abstract=f"{boilerplate} Finding number {number}.")
    assert flag_duplicate_papers() == 0


def test_flagging_keeps_other_reasons_and_reviews(pair):
    keep, other = pair
    Paper.objects.filter(pk=keep.pk).update(needs_curation=True, curation_reason="Check the PDF")
    Paper.objects.filter(pk=other.pk).update(reviewed_at=timezone.now())
    assert flag_duplicate_papers() == 0
    keep.refresh_from_db()
    assert keep.curation_reason == "Check the PDF"


def test_merging_flagged_papers_clears_the_flag(pair):
    keep, other = pair
    flag_duplicate_papers()
    merge_papers(target=keep, others=[other])
    keep.refresh_from_db()
    assert (keep.needs_curation, keep.curation_reason) == (False, "")
