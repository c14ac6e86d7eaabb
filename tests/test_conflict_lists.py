"""Issue 27, point 3, the rest: import conflicts about an author list or tags are settled like
scalar ones. The conflict keeps both values structurally (authors with their OpenReview
profile ids, in order; tags with their kinds); "Take incoming" rebuilds the authorships as an
import would, and adds tags through the tag service; the choice holds on the next import of
the same file. Conflicts recorded before these values were kept are still refused, saying why.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.urls import reverse

from papers.importing.pipeline import import_paths
from papers.models import Authorship, ImportConflict, Paper, SearchChange, Tag, TagKind
from papers.tags.service import merge_tags
from tests.factories import make_tag
from tests.test_admin_conflict_settling import CHANGELIST, counts, settle

pytestmark = pytest.mark.django_db

KEYWORD = TagKind.KEYWORD
ANN = ("Ann One", "~Ann_One1")
XIA_1, XIA_2 = ("Xia Li", "~Xia_Li1"), ("Xia Li", "~Xia_Li2")
BO = ("Bo Two", "")


def write(path: Path, authors, *, rewrite: int = 0, keywords=("Diffusion",)) -> str:
    """One OpenReview note (API v1) with `authors` as (name, profile id) pairs; `rewrite` adds
    blank lines, a new download of the same file."""
    content = {
        "title": "Disputed Paper",
        "abstract": "The abstract.",
        "authors": [name for name, _ in authors],
        "authorids": [
            profile or f"{name.split()[0].lower()}@example.org" for name, profile in authors
        ],
        "keywords": list(keywords),
    }
    note = {"id": "conf1", "forum": "conf1", "content": content}
    path.write_text(json.dumps(note) + "\n" + "\n" * rewrite, "utf-8")
    return str(path)


def authors_of(paper: Paper) -> list[tuple[int, str, str]]:
    """(author id, name, profile id) of the paper's authorships, in order."""
    rows = Authorship.objects.filter(paper=paper).order_by("position")
    return [
        (pk, name, profile or "")
        for pk, name, profile in rows.values_list("author", "author__name", "author__openreview_id")
    ]


def keywords_of(paper: Paper) -> list[str]:
    return sorted(paper.tags.filter(kind=KEYWORD).values_list("name", flat=True))


@pytest.fixture
def curated_authors(tmp_path) -> ImportConflict:
    """A curator's author list kept against a file's, with two people named Xia Li."""
    import_paths([write(tmp_path / "a.jsonl", [ANN])])
    Paper.objects.update(curator_edited_fields=["authors"])
    import_paths([write(tmp_path / "a.jsonl", [XIA_1, ANN, XIA_2])])
    return ImportConflict.objects.get(field="authors")


def test_an_author_conflict_keeps_both_lists_with_profile_ids(curated_authors):
    assert curated_authors.previous_data == [{"name": "Ann One", "profile_id": "~Ann_One1"}]
    assert curated_authors.incoming_data == [
        {"name": "Xia Li", "profile_id": "~Xia_Li1"},
        {"name": "Ann One", "profile_id": "~Ann_One1"},
        {"name": "Xia Li", "profile_id": "~Xia_Li2"},
    ]


def test_take_incoming_rebuilds_the_authors_as_an_import_would(
    admin_client, curated_authors, tmp_path
):
    ((ann_pk, *_),) = authors_of(Paper.objects.get())
    response = settle(admin_client, curated_authors, "taken")
    assert "Take incoming: 1 conflict settled." in response.content.decode()
    paper = Paper.objects.get()
    rebuilt = authors_of(paper)
    assert [(name, profile) for _, name, profile in rebuilt] == [XIA_1, ANN, XIA_2]
    assert rebuilt[1][0] == ann_pk  # the same person, found by profile id
    assert paper.author_names == "Xia Li, Ann One, Xia Li"
    # A paper imported with the same list has the same authors in the same order.
    note = json.loads(Path(write(tmp_path / "b.jsonl", [XIA_1, ANN, XIA_2])).read_text())
    note.update(id="conf2", forum="conf2")
    (tmp_path / "b.jsonl").write_text(json.dumps(note) + "\n", "utf-8")
    import_paths([str(tmp_path / "b.jsonl")])
    assert authors_of(Paper.objects.get(forum_id="conf2")) == rebuilt
    # The same file again: nothing changes, nothing is disputed.
    report = import_paths([write(tmp_path / "a.jsonl", [XIA_1, ANN, XIA_2], rewrite=1)])
    assert counts(report) == (0, 0, 1, 0)
    assert authors_of(Paper.objects.get(forum_id="conf1")) == rebuilt
    assert not ImportConflict.objects.filter(resolved_at__isnull=True).exists()
    # The curator's choice is kept: a source that changes the list again is a new conflict.
    report = import_paths([write(tmp_path / "a.jsonl", [BO], rewrite=2)])
    assert counts(report) == (0, 0, 1, 1)
    assert authors_of(Paper.objects.get(forum_id="conf1")) == rebuilt


