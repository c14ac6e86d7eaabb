"""Issue 38, point 6: import conflicts settled as compare-and-set. "Keep current" and "Take
incoming" write only while the paper still holds the value the conflict calls current (its
`previous` for a curator's conflict, its `incoming` for two sources'), and while no newer
conflict about the field came; otherwise the choice is refused as "changed since", with a link
to the newer conflict (or the paper). A newer conflict about a field closes the older open ones,
whatever their source, as superseded by it. So sources a -> b -> c settle to b's or c's value in
any order, and no conflict records a value the paper does not hold."""

from __future__ import annotations

import itertools
import json
import threading
from pathlib import Path

import pytest
from django.db import connection, transaction
from django.urls import reverse

from papers.conflicts import settle_conflicts
from papers.importing.pipeline import import_paths
from papers.models import ImportConflict, Paper, PaperTag
from tests.factories import make_tag
from tests.test_admin_conflict_settling import CHANGELIST, settle
from tests.test_conflict_lists import ANN, BO, KEYWORD, XIA_1, XIA_2, authors_of, keywords_of
from tests.test_conflict_lists import write as write_note

pytestmark = pytest.mark.django_db

PAPER = {"forum_id": "cas1", "abstract": "The abstract.", "authors": ["Ann One"]}
TITLES = {"o": "Title O", "a": "Title A", "b": "Title B", "c": "Title C"}
SETTLED = ("kept", "taken")


def import_from(tmp_path: Path, source: str, **values) -> None:
    """The paper as source `source` (its file name) gives it: its own title unless given."""
    record = {**PAPER, "title": TITLES.get(source, ""), **values}
    path = tmp_path / f"{source}.jsonl"
    path.write_text(json.dumps(record) + "\n", "utf-8")
    import_paths([str(path)])


def conflict_url(conflict: ImportConflict) -> str:
    return reverse("admin:papers_importconflict_change", args=[conflict.pk])


def reopen_all() -> None:
    """Every conflict open again, as conflicts listed before a newer one closed the older
    ones whatever their source: the compare itself has to refuse the stale ones."""
    ImportConflict.objects.update(resolved_at=None, resolution="", superseded_by=None)


def chosen(conflict: ImportConflict) -> str:
    return conflict.incoming if conflict.resolution == "taken" else conflict.previous


def assert_settled_values_are_the_papers() -> None:
    """Every conflict settled as kept or taken names the value the paper holds."""
    title = Paper.objects.get().title
    for conflict in ImportConflict.objects.filter(field="title", resolution__in=SETTLED):
        assert chosen(conflict) == title, (conflict.source, conflict.resolution)


@pytest.fixture
def chain(tmp_path) -> dict[str, ImportConflict]:
    """Source o gives the title, then a, b and c each replace it: three title conflicts."""
    for source in "oabc":
        import_from(tmp_path, source)
    conflicts = {c.source.removesuffix(".jsonl"): c for c in ImportConflict.objects.all()}
    assert sorted(conflicts) == ["a", "b", "c"]
    assert Paper.objects.get().title == "Title C"
    return conflicts


@pytest.mark.parametrize("choices", list(itertools.product(SETTLED, repeat=3)), ids="-".join)
@pytest.mark.parametrize("order", list(itertools.permutations("abc")), ids="".join)
def test_three_sources_settle_one_by_one_in_any_order_without_writing_an_older_title(
    admin_client, chain, order, choices
):
    choice_of = dict(zip("abc", choices, strict=True))
    for source in order:
        content = settle(admin_client, chain[source], choice_of[source]).content.decode()
        # Never a's or o's title back: only the newest conflict, c's, is settled.
        assert Paper.objects.get().title in ("Title B", "Title C")
        assert_settled_values_are_the_papers()
        if source == "c":
            assert "1 conflict settled" in content
        else:
            assert "changed since" in content
            assert f'<a href="{conflict_url(chain["c"])}">conflict #{chain["c"].pk}</a>' in content
    expected = "Title C" if choice_of["c"] == "taken" else "Title B"
    assert Paper.objects.get().title == expected
    assert list(ImportConflict.objects.filter(resolution__in=SETTLED)) == [chain["c"]]
    assert_settled_values_are_the_papers()


