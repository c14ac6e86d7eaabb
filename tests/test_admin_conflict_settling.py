"""Issue 27, point 3: a conflict a curator can settle. Its page shows the current and incoming
values as a word diff with "Keep current" and "Take incoming" (bulk actions too), each
recorded; a conflict settled by "Take incoming" stays settled on the next import of the same
file; who may only view conflicts settles none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from papers.importing.pipeline import import_paths
from papers.models import ImportConflict, Paper
from tests.factories import make_user

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:papers_importconflict_changelist"
PAPER = {
    "forum_id": "conf1",
    "title": "Disputed Paper",
    "abstract": "The first abstract of the paper.",
    "authors": ["Ann One"],
}


def write(path: Path, rewrite: int = 0, **values) -> str:
    """The record with `values`; `rewrite` adds blank lines, a new download of the same file."""
    path.write_text(json.dumps({**PAPER, **values}) + "\n" + "\n" * rewrite, "utf-8")
    return str(path)


def counts(report) -> tuple[int, int, int, int]:
    total = report.total
    return total.created, total.updated, total.unchanged, len(total.conflicts)


def settle(client, conflict: ImportConflict, resolution: str):
    url = reverse("admin:papers_importconflict_settle", args=[conflict.pk])
    return client.post(url, {"resolution": resolution}, follow=True)


@pytest.fixture
def curated(tmp_path) -> ImportConflict:
    """A curator's title kept against the file's: one open conflict."""
    import_paths([write(tmp_path / "a.jsonl")])
    Paper.objects.update(title="Curated Title", curator_edited_fields=["title"])
    import_paths([write(tmp_path / "a.jsonl", title="Disputed Paper, Revised")])
    return ImportConflict.objects.get()


def test_the_conflict_page_shows_a_word_diff_and_the_choices(admin_client, curated):
    page = admin_client.get(reverse("admin:papers_importconflict_change", args=[curated.pk]))
    content = page.content.decode()
    assert '<div class="word-diff"><del>Curated Title</del><ins>Disputed Paper, Revised</ins>' in (
        content
    )
    for value, label in (("kept", "Keep current"), ("taken", "Take incoming")):
        assert f'name="resolution" value="{value}">{label}</button>' in content


def test_take_incoming_stays_settled_on_the_next_import_of_the_same_file(
    admin_client, curated, tmp_path
):
    response = settle(admin_client, curated, "taken")
    assert "Take incoming: 1 conflict settled." in response.content.decode()
    paper = Paper.objects.get()
    assert paper.title == "Disputed Paper, Revised"
    curated.refresh_from_db()
    assert curated.resolution == "taken" and curated.resolved_by.username == "admin"
    assert curated.resolved_at is not None
    entry = LogEntry.objects.get(object_id=str(paper.pk))
    assert entry.change_message == (
        f"Import conflict #{curated.pk} (title, a.jsonl): take incoming."
    )
    # The same file again, as a new download: nothing changes, nothing is disputed.
    report = import_paths([write(tmp_path / "a.jsonl", 1, title="Disputed Paper, Revised")])
    assert counts(report) == (0, 0, 1, 0)
    assert Paper.objects.get().title == "Disputed Paper, Revised"
    assert not ImportConflict.objects.filter(resolved_at__isnull=True).exists()
    # The curator's choice is kept: a source that changes the title again is a new conflict.
    report = import_paths([write(tmp_path / "a.jsonl", 2, title="Third Title")])
    assert counts(report) == (0, 0, 1, 1)
    assert Paper.objects.get().title == "Disputed Paper, Revised"


def test_keep_current_of_two_sources_restores_and_keeps_the_replaced_value(admin_client, tmp_path):
    import_paths([write(tmp_path / "a.jsonl")])
    import_paths([write(tmp_path / "b.jsonl", abstract="The second abstract of the paper.")])
    conflict = ImportConflict.objects.get()
    assert Paper.objects.get().abstract == "The second abstract of the paper."  # applied
    settle(admin_client, conflict, "kept")
    paper = Paper.objects.get()
    assert paper.abstract == "The first abstract of the paper."
    assert "abstract" in paper.curator_edited_fields
    # Both files again, in turn, twice: no flip, no update, no new conflict.
    for rewrite in (1, 2):
        for name in ("a.jsonl", "b.jsonl"):
            abstract = (
                PAPER["abstract"] if name == "a.jsonl" else "The second abstract of the paper."
            )
            report = import_paths([write(tmp_path / name, rewrite, abstract=abstract)])
            assert counts(report) == (0, 0, 1, 0)
    assert Paper.objects.get().abstract == "The first abstract of the paper."


def test_take_incoming_as_a_bulk_action_settles_each_conflict(admin_client, tmp_path):
    for number in range(3):
        record = {**PAPER, "forum_id": f"conf{number}", "abstract": f"Abstract {number}."}
        (tmp_path / "a.jsonl").write_text(json.dumps(record) + "\n", "utf-8")
        import_paths([str(tmp_path / "a.jsonl")])
        Paper.objects.filter(forum_id=f"conf{number}").update(
            title="Curated", curator_edited_fields=["title"]
        )
        (tmp_path / "a.jsonl").write_text(json.dumps({**record, "title": "New"}) + "\n", "utf-8")
        import_paths([str(tmp_path / "a.jsonl")])
    ids = list(ImportConflict.objects.values_list("pk", flat=True))
    response = admin_client.post(
        reverse(CHANGELIST), {"action": "take_incoming", "_selected_action": ids}, follow=True
    )
    assert "Take incoming: 3 conflicts settled." in response.content.decode()
    assert set(Paper.objects.values_list("title", flat=True)) == {"New"}
    assert set(ImportConflict.objects.values_list("resolution", flat=True)) == {"taken"}


def test_an_old_author_conflict_is_not_rewritten_from_its_joined_names(admin_client, tmp_path):
    import_paths([write(tmp_path / "a.jsonl")])
    Paper.objects.update(curator_edited_fields=["authors"])
    import_paths([write(tmp_path / "a.jsonl", authors=["Smith, Jr., John", "Bo Two"])])
    conflict = ImportConflict.objects.get(field="authors")
    # As recorded before conflicts kept the lists (tests/test_conflict_lists.py: those that do).
    ImportConflict.objects.update(previous_data=None, incoming_data=None)
    content = settle(admin_client, conflict, "taken").content.decode()
    assert "edit the authors on the paper&#x27;s page, then mark the conflict resolved" in content
    conflict.refresh_from_db()
    assert conflict.resolved_at is None
    assert Paper.objects.get().author_names == "Ann One"


def test_a_curator_who_may_only_view_conflicts_cannot_settle_one(client, curated):
    viewer = make_user("viewer", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_importconflict"))
    client.force_login(viewer)
    page = client.get(reverse("admin:papers_importconflict_change", args=[curated.pk]))
    assert page.status_code == 200 and "Take incoming" not in page.content.decode()
    assert settle(client, curated, "taken").status_code == 403
    curated.refresh_from_db()
    assert curated.resolved_at is None
    assert Paper.objects.get().title == "Curated Title"


def test_the_conflict_list_costs_the_same_queries_for_more_conflicts(admin_client):
    def add_conflicts(start: int, stop: int) -> None:
        for number in range(start, stop):
            paper = Paper.objects.create(title=f"P{number}", abstract=f"A{number}.")
            ImportConflict.objects.create(
                paper=paper,
                kind="sources",
                field="abstract",
                source="x.jsonl",
                previous=f"Old abstract {number}.",
                incoming=f"New abstract {number}.",
            )

    add_conflicts(0, 2)
    admin_client.get(reverse(CHANGELIST))  # sessions and content types settled
    with CaptureQueriesContext(connection) as few:
        assert admin_client.get(reverse(CHANGELIST)).status_code == 200
    add_conflicts(2, 12)
    with CaptureQueriesContext(connection) as many:
        content = admin_client.get(reverse(CHANGELIST)).content.decode()
    assert len(many) == len(few)
    assert "<del>Old</del><ins>New</ins> abstract 11." in content
