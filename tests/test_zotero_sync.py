"""A lab's Zotero group library pulled into the site (zotero/, docs/zotero.md), against a
stand-in of Zotero's Web API v3 (tests/zotero_server.py): nothing reaches the internet."""

from __future__ import annotations

from datetime import timedelta

import pytest

from annotations.models import Note, ReadingList, Visibility
from annotations.services import add_lab_tag
from operations.claims import claim
from papers.models import ImportConflict, ImportRun, Paper, PaperTag, TagKind
from tests.factories import make_user
from tests.zotero_server import API_KEY, article, attachment, child_note
from zotero import runs
from zotero.models import Library

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def waits():
    return []


@pytest.fixture
def sync(waits):
    def run() -> list[str]:
        lines, failed = runs.sync_libraries(sleep=waits.append)
        assert not failed, lines
        return lines

    return run


def a_library_of(zotero, count: int) -> None:
    """`count` articles; the first tagged and in collection "Reading", with a note and a PDF."""
    zotero.put_collection("COLLREAD", "Reading")
    zotero.put_collection("COLLMISC", "Misc")
    first = article("ITEM0001", 1, tags=[{"tag": "diffusion"}, {"tag": "to discuss", "type": 1}])
    first["collections"] = ["COLLREAD"]
    others = [article(f"ITEM{n:04d}", n) for n in range(2, count + 1)]
    zotero.put_items(
        first,
        *others,
        child_note("NOTE0001", "ITEM0001", "<p>Read <b>section 3</b> first.</p><p>Then 4.</p>"),
        attachment("ATTA0001", "ITEM0001", "https://example.org/papers/one.pdf"),
    )


def test_a_first_pull_imports_every_item_across_pages(zotero, library, sync):
    a_library_of(zotero, 150)

    sync()

    assert Paper.objects.count() == 150
    paper = Paper.objects.get(doi="10.1234/things.1")
    # Zotero's order; an editor is no author.
    names = list(paper.authorships.order_by("position").values_list("author__name", flat=True))
    assert names == ["Ada Zeta1", "Bob Alpha", "The Consortium"]
    assert paper.pdf_url == "https://example.org/papers/one.pdf"
    tags = PaperTag.objects.filter(paper=paper, tag__kind=TagKind.LAB)
    assert {t.tag.name for t in tags} == {"diffusion", "to discuss"}
    assert {t.added_by for t in tags} == {library.member}
    reading = ReadingList.objects.get(owner=library.member, name="Reading")
    assert reading.visibility == Visibility.SHARED
    assert list(reading.papers.all()) == [paper]
    assert ReadingList.objects.filter(owner=library.member, name="Misc").exists()
    note = Note.objects.get(owner=library.member)
    assert note.paper == paper
    assert note.body == "Read section 3 first.\n\nThen 4."
    # Two pages of 100, the second by the first's Link; the version once all is in.
    pages = zotero.asked("items")
    assert [q["start"] for q, _ in pages] == ["0", "100"]
    assert all(h["Zotero-API-Key"] == API_KEY and h["Zotero-API-Version"] == "3" for _, h in pages)
    library.refresh_from_db()
    assert library.version == zotero.version
    run = ImportRun.objects.get()
    assert run.created == 150 and "Zotero" in run.invoked_by
    assert run.files[0]["path"] == f"zotero:{zotero.group_id}"


def test_a_second_pull_asks_only_for_what_changed_and_304_ends_it(zotero, library, sync):
    a_library_of(zotero, 3)
    sync()
    seen = zotero.version
    zotero.requests.clear()

    sync()  # nothing changed: one conditional request, answered 304
    assert [(q["since"], h["If-Modified-Since-Version"]) for q, h in zotero.asked("items")] == [
        (str(seen), str(seen))
    ]
    assert not zotero.asked("collections") and not zotero.asked("deleted")
    assert ImportRun.objects.count() == 1

    zotero.requests.clear()
    zotero.put_items(article("ITEM0002", 2, title="A better title"))
    sync()
    ((query, _),) = zotero.asked("items")
    assert query["since"] == str(seen)
    assert Paper.objects.get(doi="10.1234/things.2").title == "A better title"
    assert Paper.objects.count() == 3
    run = ImportRun.objects.latest("pk")
    assert (run.created, run.updated) == (0, 1)
    library.refresh_from_db()
    assert library.version == zotero.version


def test_a_deleted_item_leaves_its_list_tags_and_note_but_stays_in_the_catalogue(
    zotero, library, sync
):
    a_library_of(zotero, 2)
    sync()
    paper = Paper.objects.get(doi="10.1234/things.1")
    colleague = make_user("colleague")
    add_lab_tag(user=colleague, paper=paper, name="mine")

    zotero.delete_item("NOTE0001")
    zotero.delete_item("ITEM0001")
    sync()

    assert Paper.objects.filter(pk=paper.pk).exists()
    assert not ReadingList.objects.get(name="Reading").papers.exists()
    # What the sync added went; a colleague's tag stays.
    assert [t.tag.name for t in PaperTag.objects.filter(paper=paper, tag__kind=TagKind.LAB)] == [
        "mine"
    ]
    assert not Note.objects.exists()


def test_a_deleted_collection_removes_its_list(zotero, library, sync):
    a_library_of(zotero, 2)
    sync()
    zotero.delete_collection("COLLREAD")
    sync()
    assert not ReadingList.objects.filter(name="Reading").exists()
    assert ReadingList.objects.filter(name="Misc").exists()