@pytest.mark.parametrize("resolution", SETTLED)
@pytest.mark.parametrize("order", list(itertools.permutations("abc")), ids="".join)
def test_a_bulk_settle_of_open_conflicts_gives_one_result_in_any_order(chain, order, resolution):
    reopen_all()
    result = settle_conflicts([chain[s].pk for s in order], resolution=resolution, user=None)
    assert result.settled == 1
    assert sorted(refusal.conflict_id for refusal in result.refused) == [
        chain["a"].pk,
        chain["b"].pk,
    ]
    assert {refusal.newer_id for refusal in result.refused} == {chain["c"].pk}
    assert all("changed since" in str(refusal) for refusal in result.refused)
    assert Paper.objects.get().title == ("Title C" if resolution == "taken" else "Title B")
    assert not ImportConflict.objects.filter(pk__in=[chain["a"].pk, chain["b"].pk]).exclude(
        resolved_at=None
    )
    assert_settled_values_are_the_papers()


def test_the_bulk_action_refuses_the_stale_ones_with_a_link_to_the_newer(admin_client, chain):
    reopen_all()
    ids = [chain[s].pk for s in "abc"]
    response = admin_client.post(
        reverse(CHANGELIST), {"action": "keep_current", "_selected_action": ids}, follow=True
    )
    content = response.content.decode()
    assert "Keep current: 1 conflict settled." in content
    link = f'<a href="{conflict_url(chain["c"])}">conflict #{chain["c"].pk}</a>'
    for source in "ab":
        assert f"#{chain[source].pk}: the title changed since" in content
    assert content.count(link) == 2
    assert Paper.objects.get().title == "Title B"


@pytest.mark.parametrize(
    "kind, resolution",
    [("sources", "taken"), ("sources", "kept"), ("curated", "taken"), ("curated", "kept")],
)
@pytest.mark.parametrize("edited", [False, True], ids=["as-listed", "edited-since"])
def test_a_choice_on_a_value_changed_since_writes_and_records_nothing(
    admin_client, tmp_path, kind, resolution, edited
):
    import_from(tmp_path, "o")
    if kind == "curated":
        Paper.objects.update(title="Curated Title", curator_edited_fields=["title"])
    import_from(tmp_path, "a")
    conflict = ImportConflict.objects.get()
    assert conflict.kind == kind
    if edited:  # a curator's edit on the paper's page lists no conflict
        Paper.objects.update(title="Edited By Hand", curator_edited_fields=["title"])
    content = settle(admin_client, conflict, resolution).content.decode()
    conflict.refresh_from_db()
    paper = Paper.objects.get()
    if not edited:  # the positive control: the paper holds what the conflict says
        assert "1 conflict settled" in content
        assert conflict.resolution == resolution and paper.title == chosen(conflict)
        return
    assert paper.title == "Edited By Hand"
    assert (conflict.resolved_at, conflict.resolution) == (None, "")
    assert f"#{conflict.pk}: the title changed since" in content
    paper_url = reverse("admin:papers_paper_change", args=[paper.pk])
    assert f'<a href="{paper_url}">the paper</a>' in content
    # Marking it resolved writes no value, so it is allowed.
    settle(admin_client, conflict, "marked")
    conflict.refresh_from_db()
    assert conflict.resolution == "marked" and Paper.objects.get().title == "Edited By Hand"


def test_a_newer_conflict_supersedes_older_open_ones_whatever_their_source(admin_client, tmp_path):
    import_from(tmp_path, "o")
    import_from(tmp_path, "a")
    import_from(tmp_path, "b", abstract="Another abstract.")  # title and abstract disputed
    import_from(tmp_path, "c", abstract="Another abstract.")  # the title only
    conflicts = {(c.source, c.field): c for c in ImportConflict.objects.all()}
    a, b, c = (conflicts[(f"{s}.jsonl", "title")] for s in "abc")
    assert (a.resolution, a.superseded_by, b.resolution, b.superseded_by) == (
        "superseded",
        b,
        "superseded",
        c,
    )
    assert a.resolved_at is not None and b.resolved_at is not None
    # The newest about the title, and the one about the abstract, stay open.
    assert c.resolved_at is None
    assert conflicts[("b.jsonl", "abstract")].resolved_at is None
    # The older one's page names the conflict that superseded it.
    assert f'href="{conflict_url(c)}"' in admin_client.get(conflict_url(b)).content.decode()


def test_a_curators_conflict_supersedes_an_open_one_of_two_sources(tmp_path):
    import_from(tmp_path, "o")
    import_from(tmp_path, "a")
    older = ImportConflict.objects.get()
    Paper.objects.update(title="Curated Title", curator_edited_fields=["title"])
    import_from(tmp_path, "b")
    newer = ImportConflict.objects.get(source="b.jsonl")
    older.refresh_from_db()
    assert (newer.kind, newer.resolved_at) == ("curated", None)
    assert (older.resolution, older.superseded_by) == ("superseded", newer)


