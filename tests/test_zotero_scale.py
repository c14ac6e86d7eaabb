"""A lab's Zotero group library at its real size (issue 42): 2,000 items pulled whole through
`manage.py sync_zotero`, pulled again with nothing to do, followed when an item changes or is
deleted, through a 429, after a run killed half-way, and matched to catalogue papers by title
and authors when it names no identifier. Against the stand-in of Zotero's Web API v3
(tests/zotero_server.py, tests/zotero_server.group_library): nothing reaches the internet."""

from __future__ import annotations

from collections import defaultdict

import pytest
from django.core.management import call_command

from annotations.models import Note, ReadingList, ReadingListItem
from papers.models import Author, Authorship, ImportRun, Paper, PaperTag, TagKind
from papers.tags.identity import normalize_tag_name
from papers.text import normalize_author_name
from tests import zotero_server
from tests.factories import make_user
from tests.zotero_server import API_KEY, group_collection_key, group_item_key, group_library
from zotero import runs
from zotero.models import Item, Library

pytestmark = pytest.mark.django_db(transaction=True)

GROUP_SIZE = 2000


@pytest.fixture
def zotero(settings):
    server = zotero_server.start()
    settings.ZOTERO_API_URL = server.url
    settings.ZOTERO_API_KEY = API_KEY
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def library(zotero):
    return Library.objects.create(group_id=zotero.group_id, member=make_user("zotero-sync"))


def sync_command() -> None:
    """The scheduled command, as cron runs it."""
    call_command("sync_zotero")


# --- What the library says, read from the stand-in's items (not through zotero.parsing) ----


def paper_items(zotero) -> dict[str, dict]:
    return {
        key: entry["data"]
        for key, entry in zotero.items.items()
        if entry["data"]["itemType"] in zotero_server.ITEM_TYPES
    }


def authors_of(data: dict) -> list[str]:
    return [
        c.get("name") or f"{c['firstName']} {c['lastName']}"
        for c in data["creators"]
        if c["creatorType"] == "author"
    ]


def paper_of_item(library: Library) -> dict[str, int]:
    rows = Item.objects.filter(library=library, paper__isnull=False)
    return dict(rows.values_list("key", "paper_id"))


def authors_by_paper() -> dict[int, list[str]]:
    found: dict[int, list[str]] = defaultdict(list)
    rows = Authorship.objects.order_by("paper_id", "position")
    for paper_id, name in rows.values_list("paper_id", "author__name"):
        found[paper_id].append(name)
    return found


def lab_tags_by_paper(member) -> dict[int, set[str]]:
    found: dict[int, set[str]] = defaultdict(set)
    rows = PaperTag.objects.filter(tag__kind=TagKind.LAB, added_by=member)
    for paper_id, name in rows.values_list("paper_id", "tag__name"):
        found[paper_id].add(name)
    return found


def list_papers(member) -> dict[str, set[int]]:
    found: dict[str, set[int]] = defaultdict(set)
    rows = ReadingListItem.objects.filter(reading_list__owner=member)
    for name, paper_id in rows.values_list("reading_list__name", "paper_id"):
        found[name].add(paper_id)
    return found


def state() -> dict[str, object]:
    """Every row a pull writes, counted, and when papers and notes last changed."""
    return {
        "papers": Paper.objects.count(),
        "authors": Author.objects.count(),
        "authorships": Authorship.objects.count(),
        "paper tags": PaperTag.objects.count(),
        "lists": ReadingList.objects.count(),
        "list items": ReadingListItem.objects.count(),
        "notes": Note.objects.count(),
        "import runs": ImportRun.objects.count(),
        "items": Item.objects.count(),
        "papers changed": sorted(Paper.objects.values_list("pk", "updated_at")),
        "notes changed": sorted(Note.objects.values_list("pk", "updated_at")),
        "list items at": sorted(ReadingListItem.objects.values_list("pk", "position")),
    }


def test_a_2000_item_group_imports_whole_and_a_second_run_changes_nothing(zotero, library):
    group_library(zotero, GROUP_SIZE)
    items = paper_items(zotero)
    assert len(items) == GROUP_SIZE

    sync_command()

    # Every paper item is one paper, and the paper of its title.
    papers = paper_of_item(library)
    assert sorted(papers) == sorted(items)
    assert len(set(papers.values())) == Paper.objects.count() == GROUP_SIZE
    titles = dict(Paper.objects.values_list("pk", "title"))
    assert all(titles[papers[key]] == data["title"] for key, data in items.items())
    # Identifiers where the item has them; odd conference papers and one preprint in five
    # have none and are known by their abstracts.
    assert Paper.objects.exclude(doi="").count() == sum(bool(d["DOI"]) for d in items.values())
    assert Paper.objects.exclude(arxiv_id="").count() == sum(bool(d["url"]) for d in items.values())
    no_id = [k for k, d in items.items() if not d["DOI"] and not d["url"]]
    assert len(no_id) > GROUP_SIZE // 5
    # Authors in Zotero's order (no editor), each name one author across the library.
    by_paper = authors_by_paper()
    assert {key: by_paper[papers[key]] for key in items} == {
        key: authors_of(data) for key, data in items.items()
    }
    names = {normalize_author_name(n) for d in items.values() for n in authors_of(d)}
    assert Author.objects.count() == len(names)
    # Tags as the sync member's lab tags.
    expected_tags = {
        papers[key]: {normalize_tag_name(t["tag"]) for t in data["tags"]}
        for key, data in items.items()
    }
    assert lab_tags_by_paper(library.member) == expected_tags
    assert PaperTag.objects.filter(tag__kind=TagKind.LAB).count() == sum(
        len(t) for t in expected_tags.values()
    )
    # Each of the 20 collections a list of its items' papers.
    expected_lists: dict[str, set[int]] = defaultdict(set)
    for key, data in items.items():
        for collection in data["collections"]:
            expected_lists[zotero.collections[collection]["data"]["name"]].add(papers[key])
    assert len(expected_lists) == 20
    assert list_papers(library.member) == expected_lists
    assert ReadingList.objects.filter(owner=library.member).count() == 20
    assert ReadingListItem.objects.count() == sum(len(p) for p in expected_lists.values())
    # A note on every tenth item, on its paper; a PDF link on every fiftieth.
    notes = {
        (paper, body) for paper, body in Note.objects.values_list("paper_id", "body")
    }
    assert notes == {
        (papers[group_item_key(i)], f"Notes on paper {i}.\n\nCompare with {i - 1}.")
        for i in range(10, GROUP_SIZE + 1, 10)
    }
    with_pdf = set(Paper.objects.exclude(pdf_url="").values_list("pk", flat=True))
    assert with_pdf == {papers[group_item_key(i)] for i in range(50, GROUP_SIZE + 1, 50)}
    run = ImportRun.objects.get()
    assert (run.created, run.updated) == (GROUP_SIZE, 0)
    library.refresh_from_db()
    assert library.version == zotero.version and not library.is_held()
    # Pages of at most 100 (23 of items: papers, notes, attachments), each at one version.
    assert len(zotero.asked("items")) == 23

    before = state()
    zotero.requests.clear()

    sync_command()

    assert state() == before
    asked = [query for path, query, _ in zotero.requests]
    assert asked and all(int(query["since"]) >= library.version for query in asked)
    library.refresh_from_db()
    assert library.version == zotero.version
