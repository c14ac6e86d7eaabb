"""The lab's lists written back to a Zotero group library (zotero/push.py, docs/zotero.md),
against the stand-in of Zotero's Web API v3 (tests/zotero_server.py): additions only, each
conditional on the item's version, a new collection created once, private lists never."""

from __future__ import annotations

from datetime import timedelta

import pytest

from annotations.models import ReadingList, Visibility
from annotations.services import add_lab_tag, add_paper_to_list
from operations.claims import claim
from papers.models import ImportRun, Paper
from tests.factories import make_user
from tests.zotero_server import API_KEY, article
from zotero import runs
from zotero.fetching import ZoteroReader
from zotero.models import Collection, Library
from zotero.push import push

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def library(zotero, settings):
    """Two collections; ITEM0001 in "Reading", ITEM0002 and ITEM0003 in none; pulled once;
    pushing on."""
    settings.ZOTERO_PUSH = True
    zotero.put_collection("COLLREAD", "Reading")
    zotero.put_collection("COLLMISC", "Misc")
    zotero.put_items(
        article("ITEM0001", 1, collections=["COLLREAD"], tags=[{"tag": "diffusion"}]),
        article("ITEM0002", 2),
        article("ITEM0003", 3),
    )
    library = Library.objects.create(group_id=zotero.group_id, member=make_user("zotero-sync"))
    sync()
    return library


def sync() -> list[str]:
    lines, failed = runs.sync_libraries(sleep=lambda _: None)
    assert not failed, lines
    return lines


def paper(number: int) -> Paper:
    return Paper.objects.get(doi=f"10.1234/things.{number}")


def the_list(name: str) -> ReadingList:
    return ReadingList.objects.get(owner__username="zotero-sync", name=name)


def writes(zotero) -> list[tuple[str, dict]]:
    """(path, body) of each PATCH and POST the stand-in was asked."""
    return [
        (p, q.get("PATCH", q.get("POST")))
        for p, q, _ in zotero.requests
        if set(q) & {"PATCH", "POST"}
    ]


def collections_of(zotero, key: str) -> list[str]:
    return zotero.items[key]["data"]["collections"]


def test_nothing_is_written_unless_push_is_on(zotero, library, settings):
    settings.ZOTERO_PUSH = False
    add_paper_to_list(reading_list=the_list("Reading"), paper=paper(2))
    ReadingList.objects.create(owner=library.member, name="Made here", visibility=Visibility.SHARED)
    sync()
    assert writes(zotero) == []
    assert not Collection.objects.filter(name="Made here").exists()
    settings.ZOTERO_PUSH = True  # the control: the same run with push on writes
    sync()
    assert collections_of(zotero, "ITEM0002") == ["COLLREAD"]


def test_a_paper_added_to_a_collections_list_joins_the_collection_on_its_version(zotero, library):
    add_paper_to_list(reading_list=the_list("Reading"), paper=paper(2))
    version = zotero.items["ITEM0002"]["version"]

    sync()

    assert zotero.patches == [("ITEM0002", {"collections": ["COLLREAD"]})]
    ((_, _, headers),) = [r for r in zotero.requests if "PATCH" in r[1]]
    assert headers["If-Unmodified-Since-Version"] == str(version)
    assert collections_of(zotero, "ITEM0002") == ["COLLREAD"]


def test_a_second_push_writes_nothing_and_the_pull_after_it_changes_nothing(zotero, library):
    add_paper_to_list(reading_list=the_list("Reading"), paper=paper(2))
    add_lab_tag(user=make_user("colleague"), paper=paper(3), name="must read")
    sync()
    assert len(zotero.patches) == 2
    runs_before = ImportRun.objects.count()

    sync()  # pulls the two pushed items back, then pushes

    assert len(zotero.patches) == 2
    assert [p.pk for p in the_list("Reading").papers.order_by("pk")] == [paper(1).pk, paper(2).pk]
    assert not the_list("Misc").papers.exists()
    latest = ImportRun.objects.latest("pk")
    assert ImportRun.objects.count() == runs_before + 1
    assert (latest.created, latest.updated) == (0, 0)
    zotero.requests.clear()
    sync()  # nothing changed anywhere: one conditional read answered 304, no write
    assert writes(zotero) == [] and len(zotero.asked("items")) == 1


def test_a_412_is_read_again_keeping_what_zotero_added_and_not_undoing_what_it_removed(
    zotero, library, monkeypatch
):
    add_paper_to_list(reading_list=the_list("Reading"), paper=paper(2))
    add_lab_tag(user=make_user("colleague"), paper=paper(1), name="ours")
    original_pull = runs.pull

    def pull_then_zotero_changes(held, reader):
        outcome = original_pull(held, reader)
        # At Zotero, between this run's pull and its push: ITEM0002 goes into "Misc" and is
        # tagged; ITEM0001 leaves "Reading" for "Misc".
        two = zotero.items["ITEM0002"]["data"]
        one = zotero.items["ITEM0001"]["data"]
        zotero.put_items(
            {**two, "collections": ["COLLMISC"], "tags": [{"tag": "theirs"}]},
            {**one, "collections": ["COLLMISC"]},
        )
        return outcome

    monkeypatch.setattr(runs, "pull", pull_then_zotero_changes)
    sync()
    monkeypatch.undo()

    # Both first writes refused (412), both items read again and written on what they are now.
    assert len([r for r in zotero.requests if "PATCH" in r[1]]) == 4
    assert dict(zotero.patches) == {
        "ITEM0002": {"collections": ["COLLMISC", "COLLREAD"]},
        "ITEM0001": {"tags": [{"tag": "diffusion"}, {"tag": "ours"}]},
    }
    assert zotero.items["ITEM0002"]["data"]["tags"] == [{"tag": "theirs"}]
    assert collections_of(zotero, "ITEM0001") == ["COLLMISC"]  # not put back in "Reading"
    sync()  # what Zotero did arrives here
    assert list(the_list("Misc").papers.order_by("pk")) == [paper(1), paper(2)]
    assert list(the_list("Reading").papers.all()) == [paper(2)]


