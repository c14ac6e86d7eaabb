"""Import history: every import that writes is an ImportRun, and each paper points to the run
that created it and the one that last changed it."""

from __future__ import annotations

import getpass
import io

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from papers.importing import pipeline
from papers.importing.pipeline import ImportErrors, import_paths
from papers.models import ImportRun, Paper
from tests.factories import make_user
from tests.test_admin_papers import listed_titles
from tests.test_import_merging import write_jsonl

pytestmark = pytest.mark.django_db


def record(n: int, **fields) -> dict:
    return {
        "title": f"Paper {n}",
        "forum_id": f"hist{n}",
        "abstract": f"An abstract about topic {n}.",
        "authors": ["Ann One"],
        "tags": "ICLR 2024",
        **fields,
    }


def import_records(tmp_path, name: str, *records: dict) -> ImportRun:
    report = import_paths([write_jsonl(tmp_path / name, *records)])
    return ImportRun.objects.get(pk=report.import_run_id)


def runs_of(forum_id: str) -> tuple[int | None, int | None]:
    paper = Paper.objects.get(forum_id=forum_id)
    return paper.created_by_import_id, paper.changed_by_import_id


# --- what a run records -----------------------------------------------------------------


def test_run_records_per_file_and_total_counts(tmp_path):
    import_records(tmp_path, "v1.jsonl", record(1), record(2))
    Paper.objects.filter(forum_id="hist2").update(curator_edited_fields=["title"])
    first = write_jsonl(tmp_path / "a.jsonl", record(1), record(2, title="Not the curator's"))
    second = write_jsonl(tmp_path / "b.jsonl", record(3), record(1, pdf="https://x.org/1.pdf"))

    report = import_paths([first, second])

    run = ImportRun.objects.get(pk=report.import_run_id)
    assert run.files == [
        {"path": first, "created": 0, "updated": 0, "unchanged": 2, "conflicts": 1},
        {"path": second, "created": 1, "updated": 1, "unchanged": 0, "conflicts": 0},
    ]
    assert (run.created, run.updated, run.unchanged, run.conflicts) == (1, 1, 2, 1)
    assert run.started_at <= run.finished_at
    assert run.user is None


def test_command_records_who_and_prints_the_run_id(tmp_path):
    out = io.StringIO()
    path = write_jsonl(tmp_path / "a.jsonl", record(1))
    call_command("import_papers", path, stdout=out, stderr=io.StringIO())
    run = ImportRun.objects.get()
    assert run.invoked_by == f"manage.py import_papers ({getpass.getuser()})"
    assert out.getvalue().splitlines() == [
        f"{path}: 1 created, 0 updated, 0 unchanged, 0 conflicts",
        "Total: 1 created, 0 updated, 0 unchanged, 0 conflicts",
        f"Import #{run.pk}: recorded in the import history.",
    ]


# --- which run a paper points to --------------------------------------------------------


def test_papers_point_to_the_run_that_created_them(tmp_path):
    run = import_records(tmp_path, "v1.jsonl", record(1), record(2))
    assert runs_of("hist1") == runs_of("hist2") == (run.pk, run.pk)


@pytest.mark.parametrize(
    "change",
    [{"title": "Renamed"}, {"authors": ["Ann One", "Bea Two"]}, {"tags": "ICLR 2024,Oral"}],
    ids=["field", "authors", "tags"],
)
def test_reimport_moves_changed_by_import_of_the_changed_paper_only(tmp_path, change):
    first = import_records(tmp_path, "v1.jsonl", record(1), record(2))
    second = import_records(tmp_path, "v2.jsonl", record(1), record(2, **change))
    assert (second.updated, second.unchanged) == (1, 1)
    assert runs_of("hist1") == (first.pk, first.pk)
    assert runs_of("hist2") == (first.pk, second.pk)


def test_unchanged_reimport_is_recorded_and_moves_nothing(tmp_path):
    first = import_records(tmp_path, "v1.jsonl", record(1), record(2))
    second = import_records(tmp_path, "again.jsonl", record(1), record(2))
    assert (second.created, second.updated, second.unchanged) == (0, 0, 2)
    assert runs_of("hist1") == runs_of("hist2") == (first.pk, first.pk)


# --- imports that leave no run ----------------------------------------------------------


def test_failed_import_records_nothing(tmp_path):
    good = write_jsonl(tmp_path / "good.jsonl", record(1))
    bad = write_jsonl(tmp_path / "bad.jsonl", {"title": "No abstract, no id"})
    with pytest.raises(ImportErrors):
        import_paths([good, bad])
    assert not ImportRun.objects.exists()


def test_import_that_dies_before_commit_leaves_no_run_and_no_papers(tmp_path, monkeypatch):
    def die(run, report):
        raise RuntimeError("killed")

    monkeypatch.setattr(pipeline, "_complete", die)
    with pytest.raises(RuntimeError):
        import_paths([write_jsonl(tmp_path / "a.jsonl", record(1))])
    assert not ImportRun.objects.exists()
    assert not Paper.objects.exists()


