"""The curators' list of what imports could not simply apply (papers.models.ImportConflict)."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse

from papers.importing.pipeline import import_paths
from papers.models import ImportConflict, Paper
from tests.factories import make_user

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:papers_importconflict_changelist"
PAPER = {
    "forum_id": "conf1",
    "title": "Disputed Paper",
    "abstract": "The first abstract.",
    "authors": ["Ann One"],
}


@pytest.fixture
def disagreement(tmp_path) -> ImportConflict:
    """Two sources give the paper different abstracts: one open conflict."""
    for name, abstract in (("a.jsonl", PAPER["abstract"]), ("b.jsonl", "The second abstract.")):
        path = tmp_path / name
        path.write_text(json.dumps({**PAPER, "abstract": abstract}) + "\n", "utf-8")
        import_paths([str(path)])
    return ImportConflict.objects.get()


def test_open_conflicts_are_listed_with_both_values(admin_client, disagreement):
    response = admin_client.get(reverse(CHANGELIST))
    assert response.status_code == 200
    content = response.content.decode()
    assert "Disputed Paper" in content
    # A short word diff of the two values.
    assert "The <del>first</del><ins>second</ins> abstract." in content
    assert "Sources disagree" in content


def test_mark_resolved_takes_a_conflict_off_the_open_list(admin_client, disagreement):
    response = admin_client.post(
        reverse(CHANGELIST),
        {"action": "mark_resolved", "_selected_action": [disagreement.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert "Mark resolved: 1 conflict settled." in response.content.decode()
    disagreement.refresh_from_db()
    assert disagreement.resolved_at is not None
    assert (disagreement.resolution, disagreement.resolved_by.username) == ("marked", "admin")
    assert "Disputed Paper" not in admin_client.get(reverse(CHANGELIST)).content.decode()
    resolved = admin_client.get(reverse(CHANGELIST), {"state": "resolved"})
    assert "Disputed Paper" in resolved.content.decode()
    every = admin_client.get(reverse(CHANGELIST), {"state": "all"})
    assert "Disputed Paper" in every.content.decode()


def test_the_sidebar_shows_that_open_conflicts_are_listed(admin_client, disagreement):
    response = admin_client.get(reverse(CHANGELIST))
    [state] = [spec for spec in response.context["cl"].filter_specs if spec.title == "state"]
    chosen = [
        choice["display"] for choice in state.choices(response.context["cl"]) if choice["selected"]
    ]
    assert chosen == ["Open"]


def test_long_values_that_differ_at_the_end_are_told_apart(admin_client, disagreement):
    base = "https://example.org/pdf/" + "a" * 150
    disagreement.previous, disagreement.incoming = base + "1.pdf", base + "2.pdf"
    disagreement.save()
    content = admin_client.get(reverse(CHANGELIST)).content.decode()
    # Each long link as its start and its end, where they differ.
    tail = "a" * (160 // 2 - 21 - len("1.pdf"))
    assert f"<del>https://example.org/…{tail}1.pdf</del>" in content
    assert f"<ins>https://example.org/…{tail}2.pdf</ins>" in content


def test_a_curator_who_may_only_view_cannot_resolve(client, disagreement):
    viewer = make_user("viewer", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_importconflict"))
    client.force_login(viewer)
    response = client.get(reverse(CHANGELIST))
    assert response.status_code == 200
    assert "mark_resolved" not in response.content.decode()
    client.post(
        reverse(CHANGELIST), {"action": "mark_resolved", "_selected_action": [disagreement.pk]}
    )
    disagreement.refresh_from_db()
    assert disagreement.resolved_at is None


def test_the_paper_page_shows_its_open_conflicts(admin_client, disagreement):
    paper = Paper.objects.get()
    response = admin_client.get(reverse("admin:papers_paper_change", args=[paper.pk]))
    assert response.status_code == 200
    content = response.content.decode()
    assert "Sources disagree: abstract" in content
    assert "The <del>first</del><ins>second</ins> abstract." in content and "b.jsonl" in content


def test_paper_list_filters_papers_with_open_conflicts(admin_client, disagreement):
    Paper.objects.create(title="Quiet Paper", abstract="Nothing disputed.")
    changelist = reverse("admin:papers_paper_changelist")
    response = admin_client.get(changelist, {"open_conflicts": "yes"})
    assert response.status_code == 200
    assert [p.title for p in response.context["cl"].result_list] == ["Disputed Paper"]
    response = admin_client.get(changelist, {"open_conflicts": "no"})
    assert [p.title for p in response.context["cl"].result_list] == ["Quiet Paper"]


def test_a_source_changing_a_disputed_field_again_leaves_one_open_conflict(tmp_path):
    path = tmp_path / "a.jsonl"

    def import_title(title: str) -> None:
        path.write_text(json.dumps({**PAPER, "title": title}) + "\n", "utf-8")
        import_paths([str(path)])

    import_title("First")
    Paper.objects.update(title="Curated", curator_edited_fields=["title"])
    import_title("Second")
    import_title("Third")
    import_title("Second")
    open_conflicts = ImportConflict.objects.filter(resolved_at__isnull=True)
    assert [c.incoming for c in open_conflicts] == ["Second"]
    assert ImportConflict.objects.count() == 3  # the superseded ones stay, resolved
    assert Paper.objects.get().title == "Curated"