def test_an_item_still_changing_after_max_tries_is_left_for_the_next_run(
    zotero, library, monkeypatch
):
    add_paper_to_list(reading_list=the_list("Reading"), paper=paper(2))
    reading = ZoteroReader.item

    def item_changing_again(reader, key):
        answer = reading(reader, key)
        zotero.put_items(zotero.items[key]["data"])  # someone at Zotero, each time first
        return answer

    original_pull = runs.pull

    def pull_then_zotero_changes(held, reader):
        outcome = original_pull(held, reader)
        zotero.put_items(zotero.items["ITEM0002"]["data"])
        return outcome

    monkeypatch.setattr(runs, "pull", pull_then_zotero_changes)
    monkeypatch.setattr(ZoteroReader, "item", item_changing_again)
    (line,) = sync()
    monkeypatch.undo()

    assert "(1 left for next run)" in line and zotero.patches == []
    sync()  # the control: once it stops changing, the next run writes it
    assert collections_of(zotero, "ITEM0002") == ["COLLREAD"]


def test_private_lists_are_never_pushed_beside_a_shared_one_that_is(zotero, library):
    member = library.member
    shared = ReadingList.objects.create(
        owner=member, name="Made here", visibility=Visibility.SHARED
    )
    private = ReadingList.objects.create(owner=member, name="Secret", visibility=Visibility.PRIVATE)
    editors = ReadingList.objects.create(owner=member, name="Few", visibility=Visibility.EDITORS)
    theirs = ReadingList.objects.create(
        owner=make_user("colleague"), name="Colleague's", visibility=Visibility.SHARED
    )
    misc = the_list("Misc")
    misc.visibility = Visibility.PRIVATE  # a collection's list made private here
    misc.save()
    for reading_list in (shared, private, editors, theirs, misc, the_list("Reading")):
        add_paper_to_list(reading_list=reading_list, paper=paper(2))

    sync()

    posts = [body for path, body in writes(zotero) if body and path.endswith("/collections")]
    assert [[c["name"] for c in body] for body in posts] == [["Made here"]]
    made = Collection.objects.get(reading_list=shared)
    assert sorted(collections_of(zotero, "ITEM0002")) == sorted(["COLLREAD", made.key])
    assert sorted(c["data"]["name"] for c in zotero.collections.values()) == [
        "Made here",
        "Misc",
        "Reading",
    ]
    assert not Collection.objects.filter(reading_list__in=[private, editors, theirs]).exists()


def test_a_list_made_here_becomes_a_collection_once_and_the_pull_confirms_it(zotero, library):
    made = ReadingList.objects.create(
        owner=library.member, name="Made here", visibility=Visibility.LAB_EDIT
    )
    add_paper_to_list(reading_list=made, paper=paper(3))

    sync()

    (row,) = Collection.objects.filter(reading_list=made)
    (post,) = [r for r in zotero.requests if "POST" in r[1]]
    assert post[1]["POST"] == [{"key": row.key, "name": "Made here", "parentCollection": False}]
    assert len(post[2]["Zotero-Write-Token"]) == 32
    assert zotero.collections[row.key]["data"]["name"] == "Made here"
    assert collections_of(zotero, "ITEM0003") == [row.key]
    sync()  # the pull sees the new collection and the item, and changes nothing here
    row.refresh_from_db()
    assert row.version == zotero.collections[row.key]["version"]
    assert list(made.papers.all()) == [paper(3)]
    assert ReadingList.objects.filter(name="Made here").count() == 1
    assert len([r for r in zotero.requests if "POST" in r[1]]) == 1


def test_a_creation_asked_again_after_it_landed_is_refused_by_its_write_token(zotero, library):
    made = ReadingList.objects.create(
        owner=library.member, name="Made here", visibility=Visibility.SHARED
    )
    sync()
    # As if the answer had been lost: the row still says "not seen at Zotero".
    Collection.objects.filter(reading_list=made).update(version=0)
    held = claim(Library, library.pk, timedelta(minutes=5))
    assert held is not None
    reader = ZoteroReader(zotero.group_id, API_KEY)
    try:
        pushed = push(held, reader)
    finally:
        reader.close()
        held.release()

    assert pushed.collections == 1  # it exists: counted, not made again
    assert [c["data"]["name"] for c in zotero.collections.values()].count("Made here") == 1
    assert len([r for r in zotero.requests if "POST" in r[1]]) == 2


def test_two_runs_at_once_create_the_collection_once(zotero, library, shared_database):
    made = ReadingList.objects.create(
        owner=library.member, name="Made here", visibility=Visibility.SHARED
    )
    add_paper_to_list(reading_list=made, paper=paper(2))
    shared_database.share()

    lines = shared_database.at_once(
        [lambda: runs.sync_libraries(sleep=lambda _: None) for _ in range(2)]
    )

    # One held the library while the other asked (skipped), or the other came after it.
    assert sorted(failed for _, failed in lines) == [0, 0]
    assert len([r for r in zotero.requests if "POST" in r[1]]) == 1
    assert shared_database.read(lambda: Collection.objects.filter(name="Made here").count()) == 1
    (key,) = [k for k, c in zotero.collections.items() if c["data"]["name"] == "Made here"]
    assert collections_of(zotero, "ITEM0002") == [key]