def test_dry_run_records_nothing(tmp_path):
    out = io.StringIO()
    path = write_jsonl(tmp_path / "a.jsonl", record(1))
    call_command("import_papers", path, "--dry-run", stdout=out, stderr=io.StringIO())
    assert not ImportRun.objects.exists()
    assert "Import #" not in out.getvalue()


# --- admin ------------------------------------------------------------------------------


@pytest.fixture
def two_runs(tmp_path) -> tuple[ImportRun, ImportRun]:
    """Run 1 creates papers 1 and 2; run 2, a newer download of the same file (same name,
    another directory), creates paper 3 and renames paper 1."""
    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    first = import_records(tmp_path, "v1/papers.jsonl", record(1), record(2))
    second = import_records(tmp_path, "v2/papers.jsonl", record(1, title="Renamed"), record(3))
    return first, second


def papers_of(client, run: ImportRun, fk: str) -> set[str]:
    response = client.get(reverse("admin:papers_paper_changelist"), {f"{fk}__id__exact": run.pk})
    assert response.status_code == 200
    return listed_titles(response)


def test_run_changelist_links_to_the_papers_of_each_run(admin_client, two_runs):
    first, second = two_runs
    response = admin_client.get(reverse("admin:papers_importrun_changelist"))
    assert response.status_code == 200
    content = response.content.decode()
    assert content.count("papers.jsonl") >= 2  # each run names its file
    assert f"?created_by_import__id__exact={second.pk}" in content
    assert f"?changed_by_import__id__exact={second.pk}" in content

    assert papers_of(admin_client, first, "created_by_import") == {"Renamed", "Paper 2"}
    assert papers_of(admin_client, first, "changed_by_import") == {"Paper 2"}
    assert papers_of(admin_client, second, "created_by_import") == {"Paper 3"}
    assert papers_of(admin_client, second, "changed_by_import") == {"Renamed", "Paper 3"}


def test_paper_changelist_shows_which_run_it_is_filtered_by(admin_client, two_runs):
    _, second = two_runs
    changelist = reverse("admin:papers_paper_changelist")
    unfiltered = admin_client.get(changelist).content.decode()
    assert "import that created it" not in unfiltered  # no list of every import ever run
    filtered = admin_client.get(changelist, {"created_by_import__id__exact": second.pk})
    assert f"Import #{second.pk}" in filtered.content.decode()
    assert filtered.context["cl"].has_active_filters


def test_staff_with_view_permission_reads_the_history(client, two_runs):
    _, second = two_runs
    staff = make_user("curator", is_staff=True)
    staff.user_permissions.set(
        Permission.objects.filter(codename__in=["view_importrun", "view_paper"])
    )
    client.force_login(staff)
    assert client.get(reverse("admin:papers_importrun_changelist")).status_code == 200
    assert papers_of(client, second, "created_by_import") == {"Paper 3"}


def test_run_page_shows_per_file_counts_and_cannot_be_edited(admin_client, two_runs):
    _, second = two_runs
    response = admin_client.get(reverse("admin:papers_importrun_change", args=[second.pk]))
    assert response.status_code == 200
    content = response.content.decode()
    assert "<td>1</td><td>1</td><td>0</td><td>0</td>" in content  # created, updated, ...
    assert 'name="_save"' not in content
    assert admin_client.get(reverse("admin:papers_importrun_add")).status_code == 403
    delete = reverse("admin:papers_importrun_delete", args=[second.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert ImportRun.objects.filter(pk=second.pk).exists()


def test_paper_page_names_its_runs(admin_client, two_runs):
    first, second = two_runs
    paper = Paper.objects.get(forum_id="hist1")
    response = admin_client.get(reverse("admin:papers_paper_change", args=[paper.pk]))
    content = response.content.decode()
    assert f"Import #{first.pk}" in content and f"Import #{second.pk}" in content


# --- cost -------------------------------------------------------------------------------


def count_queries(tmp_path, name: str, records: list[dict]) -> int:
    with CaptureQueriesContext(connection) as queries:
        import_paths([write_jsonl(tmp_path / name, *records)])
    return len(queries)


def test_recording_adds_no_query_per_paper(tmp_path):
    # The author and the venue exist beforehand, so both sizes only look them up.
    import_records(tmp_path, "first.jsonl", record(0))
    costs = {}
    for size in (10, 50):
        papers = [record(size * 1000 + n) for n in range(size)]
        renamed = [{**r, "title": r["title"] + " (v2)"} for r in papers]
        costs[size] = (
            count_queries(tmp_path, f"new{size}.jsonl", papers),
            count_queries(tmp_path, f"changed{size}.jsonl", renamed),
        )
    assert costs[10] == costs[50]