def test_tags_and_collections_changed_at_zotero_are_followed(zotero, library, sync):
    a_library_of(zotero, 2)
    sync()
    changed = article("ITEM0001", 1, tags=[{"tag": "diffusion"}], collections=["COLLMISC"])
    zotero.put_items(changed)
    sync()
    paper = Paper.objects.get(doi="10.1234/things.1")
    assert [t.tag.name for t in PaperTag.objects.filter(paper=paper, tag__kind=TagKind.LAB)] == [
        "diffusion"
    ]
    assert not ReadingList.objects.get(name="Reading").papers.exists()
    assert list(ReadingList.objects.get(name="Misc").papers.all()) == [paper]


def test_a_curators_title_is_kept_and_the_conflict_recorded(zotero, library, sync):
    a_library_of(zotero, 2)
    sync()
    paper = Paper.objects.get(doi="10.1234/things.2")
    paper.title = "The curator's title"
    paper.curator_edited_fields = ["title"]
    paper.save()

    zotero.put_items(article("ITEM0002", 2, title="Zotero's new title"))
    sync()

    paper.refresh_from_db()
    assert paper.title == "The curator's title"
    conflict = ImportConflict.objects.get(paper=paper, field="title")
    assert conflict.kind == ImportConflict.Kind.CURATED


def test_a_library_held_by_another_run_is_not_pulled_again(zotero, library):
    a_library_of(zotero, 2)
    other = claim(Library, library.pk, timedelta(minutes=5))
    assert other is not None

    lines, failed = runs.sync_libraries(sleep=lambda _: None)

    assert lines == [f"{library}: held by another run, skipped"] and failed == 0
    assert zotero.requests == [] and not Paper.objects.exists()


def test_a_429_waits_what_retry_after_and_backoff_ask(zotero, library, sync, waits):
    a_library_of(zotero, 2)
    zotero.refusals.append((429, {"Retry-After": "7", "Backoff": "3"}))
    zotero.backoff = 5

    sync()

    assert Paper.objects.count() == 2
    # The 429's longer wait, then each success's Backoff before the next request.
    assert waits[0] == 7.0
    assert waits[1:] == [5.0, 5.0]


def test_a_library_changed_midway_is_read_again_next_run(zotero, library, sync):
    a_library_of(zotero, 120)
    zotero.write_after_page = lambda: zotero.put_items(article("ITEM0200", 200))

    lines, failed = runs.sync_libraries(sleep=lambda _: None)

    assert failed == 1 and "changed while it was read" in lines[0]
    library.refresh_from_db()
    assert library.version == 0 and not library.is_held()
    sync()
    assert Paper.objects.count() == 121
    library.refresh_from_db()
    assert library.version == zotero.version


def test_an_item_the_importer_cannot_use_is_skipped_and_reported(zotero, library, sync):
    zotero.put_items(
        article("ITEM0001", 1),
        article("ITEM0002", 2, DOI="", abstractNote=""),  # nothing to know it by
    )
    sync()
    assert Paper.objects.count() == 1
    run = ImportRun.objects.get()
    assert "item ITEM0002" in run.files[0]["warnings"][0]


def lab_tags_of(paper: Paper) -> set[str]:
    return {t.tag.name for t in PaperTag.objects.filter(paper=paper, tag__kind=TagKind.LAB)}


def test_nothing_is_written_to_zotero_unless_push_is_on(zotero, library, sync):
    a_library_of(zotero, 2)
    sync()
    add_lab_tag(
        user=make_user("colleague"), paper=Paper.objects.get(doi="10.1234/things.2"), name="x"
    )
    sync()
    assert zotero.patches == []


def test_push_adds_the_lab_tags_an_item_lacks_on_its_version(zotero, library, sync, settings):
    settings.ZOTERO_PUSH = True
    a_library_of(zotero, 2)
    sync()
    paper = Paper.objects.get(doi="10.1234/things.1")
    add_lab_tag(user=make_user("colleague"), paper=paper, name="must read")
    item_version = zotero.items["ITEM0001"]["version"]

    sync()

    ((key, body),) = zotero.patches
    assert key == "ITEM0001"
    assert [t["tag"] for t in body["tags"]] == ["diffusion", "to discuss", "must read"]
    ((_, _, headers),) = [r for r in zotero.requests if "PATCH" in r[1]]
    assert headers["If-Unmodified-Since-Version"] == str(item_version)
    # The pushed item comes back in the next pull and changes nothing here.
    sync()
    assert lab_tags_of(paper) == {"diffusion", "to discuss", "must read"}
    assert len(zotero.patches) == 1


def test_a_412_is_answered_by_reading_again_never_by_overwriting(
    zotero, library, sync, settings, monkeypatch
):
    settings.ZOTERO_PUSH = True
    a_library_of(zotero, 2)
    sync()
    paper = Paper.objects.get(doi="10.1234/things.2")
    add_lab_tag(user=make_user("colleague"), paper=paper, name="ours")
    # Someone tags the item at Zotero between this run's pull and its push.
    original_pull = runs.pull

    def pull_then_zotero_changes(held, reader):
        outcome = original_pull(held, reader)
        zotero.put_items({**zotero.items["ITEM0002"]["data"], "tags": [{"tag": "theirs"}]})
        return outcome

    monkeypatch.setattr(runs, "pull", pull_then_zotero_changes)
    sync()
    monkeypatch.undo()

    # The first write was refused (412): the item was read again, the second write applied.
    assert len([r for r in zotero.requests if "PATCH" in r[1]]) == 2
    ((_, body),) = zotero.patches
    assert [t["tag"] for t in body["tags"]] == ["theirs", "ours"]
    assert [t["tag"] for t in zotero.items["ITEM0002"]["data"]["tags"]] == ["theirs", "ours"]
    sync()  # Zotero's own tag arrives here too
    assert lab_tags_of(paper) == {"ours", "theirs"}