def test_keep_current_of_two_sources_restores_the_replaced_author_list(admin_client, tmp_path):
    import_paths([write(tmp_path / "a.jsonl", [ANN, BO])])
    before = authors_of(Paper.objects.get())
    import_paths([write(tmp_path / "b.jsonl", [XIA_1])])
    conflict = ImportConflict.objects.get(field="authors")
    assert Paper.objects.get().author_names == "Xia Li"  # applied
    settle(admin_client, conflict, "kept")
    paper = Paper.objects.get()
    assert authors_of(paper) == before and paper.author_names == "Ann One, Bo Two"
    assert "authors" in paper.curator_edited_fields
    # Both files again, in turn, twice: no flip, no update, no new conflict.
    for rewrite in (1, 2):
        for name, authors in (("a.jsonl", [ANN, BO]), ("b.jsonl", [XIA_1])):
            report = import_paths([write(tmp_path / name, authors, rewrite=rewrite)])
            assert counts(report) == (0, 0, 1, 0)
    assert authors_of(Paper.objects.get()) == before


@pytest.fixture
def curated_tags(tmp_path) -> ImportConflict:
    """Keywords a curator pinned; the file brings two more, one a spelling merged into another
    keyword."""
    kept = make_tag("large language models", KEYWORD)
    merge_tags(target=kept, others=[make_tag("LLMs", KEYWORD)])
    import_paths([write(tmp_path / "a.jsonl", [ANN])])
    Paper.objects.update(curator_edited_fields=["tags"])
    import_paths([write(tmp_path / "a.jsonl", [ANN], keywords=["Diffusion", "LLMs", "Sparsity"])])
    return ImportConflict.objects.get(field="tags")


def test_take_incoming_tags_through_the_tag_service(admin_client, curated_tags, tmp_path):
    assert curated_tags.incoming_data == [
        {"kind": "keyword", "name": "LLMs"},
        {"kind": "keyword", "name": "Sparsity"},
    ]
    assert keywords_of(Paper.objects.get()) == ["Diffusion"]  # the curator's tags were kept
    SearchChange.objects.all().delete()
    settle(admin_client, curated_tags, "taken")
    paper = Paper.objects.get()
    # The paper's search document holds its tags: the change is recorded for the index.
    assert list(SearchChange.objects.values_list("paper_id", flat=True)) == [paper.pk]
    # "LLMs" was merged into "large language models": the paper gets that, not "LLMs" again.
    assert keywords_of(paper) == ["Diffusion", "Sparsity", "large language models"]
    assert not Tag.objects.filter(kind=KEYWORD, name="LLMs").exists()
    curated_tags.refresh_from_db()
    assert curated_tags.resolution == "taken"
    # The same file again: nothing changes, nothing is disputed.
    report = import_paths(
        [write(tmp_path / "a.jsonl", [ANN], rewrite=1, keywords=["Diffusion", "LLMs", "Sparsity"])]
    )
    assert counts(report) == (0, 0, 1, 0)
    assert keywords_of(Paper.objects.get()) == ["Diffusion", "Sparsity", "large language models"]
    assert not ImportConflict.objects.filter(resolved_at__isnull=True).exists()


def test_keep_current_tags_leaves_the_curators_tags(admin_client, curated_tags):
    settle(admin_client, curated_tags, "kept")
    assert keywords_of(Paper.objects.get()) == ["Diffusion"]
    curated_tags.refresh_from_db()
    assert curated_tags.resolution == "kept"


def test_the_bulk_action_settles_list_conflicts_and_refuses_old_ones(admin_client, tmp_path):
    import_paths([write(tmp_path / "a.jsonl", [ANN])])
    Paper.objects.update(curator_edited_fields=["authors", "tags"])
    import_paths([write(tmp_path / "a.jsonl", [BO], keywords=["Diffusion", "Sparsity"])])
    new = list(ImportConflict.objects.order_by("field"))
    assert [c.field for c in new] == ["authors", "tags"]
    # One recorded before the structured values were kept: its names alone cannot be written.
    # (Of another paper: one listed after these about the same paper would be the newest.)
    old = ImportConflict.objects.create(
        paper=Paper.objects.create(title="Another Paper", author_names="Ann One"),
        kind="curated",
        field="authors",
        source="old.jsonl",
        previous="Ann One",
        incoming="Smith, Jr., John, Bo Two",
    )
    ids = [c.pk for c in [*new, old]]
    response = admin_client.post(
        reverse(CHANGELIST), {"action": "take_incoming", "_selected_action": ids}, follow=True
    )
    content = response.content.decode()
    assert "Take incoming: 2 conflicts settled." in content
    assert f"#{old.pk}: recorded without the authors as a list" in content
    assert "edit the authors on the paper&#x27;s page, then mark the conflict resolved" in content
    paper = Paper.objects.get(forum_id="conf1")
    assert paper.author_names == "Bo Two" and keywords_of(paper) == ["Diffusion", "Sparsity"]
    old.refresh_from_db()
    assert old.resolved_at is None
