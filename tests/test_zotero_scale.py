"""A lab's Zotero group library at its real size (issue 42): 2,000 items pulled whole through
`manage.py sync_zotero`, pulled again with nothing to do, followed when an item changes or is
deleted, through a 429, after a run killed half-way, and matched to catalogue papers by title
and authors when it names no identifier. Against the stand-in of Zotero's Web API v3
(tests/zotero_server.py, tests/zotero_server.group_library): nothing reaches the internet."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time
from collections import defaultdict

import pytest
from django.core.management import call_command

from annotations.models import Note, ReadingList, ReadingListItem
from papers.models import Author, Authorship, ImportRun, Paper, PaperTag, SearchChange, TagKind
from papers.tags.identity import normalize_tag_name
from papers.text import normalize_author_name
from tests import zotero_server
from tests.factories import make_paper
from tests.manage_child import run_manage
from tests.test_search_sync import BASE_DIR, server_env, shared_database_url  # noqa: F401 (a fixture)
from tests.zotero_server import API_KEY, group_item_key, group_library
from zotero import runs
from zotero.models import Item, Library

pytestmark = pytest.mark.django_db(transaction=True)

GROUP_SIZE = 2000


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
    notes = {(paper, body) for paper, body in Note.objects.values_list("paper_id", "body")}
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


def test_an_item_changed_and_one_deleted_at_zotero_are_followed(zotero, library):
    group_library(zotero, 200)
    sync_command()
    papers = paper_of_item(library)
    changed, curated, deleted = group_item_key(31), group_item_key(32), group_item_key(30)
    Paper.objects.filter(pk=papers[curated]).update(
        title="The curator's title", curator_edited_fields=["title"]
    )
    seen = zotero.version
    before = state()
    zotero.requests.clear()

    for key in (changed, curated):
        zotero.put_items({**zotero.items[key]["data"], "title": f"Renamed at Zotero {key}"})
    # Only a tag added, one other papers have: the importer finds the record unchanged, and
    # the tag is added with others in bulk.
    tagged = group_item_key(33)
    data = zotero.items[tagged]["data"]
    assert "graphs" not in {t["tag"] for t in data["tags"]}
    zotero.put_items({**data, "tags": [*data["tags"], {"tag": "graphs"}]})
    seq = SearchChange.objects.position().value
    zotero.delete_item("NOTE0030")  # Zotero deletes a child note with its parent
    zotero.delete_item(deleted)
    sync_command()

    assert Paper.objects.get(pk=papers[changed]).title == f"Renamed at Zotero {changed}"
    assert Paper.objects.get(pk=papers[curated]).title == "The curator's title"
    # The new lab tag, and the paper's search document told of it.
    assert "graphs" in lab_tags_by_paper(library.member)[papers[tagged]]
    changed_since = SearchChange.objects.filter(seq__gt=seq).values_list("paper_id", flat=True)
    assert {papers[tagged], papers[changed]} <= set(changed_since)
    # The deleted item's paper stays in the catalogue, without what the sync made for it.
    gone = papers[deleted]
    assert Paper.objects.filter(pk=gone).exists()
    assert gone not in lab_tags_by_paper(library.member)
    assert all(gone not in pks for pks in list_papers(library.member).values())
    assert not Note.objects.filter(paper_id=gone).exists()
    assert not Item.objects.filter(key__in=[deleted, "NOTE0030"]).exists()
    # Positive control: the items beside it keep theirs.
    assert papers[changed] in lab_tags_by_paper(library.member)
    assert Note.objects.filter(paper_id=papers[group_item_key(40)]).exists()
    after = state()
    assert after["papers"] == before["papers"] and after["authors"] == before["authors"]
    assert after["notes"] == before["notes"] - 1
    assert after["list items"] == before["list items"] - len(
        zotero_server.group_item(30)["collections"]
    )
    # Every request asked only for what changed since the last pull.
    asked = [query for _, query, _ in zotero.requests]
    assert [q["since"] for q in asked] == [str(seen)] * 3  # items, collections, deleted
    library.refresh_from_db()
    assert library.version == zotero.version


def test_a_429_with_backoff_is_waited_out_before_the_next_request(zotero, library):
    group_library(zotero, 250)
    zotero.refusals.append((429, {"Retry-After": "4", "Backoff": "9"}))
    zotero.backoff = 2
    # Each wait, with the number of requests the stand-in had had when it began.
    waits: list[tuple[float, int]] = []

    lines, failed = runs.sync_libraries(sleep=lambda s: waits.append((s, len(zotero.requests))))

    assert not failed, lines
    assert Paper.objects.count() == 250
    # The 429 (request 1): Backoff's 9 s, the longer, before request 2; then each answer's
    # Backoff before the next request (pages 1-2 of items, then collections, then deleted).
    assert waits == [(9.0, 1), (2.0, 2), (2.0, 3), (2.0, 4), (2.0, 5)]
    assert len(zotero.requests) == 6


def test_an_item_without_identifiers_is_the_paper_of_its_title_and_authors(zotero, library):
    ours = make_paper(
        "Sparse Attention, Revisited", authors=["Ada Lovelace", "Alan Turing"], doi="10.1/sparse"
    )
    other = make_paper("Dense Retrieval at Scale", authors=["Ada Lovelace"], doi="10.1/dense")
    zotero.put_items(
        bare_item(
            "BARE0001", "sparse attention: revisited", ["Ada", "Lovelace"], ["Alan", "Turing"]
        ),
        # Same title, other authors: another paper.
        bare_item("BARE0002", "Dense retrieval at scale", ["Grace", "Hopper"]),
    )

    sync_command()

    papers = paper_of_item(library)
    assert papers["BARE0001"] == ours.pk
    assert papers["BARE0002"] not in (ours.pk, other.pk)
    assert Paper.objects.count() == 3
    assert lab_tags_by_paper(library.member)[ours.pk] == {"zotero"}
    # Merged as any source's record: Zotero's title where no curator edited the paper's.
    ours.refresh_from_db()
    assert (ours.title, ours.doi) == ("sparse attention: revisited", "10.1/sparse")
    # The item is that paper from then on, whatever its title becomes.
    zotero.put_items({**zotero.items["BARE0001"]["data"], "title": "Sparse attention, again"})
    sync_command()
    assert Paper.objects.count() == 3
    ours.refresh_from_db()
    assert ours.title == "Sparse attention, again"


def test_an_item_with_the_title_of_a_paper_by_others_is_not_that_paper(zotero, library):
    first = make_paper("On Priors", authors=["Ada Lovelace", "Alan Turing"], doi="10.1/priors")
    zotero.put_items(
        # The same authors in another order, or one author fewer: other papers.
        bare_item("BARE0001", "On priors", ["Alan", "Turing"], ["Ada", "Lovelace"]),
        bare_item("BARE0002", "On Priors", ["Ada", "Lovelace"]),
        # Positive control: the same title and authors.
        bare_item("BARE0003", "ON PRIORS!", ["Ada", "Lovelace"], ["Alan", "Turing"]),
    )
    sync_command()
    papers = paper_of_item(library)
    assert papers["BARE0003"] == first.pk
    assert len({first.pk, papers["BARE0001"], papers["BARE0002"]}) == 3
    assert Paper.objects.count() == 3


def bare_item(key: str, title: str, *names: list[str]) -> dict:
    """A preprint naming no DOI, arXiv id or link: only its title, authors and abstract."""
    return {
        "key": key,
        "itemType": "preprint",
        "title": title,
        "creators": [
            {"creatorType": "author", "firstName": first, "lastName": last} for first, last in names
        ],
        "abstractNote": f"What {key} says in its own words.",
        "DOI": "",
        "url": "",
        "tags": [{"tag": "zotero"}],
        "collections": [],
    }


# --- A run killed half-way (child processes on a database they share with the test) -------

CONNECT = """
from tests.factories import make_user
from zotero.models import Library
Library.objects.create(group_id=4711, member=make_user("zotero-sync"))
"""
# The run's own code, killed (SIGKILL) once its import has committed, as it starts writing
# lists, tags and notes in the transaction that records the library's version.
KILLED_WRITING = """
import os, signal
from zotero import runs, writes
def killed(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
writes.apply_items = killed
runs.sync_libraries()
"""
STATE = """
import json
from annotations.models import Note, ReadingListItem
from papers.models import Author, Authorship, ImportRun, Paper, PaperTag, SearchChange, TagKind
from zotero.models import Item, Library
library = Library.objects.get()
print(json.dumps({
    "papers": Paper.objects.count(),
    "authors": Author.objects.count(),
    "authorships": Authorship.objects.count(),
    "lab tags": PaperTag.objects.filter(tag__kind=TagKind.LAB).count(),
    "list items": ReadingListItem.objects.count(),
    "distinct list items": len(set(ReadingListItem.objects.values_list("reading_list", "paper"))),
    "notes": Note.objects.count(),
    "items": Item.objects.count(),
    "item papers": len(set(Item.objects.exclude(paper=None).values_list("paper", flat=True))),
    "runs": [[r.created, r.updated] for r in ImportRun.objects.order_by("pk")],
    "version": library.version,
    "held": bool(library.held_by),
    "held until": library.held_until.timestamp() if library.held_until else 0,
}))
"""


def child(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return run_manage(env, *args, timeout=600)


def state_of(env: dict[str, str]) -> dict:
    answer = child(env, "shell", "-v", "0", "-c", STATE)
    assert answer.returncode == 0, answer.stderr
    return json.loads(answer.stdout.splitlines()[-1])


def until_lapsed(held: dict) -> None:
    """Wait for the claim of a killed run to lapse (its lease: ZOTERO_SYNC_LEASE)."""
    time.sleep(max(0.0, held["held until"] - time.time() + 0.2))


@pytest.mark.slow  # child processes, each starting Django
def test_a_run_killed_half_way_is_completed_by_the_next_without_duplicates(
    zotero, request, tmp_path
):
    # A database the child processes share with each other (and on PostgreSQL with the test).
    url = request.getfixturevalue("shared_database_url")
    env = {
        **server_env(url, tmp_path / "index"),
        "ZOTERO_API_URL": zotero.url,
        "ZOTERO_API_KEY": API_KEY,
        "ZOTERO_SYNC_LEASE": "2",
    }
    assert child(env, "shell", "-v", "0", "-c", CONNECT).returncode == 0
    group_library(zotero, GROUP_SIZE)
    items = paper_items(zotero)

    # Killed while it reads: the stand-in slows down after 10 pages.
    zotero.slow_after_pages, zotero.slow_seconds = 10, 120.0
    reading = subprocess.Popen(
        [sys.executable, "manage.py", "sync_zotero"],
        cwd=BASE_DIR,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while len(zotero.requests) <= 10 and time.monotonic() < deadline:
        time.sleep(0.05)
    reading.kill()
    assert reading.wait(timeout=30) == -signal.SIGKILL
    assert zotero.pages_served == 10
    killed = state_of(env)
    assert (killed["papers"], killed["version"], killed["held"]) == (0, 0, True)
    zotero.slow_after_pages = 10**9

    # Killed while it writes, its import committed: once the claim of the first has lapsed.
    until_lapsed(killed)
    writing = child(env, "shell", "-v", "0", "-c", textwrap.dedent(KILLED_WRITING))
    assert writing.returncode == -signal.SIGKILL, writing.stderr
    killed = state_of(env)
    assert (killed["papers"], killed["items"], killed["notes"]) == (GROUP_SIZE, 0, 0)
    assert (killed["version"], killed["held"]) == (0, True)

    until_lapsed(killed)
    done = child(env, "sync_zotero")
    assert done.returncode == 0, done.stderr
    assert f"version {zotero.version}: 2240 items" in done.stdout

    # Every item once: no paper, author, list item, tag or note twice.
    final = state_of(env)
    author_lists = [authors_of(data) for data in items.values()]
    assert final == {
        "papers": GROUP_SIZE,
        "authors": len({normalize_author_name(n) for names in author_lists for n in names}),
        "authorships": sum(len(names) for names in author_lists),
        "lab tags": sum(
            len({normalize_tag_name(t["tag"]) for t in d["tags"]}) for d in items.values()
        ),
        "list items": sum(len(d["collections"]) for d in items.values()),
        "distinct list items": sum(len(d["collections"]) for d in items.values()),
        "notes": GROUP_SIZE // 10,
        "items": len(zotero.items),
        "item papers": GROUP_SIZE,
        # The killed run's import stands; the next found its papers unchanged.
        "runs": [[GROUP_SIZE, 0], [0, 0]],
        "version": zotero.version,
        "held": False,
        "held until": 0,
    }