def test_conflicts_of_one_import_leave_only_the_last_open(tmp_path):
    import_from(tmp_path, "o")
    paths = []
    for source in "abc":
        path = tmp_path / f"{source}.jsonl"
        path.write_text(json.dumps({**PAPER, "title": TITLES[source]}) + "\n", "utf-8")
        paths.append(str(path))
    import_paths(paths)
    assert [c.source for c in ImportConflict.objects.filter(resolved_at=None)] == ["c.jsonl"]
    assert Paper.objects.get().title == "Title C"


@pytest.mark.parametrize("resolution", SETTLED)
@pytest.mark.parametrize("order", list(itertools.permutations("abc")), ids="".join)
def test_author_lists_from_three_sources_settle_in_any_order(
    admin_client, tmp_path, order, resolution
):
    for source, authors in (("o", [ANN]), ("a", [BO]), ("b", [XIA_1]), ("c", [XIA_2])):
        import_paths([write_note(tmp_path / f"{source}.jsonl", authors)])
    reopen_all()
    chain = {c.source[0]: c for c in ImportConflict.objects.filter(field="authors")}
    for source in order:
        content = settle(admin_client, chain[source], resolution).content.decode()
        if source != "c":
            assert "changed since" in content and conflict_url(chain["c"]) in content
    expected = XIA_2 if resolution == "taken" else XIA_1
    assert [(name, profile) for _, name, profile in authors_of(Paper.objects.get())] == [expected]
    assert list(ImportConflict.objects.filter(resolution__in=SETTLED)) == [chain["c"]]


@pytest.mark.parametrize("resolution", SETTLED)
@pytest.mark.parametrize("tagged_since", [False, True], ids=["as-listed", "tagged-since"])
def test_a_tag_conflict_is_refused_once_the_paper_has_an_incoming_tag(
    admin_client, tmp_path, resolution, tagged_since
):
    import_paths([write_note(tmp_path / "a.jsonl", [ANN])])
    Paper.objects.update(curator_edited_fields=["tags"])
    import_paths([write_note(tmp_path / "a.jsonl", [ANN], keywords=["Diffusion", "Sparsity"])])
    conflict = ImportConflict.objects.get(field="tags")
    paper = Paper.objects.get()
    if tagged_since:  # a curator tags the paper by hand
        PaperTag.objects.create(paper=paper, tag=make_tag("Sparsity", KEYWORD))
    content = settle(admin_client, conflict, resolution).content.decode()
    conflict.refresh_from_db()
    if tagged_since:
        assert conflict.resolution == ""
        assert f"#{conflict.pk}: the tags changed since" in content
    else:
        assert "1 conflict settled" in content and conflict.resolution == resolution
    expected = ["Diffusion"] if resolution == "kept" and not tagged_since else None
    assert keywords_of(paper) == (expected or ["Diffusion", "Sparsity"])


def waiting_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )
        return cursor.fetchone()[0] > 0


@pytest.mark.django_db(transaction=True)
def test_a_choice_waits_for_an_edit_in_progress_and_compares_with_its_value(tmp_path):
    if connection.vendor != "postgresql":
        pytest.skip("SQLite's IMMEDIATE transactions let one writer at a time begin at all")
    import_from(tmp_path, "o")
    import_from(tmp_path, "a")
    conflict, paper = ImportConflict.objects.get(), Paper.objects.get()
    assert paper.title == "Title A"  # what the conflict calls current: a's, applied
    edit_holds_the_row, release = threading.Event(), threading.Event()
    results: list = []

    def edit_by_hand() -> None:
        with transaction.atomic():
            Paper.objects.select_for_update().filter(pk=paper.pk).update(title="Edited By Hand")
            edit_holds_the_row.set()
            release.wait(30)
        connection.close()

    def take_incoming() -> None:
        results.append(settle_conflicts([conflict.pk], resolution="taken", user=None))
        connection.close()

    editor, settler = threading.Thread(target=edit_by_hand), threading.Thread(target=take_incoming)
    editor.start()
    assert edit_holds_the_row.wait(30)
    settler.start()
    for _ in range(3000):  # the settle blocks on the edited row, then the edit commits
        if waiting_on_a_lock():
            break
    else:
        pytest.fail("the settle never waited for the row being edited")
    release.set()
    editor.join(30)
    settler.join(30)
    (result,) = results
    assert result.settled == 0 and [r.changed_since for r in result.refused] == [True]
    conflict.refresh_from_db()
    assert (conflict.resolution, Paper.objects.get().title) == ("", "Edited By Hand")
