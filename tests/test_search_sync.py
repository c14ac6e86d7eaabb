"""The search index follows the database: every write records its change, every process
catches its own index up before answering, and a damaged index is rebuilt, never used.

Documents are looked up with Tantivy term queries on the index fields directly.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
import tantivy
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.db.models import F
from django.urls import reverse

from annotations.services import add_lab_tag
from papers import derived_index
from papers.importing.pipeline import import_paths
from papers.models import Author, Paper, SearchChange, SearchSequence, Tag, TagKind
from papers.search import documents, engine, schema, store, sync
from papers.search.store import IndexUnavailable, SearchIndex
from papers.services import merge_authors
from tests.factories import make_paper, make_tag
from tests.manage_child import run_manage
from tests.test_admin_papers import change_form_data, change_url

BASE_DIR = Path(__file__).resolve().parent.parent
SCHEMA = schema.build_schema()

pytestmark = pytest.mark.django_db


def found(searcher: tantivy.Searcher, field: str, value) -> list[int]:
    """Ids of the papers whose `field` holds the term `value`, one entry per document."""
    query = tantivy.Query.term_query(SCHEMA, field, value)
    hits = searcher.search(query, 10_000).hits
    return sorted(searcher.doc(address).get_first(schema.ID) for _, address in hits)


def current() -> tantivy.Searcher:
    return sync.current_searcher()


def index_dir(settings) -> Path:
    return Path(settings.SEARCH_INDEX_DIR)


def changed_since(seq: int) -> set[int]:
    return set(SearchChange.objects.filter(seq__gt=seq).values_list("paper_id", flat=True))


def seq_now() -> int:
    return SearchChange.objects.position().value


def write_jsonl(path: Path, records: list[dict]) -> str:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return str(path)


# --- Every write path records its change -------------------------------------------------


def test_import_records_created_and_changed_papers_once_per_import(tmp_path):
    records = [
        {"title": f"Axolotl study {i}", "forum_id": f"ax{i}", "abstract": f"Limbs {i}."}
        for i in range(3)
    ]
    before = seq_now()
    import_paths([write_jsonl(tmp_path / "v1.jsonl", records)])
    ids = set(Paper.objects.values_list("pk", flat=True))
    assert seq_now() == before + 1  # one bump for the whole import
    assert changed_since(before) == ids
    assert found(current(), schema.TITLE, "axolotl") == sorted(ids)

    before = seq_now()
    import_paths([write_jsonl(tmp_path / "same.jsonl", records)])
    assert seq_now() == before  # nothing changed, nothing recorded

    records[1]["pdf"] = "https://openreview.net/pdf?id=ax1"  # not in any document
    import_paths([write_jsonl(tmp_path / "pdf.jsonl", records)])
    assert seq_now() == before

    records[1]["title"] = "Narwhal study"
    import_paths([write_jsonl(tmp_path / "v2.jsonl", records)])
    renamed = Paper.objects.get(forum_id="ax1").pk
    assert changed_since(before) == {renamed}
    searcher = current()
    assert found(searcher, schema.TITLE, "narwhal") == [renamed]
    assert renamed not in found(searcher, schema.TITLE, "axolotl")


def test_a_dry_run_import_records_nothing(tmp_path):
    before = seq_now()
    import_paths(
        [write_jsonl(tmp_path / "a.jsonl", [{"title": "T", "abstract": "A."}])], dry_run=True
    )
    assert seq_now() == before
    assert not SearchChange.objects.exists()


def test_admin_title_edit_is_found_by_its_new_title_on_the_next_request(admin_client):
    paper = make_paper("Axolotl regeneration")
    assert found(current(), schema.TITLE, "axolotl") == [paper.pk]

    response = admin_client.post(change_url(paper), change_form_data(paper, title="Narwhal tusks"))
    assert response.status_code == 302
    searcher = current()
    assert found(searcher, schema.TITLE, "narwhal") == [paper.pk]
    assert found(searcher, schema.TITLE, "axolotl") == []
    assert found(searcher, schema.ID, paper.pk) == [paper.pk]


def test_admin_author_inline_edit_reaches_the_index(admin_client):
    paper = make_paper("One", authors=["Ada Lovelace"])
    hopper = Author.objects.create(name="Grace Hopper")
    current()
    stored = paper.authorships.get()
    authors = [
        {"id": stored.pk, "paper": paper.pk, "position": 0, "author": stored.author_id},
        {"paper": paper.pk, "position": 1, "author": hopper.pk},
    ]
    response = admin_client.post(change_url(paper), change_form_data(paper, authors=authors))
    assert response.status_code == 302
    searcher = current()
    assert found(searcher, schema.AUTHOR_IDS, hopper.pk) == [paper.pk]
    assert found(searcher, schema.AUTHORS, "hopper") == [paper.pk]


def test_admin_tag_inline_edits_reach_the_index(admin_client):
    paper = make_paper("One", tags=[("ICLR 2024", TagKind.VENUE)])
    venue = Tag.objects.get(name="ICLR 2024")
    oral = make_tag("Oral", TagKind.TRACK)
    current()
    stored = paper.paper_tags.get()
    tags = [
        {"id": stored.pk, "paper": paper.pk, "tag": venue.pk, "DELETE": "on"},
        {"paper": paper.pk, "tag": oral.pk},
    ]
    response = admin_client.post(change_url(paper), change_form_data(paper, tags=tags))
    assert response.status_code == 302
    searcher = current()
    assert found(searcher, schema.TRACK_IDS, oral.pk) == [paper.pk]
    assert found(searcher, schema.VENUE_IDS, venue.pk) == []


def test_paper_deleted_in_admin_leaves_the_index(admin_client):
    kept, gone, also_gone = make_paper("Kept"), make_paper("Gone"), make_paper("Also gone")
    assert current().num_docs == 3

    url = reverse("admin:papers_paper_delete", args=[gone.pk])
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    searcher = current()
    assert found(searcher, schema.ID, gone.pk) == []
    assert searcher.num_docs == 2

    before = seq_now()
    action = {"action": "delete_selected", "_selected_action": [also_gone.pk], "post": "yes"}
    assert admin_client.post(reverse("admin:papers_paper_changelist"), action).status_code == 302
    assert seq_now() == before + 1
    searcher = current()
    assert found(searcher, schema.ID, also_gone.pk) == []
    assert found(searcher, schema.ID, kept.pk) == [kept.pk]


def test_deleting_many_papers_is_one_record():
    papers = [
        make_paper(authors=["Ada Lovelace"], tags=[("Oral", TagKind.TRACK)]) for _ in range(5)
    ]
    before = seq_now()
    Paper.objects.filter(pk__in=[p.pk for p in papers]).delete()
    assert seq_now() == before + 1
    assert changed_since(before) == {p.pk for p in papers}


def test_author_rename_in_admin_reaches_the_index(admin_client):
    paper = make_paper("One", authors=["Ada Lovelace", "A. Turing"])
    turing = Author.objects.get(name="A. Turing")
    current()
    response = admin_client.post(
        reverse("admin:papers_author_change", args=[turing.pk]), {"name": "Grace Hopper"}
    )
    assert response.status_code == 302
    assert found(current(), schema.AUTHORS, "hopper") == [paper.pk]


def test_merged_authors_reach_the_index():
    first = make_paper("One", authors=["J. Smith"])
    second = make_paper("Two", authors=["John Smith", "Ada Lovelace"])
    keep, other = Author.objects.get(name="John Smith"), Author.objects.get(name="J. Smith")
    current()
    merge_authors(target=keep, others=[other])
    searcher = current()
    assert found(searcher, schema.AUTHOR_IDS, keep.pk) == sorted([first.pk, second.pk])
    assert found(searcher, schema.AUTHOR_IDS, other.pk) == []


def test_lab_tag_added_and_removed_by_a_member_reaches_the_index(client, user):
    paper = make_paper("One")
    current()
    client.force_login(user)
    client.post(reverse("annotations:tag-add", args=[paper.pk]), {"name": "kelp"})
    tag = Tag.objects.get(kind=TagKind.LAB, name="kelp")
    assert found(current(), schema.LAB_IDS, tag.pk) == [paper.pk]

    paper_tag = paper.paper_tags.get(tag=tag)
    client.post(reverse("annotations:tag-remove", args=[paper_tag.pk]))
    assert found(current(), schema.LAB_IDS, tag.pk) == []


def test_tag_kind_change_is_recorded_and_a_rename_is_not(admin_client):
    paper = make_paper("One")
    paper_tag = add_lab_tag(user=None, paper=paper, name="kelp")
    tag = paper_tag.tag
    current()
    url = reverse("admin:papers_tag_change", args=[tag.pk])

    before = seq_now()
    assert admin_client.post(url, {"name": "Kelp forests", "kind": "lab"}).status_code == 302
    assert seq_now() == before  # documents hold tag ids, not names

    assert admin_client.post(url, {"name": "Kelp forests", "kind": "track"}).status_code == 302
    assert changed_since(before) == {paper.pk}
    searcher = current()
    assert found(searcher, schema.TRACK_IDS, tag.pk) == [paper.pk]
    assert found(searcher, schema.LAB_IDS, tag.pk) == []


def test_deleting_a_tag_removes_it_from_every_paper_in_one_record():
    papers = [make_paper(tags=[("ICLR 2024", TagKind.VENUE)]) for _ in range(3)]
    venue = Tag.objects.get(name="ICLR 2024")
    assert found(current(), schema.VENUE_IDS, venue.pk) == sorted(p.pk for p in papers)
    before, venue_id = seq_now(), venue.pk
    venue.delete()
    assert seq_now() == before + 1
    assert found(current(), schema.VENUE_IDS, venue_id) == []


def test_recording_nothing_does_not_bump_the_counter():
    before = seq_now()
    assert SearchChange.objects.record([]) is None
    assert seq_now() == before


def test_a_flushed_database_gets_its_counter_back():
    SearchSequence.objects.all().delete()
    assert SearchChange.objects.position().value == 0
    paper = make_paper("Axolotl")
    assert SearchChange.objects.position().value == 1
    assert found(current(), schema.TITLE, "axolotl") == [paper.pk]


# --- Catching up --------------------------------------------------------------------------


def test_the_fast_path_is_one_query(django_assert_num_queries):
    paper = make_paper("Okapi")
    current()
    with django_assert_num_queries(1):
        searcher = current()
    assert found(searcher, schema.TITLE, "okapi") == [paper.pk]


def test_two_servers_with_their_own_directories_both_see_a_lab_tag(tmp_path, user):
    paper = make_paper("One")
    first, second = SearchIndex(tmp_path / "server-a"), SearchIndex(tmp_path / "server-b")
    first.catch_up(), second.catch_up()
    tag = add_lab_tag(user=user, paper=paper, name="kelp").tag  # through either server
    assert found(first.catch_up(), schema.LAB_IDS, tag.pk) == [paper.pk]
    assert found(second.catch_up(), schema.LAB_IDS, tag.pk) == [paper.pk]


def test_updates_keep_each_popular_author_on_all_of_their_papers_or_none(tmp_path, monkeypatch):
    monkeypatch.setattr(documents, "POPULAR_AUTHORS", 1)
    for n in range(3):
        make_paper(f"Ann {n}", authors=["Ann Often", "Bo Later"] if n == 0 else ["Ann Often"])
    index = SearchIndex(tmp_path / "server")
    index.catch_up()  # built: Ann is the popular author
    for n in range(4):  # Bo overtakes Ann through updates, and Ann gets one more paper
        make_paper(f"Bo {n}", authors=["Bo Later", "Ann Often"] if n == 0 else ["Bo Later"])
    searcher = index.catch_up()
    ann, bo = Author.objects.get(name="Ann Often").pk, Author.objects.get(name="Bo Later").pk
    request = {"popular": {"terms": {"field": schema.POPULAR_AUTHOR_IDS}}}
    buckets = searcher.aggregate(tantivy.Query.all_query(), request)["popular"]["buckets"]
    assert {int(b["key"]): b["doc_count"] for b in buckets} == {ann: 4}  # all of Ann's
    # Bo, not popular in this index, is the top author: counted exactly all the same.
    facets = engine.search(searcher, engine.BrowseQuery(), author_facet_size=1).facets
    assert facets.author == {bo: 5}


def test_a_process_sees_what_another_process_applied_by_reloading(tmp_path):
    paper = make_paper("Axolotl")
    writer, reader = SearchIndex(tmp_path / "shared"), SearchIndex(tmp_path / "shared")
    writer.catch_up(), reader.catch_up()
    Paper.objects.filter(pk=paper.pk).update(title="Narwhal")
    SearchChange.objects.record([paper.pk])
    assert found(writer.catch_up(), schema.TITLE, "narwhal") == [paper.pk]
    assert found(reader.catch_up(), schema.TITLE, "narwhal") == [paper.pk]
    assert (writer.papers_applied, reader.papers_applied) == (1, 0)
    assert reader.builds == 0


class Killed(BaseException):
    """Stands for the process dying: nothing after it runs."""


def test_writer_killed_between_commit_and_state_write_leaves_no_paper_missing(
    settings, monkeypatch
):
    papers = [make_paper(f"Axolotl {i}") for i in range(5)]
    current()
    state_before = SearchIndex(index_dir(settings)).read_state()
    for paper in papers[:3]:
        paper.title = "Narwhal"
        paper.save()
    deleted = papers.pop()
    deleted_id = deleted.pk
    deleted.delete()
    added = make_paper("Quokka")

    def die(self, state):
        raise Killed

    with monkeypatch.context() as patch:
        patch.setattr(SearchIndex, "_write_state", die)
        with pytest.raises(Killed):
            current()
    # Tantivy committed; the state still says what it said before.
    assert SearchIndex(index_dir(settings)).read_state() == state_before

    restarted = SearchIndex(index_dir(settings))
    searcher = restarted.catch_up()
    assert restarted.builds == 0  # caught up, not rebuilt
    assert found(searcher, schema.TITLE, "narwhal") == sorted(p.pk for p in papers[:3])
    for paper in Paper.objects.all():
        assert found(searcher, schema.ID, paper.pk) == [paper.pk]
    assert found(searcher, schema.ID, deleted_id) == []
    assert found(searcher, schema.ID, added.pk) == [added.pk]
    assert searcher.num_docs == Paper.objects.count()


def test_deleted_index_directory_is_rebuilt(settings):
    paper = make_paper("Axolotl")
    current()
    shutil.rmtree(index_dir(settings))
    sync.reset()  # a process starting now
    assert found(current(), schema.ID, paper.pk) == [paper.pk]
    assert sync.search_index().builds == 1


def test_a_process_whose_directory_was_deleted_rebuilds_at_the_next_change(settings):
    paper = make_paper("Axolotl")
    current()
    shutil.rmtree(index_dir(settings))
    paper.title = "Narwhal"
    paper.save()
    assert found(current(), schema.TITLE, "narwhal") == [paper.pk]
    assert sync.search_index().builds == 2


def _state_path(settings) -> Path:
    return index_dir(settings) / derived_index.STATE_FILE


def _generation_path(settings) -> Path:
    return index_dir(settings) / SearchIndex(index_dir(settings)).read_state().generation


@pytest.mark.parametrize(
    "damage",
    [
        lambda s: _state_path(s).write_text("{not json"),
        lambda s: _state_path(s).write_text('{"format": 1, "generation": 7}'),
        lambda s: _state_path(s).write_text("[]"),
        lambda s: _state_path(s).unlink(),
        lambda s: (_generation_path(s) / "meta.json").unlink(),
        lambda s: (_generation_path(s) / "meta.json").write_text("garbage"),
        lambda s: shutil.rmtree(_generation_path(s)),
    ],
    ids=[
        "state-not-json",
        "state-malformed",
        "state-not-object",
        "state-missing",
        "meta-missing",
        "meta-corrupt",
        "generation-missing",
    ],
)
def test_damaged_index_is_rebuilt_not_used(settings, damage):
    papers = [make_paper(f"Axolotl {i}") for i in range(3)]
    current()
    damage(settings)
    sync.reset()  # a process starting now
    searcher = current()
    assert sync.search_index().builds == 1
    assert found(searcher, schema.TITLE, "axolotl") == sorted(p.pk for p in papers)
    assert searcher.num_docs == 3


def test_half_built_generation_is_never_opened_and_is_cleaned_up(settings):
    make_paper("Axolotl")
    current()
    leftover = index_dir(settings) / f"{store.BUILDING_PREFIX}gen-crashed"
    leftover.mkdir()
    (leftover / "meta.json").write_text("{}")
    SearchIndex(index_dir(settings)).rebuild()
    assert not leftover.exists()


def test_index_of_another_schema_version_or_database_is_rebuilt(settings):
    make_paper("Axolotl")
    current()
    for key, value in [("schema_version", 0), ("database_id", "another-database")]:
        state = json.loads(_state_path(settings).read_text())
        state[key] = value
        _state_path(settings).write_text(json.dumps(state))
        index = SearchIndex(index_dir(settings))
        assert index.catch_up().num_docs == 1
        assert index.builds == 1


def test_an_index_of_a_newer_schema_is_left_alone_for_the_newer_code(settings):
    make_paper("Axolotl")
    current()
    state = json.loads(_state_path(settings).read_text())
    state["schema_version"] = schema.SCHEMA_VERSION + 1
    _state_path(settings).write_text(json.dumps(state))
    index = SearchIndex(index_dir(settings))
    with pytest.raises(IndexUnavailable, match="restart"):
        index.catch_up()
    assert index.builds == 0
    assert json.loads(_state_path(settings).read_text()) == state


def test_database_counter_below_the_index_forces_a_rebuild(settings):
    paper = make_paper("Axolotl")
    make_paper("Narwhal")
    current()
    # A restored backup: the counter went back (and so did the data it counted).
    SearchSequence.objects.update(value=F("value") - 1)
    searcher = current()
    assert sync.search_index().builds == 2
    assert found(searcher, schema.TITLE, "axolotl") == [paper.pk]


def test_a_rolled_back_change_never_stays_in_the_index():
    paper = make_paper("Axolotl")
    current()
    with pytest.raises(RuntimeError), transaction.atomic():
        Paper.objects.filter(pk=paper.pk).update(title="Narwhal")
        SearchChange.objects.record([paper.pk])
        # Applied while uncommitted (a search inside the writing transaction)...
        assert found(current(), schema.TITLE, "narwhal") == [paper.pk]
        raise RuntimeError("rolled back")
    # ...then gone: the counter is below the applied seq, so the index is rebuilt.
    searcher = current()
    assert found(searcher, schema.TITLE, "narwhal") == []
    assert found(searcher, schema.TITLE, "axolotl") == [paper.pk]


def test_a_rolled_back_seq_reused_by_another_change_forces_a_rebuild():
    paper, other = make_paper("Axolotl"), make_paper("Quokka")
    current()
    with pytest.raises(RuntimeError), transaction.atomic():
        Paper.objects.filter(pk=paper.pk).update(title="Narwhal")
        SearchChange.objects.record([paper.pk])
        current()
        raise RuntimeError("rolled back")
    # The same seq again, committed, for another paper: same counter value, another token.
    other.title = "Quokka island"
    other.save()
    searcher = current()
    assert sync.search_index().builds == 2
    assert found(searcher, schema.TITLE, "narwhal") == []
    assert found(searcher, schema.TITLE, "island") == [other.pk]


def test_changes_pruned_past_the_index_force_a_rebuild(settings, tmp_path):
    paper = make_paper("Axolotl")
    lagging = SearchIndex(tmp_path / "lagging")
    lagging.catch_up()
    for title in ["Narwhal", "Quokka"]:
        paper.title = title
        paper.save()
    current()  # this server is current
    SearchChange.objects.prune(through=seq_now())
    assert SearchChange.objects.position().pruned_through == seq_now() - 1

    assert found(lagging.catch_up(), schema.TITLE, "quokka") == [paper.pk]
    assert lagging.builds == 2  # its changes were pruned
    paper.title = "Kakapo"
    paper.save()
    assert found(current(), schema.TITLE, "kakapo") == [paper.pk]
    assert sync.search_index().builds == 1  # a current index keeps working


def test_rebuild_publishes_a_new_generation_and_removes_unused_ones(settings):
    make_paper("Axolotl")
    index = SearchIndex(index_dir(settings))
    first = index.rebuild()
    second = index.rebuild()
    generations = sorted(p.name for p in index_dir(settings).glob(f"{store.GENERATION_PREFIX}*"))
    assert generations == [second.generation] != [first.generation]
    assert index.read_state().generation == second.generation


def test_a_generation_in_use_is_kept_until_its_process_moves_on(settings):
    paper = make_paper("Axolotl")
    reader = SearchIndex(index_dir(settings))
    reader.catch_up()
    old = reader.read_state().generation
    new = SearchIndex(index_dir(settings)).rebuild().generation
    assert (index_dir(settings) / old).exists()  # the reader still has it open
    paper.title = "Narwhal"
    paper.save()
    assert found(reader.catch_up(), schema.TITLE, "narwhal") == [paper.pk]
    assert not (index_dir(settings) / old).exists()
    assert (index_dir(settings) / new).exists()


def test_changes_during_a_rebuild_are_applied_before_it_is_published(settings, monkeypatch):
    paper = make_paper("Axolotl")
    real_build = store._build

    def build_then_write(path, progress):
        count = real_build(path, progress)
        Paper.objects.filter(pk=paper.pk).update(title="Narwhal")
        SearchChange.objects.record([paper.pk])
        return count

    monkeypatch.setattr(store, "_build", build_then_write)
    SearchIndex(index_dir(settings)).rebuild()
    monkeypatch.undo()
    state = SearchIndex(index_dir(settings)).read_state()
    assert state.applied_seq == seq_now()
    assert found(current(), schema.TITLE, "narwhal") == [paper.pk]


def test_big_catalogue_without_index_builds_in_the_background_and_answers_503(
    settings, monkeypatch, client
):
    make_paper("Axolotl")
    monkeypatch.setattr(store, "INLINE_REBUILD_MAX_PAPERS", 0)
    release = threading.Event()
    started = []

    def background(self, broken):
        started.append(self)
        release.wait(10)

    monkeypatch.setattr(SearchIndex, "_rebuild_in_background", background)
    with pytest.raises(IndexUnavailable) as raised:
        current()
    assert raised.value.command == "python manage.py rebuild_search_index"
    assert client.get(reverse("healthz")).status_code == 503
    assert len(started) == 1  # one build per process, however many requests ask
    release.set()
    SearchIndex(index_dir(settings)).rebuild()  # what the background thread does
    assert current().num_docs == 1
    assert client.get(reverse("healthz")).status_code == 200


def test_unwritable_index_directory_is_unavailable_not_an_error(settings, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    settings.SEARCH_INDEX_DIR = blocker / "index"  # its parent is a file
    sync.reset()
    make_paper("Axolotl")
    with pytest.raises(IndexUnavailable):
        current()


def test_healthz_builds_a_missing_index_and_says_ok(client, settings):
    make_paper("Axolotl")
    assert client.get(reverse("healthz")).status_code == 200
    assert SearchIndex(index_dir(settings)).read_state() is not None


def test_rebuild_command_builds_the_index_and_reports_its_rate(capsys, settings):
    paper = make_paper("Axolotl")
    call_command("rebuild_search_index")
    output = capsys.readouterr().out
    assert "Rebuilt the search index" in output and "papers/s" in output
    assert found(current(), schema.ID, paper.pk) == [paper.pk]
    assert sync.search_index().builds == 0  # the command built it


@pytest.mark.parametrize("command", ["update_search_index", "rebuild_search_index"])
def test_index_commands_name_the_setting_when_the_directory_cannot_be_written(
    command, settings, tmp_path
):
    # A mistyped or read-only SEARCH_INDEX_DIR (here: below a regular file, unwritable even for
    # root) is the operator's to fix: a one-line error naming the setting, not a traceback.
    make_paper("Axolotl")
    (tmp_path / "a-file").write_text("")
    settings.SEARCH_INDEX_DIR = tmp_path / "a-file" / "index"
    with pytest.raises(CommandError, match="SEARCH_INDEX_DIR") as raised:
        call_command(command)
    assert str(tmp_path / "a-file" / "index") in str(raised.value)


def test_update_command_builds_a_missing_index_then_only_catches_up(capsys, settings):
    paper = make_paper("Axolotl")
    call_command("update_search_index")
    assert "Built the search index" in capsys.readouterr().out
    generation = SearchIndex(index_dir(settings)).read_state().generation
    paper.title = "Narwhal"
    paper.save()
    call_command("update_search_index", "--prune-days", "0")
    output = capsys.readouterr().out
    assert "Built" not in output and "is current: 1 papers" in output
    assert SearchIndex(index_dir(settings)).read_state().generation == generation
    assert found(current(), schema.TITLE, "narwhal") == [paper.pk]


@pytest.mark.django_db(transaction=True)
def test_concurrent_catch_up_from_two_threads_applies_each_change_once(settings):
    papers = [make_paper(f"Axolotl {i}") for i in range(20)]
    first, second = SearchIndex(index_dir(settings)), SearchIndex(index_dir(settings))
    first.catch_up()
    second.catch_up()
    for paper in papers:
        paper.title = f"Narwhal {paper.pk}"
        paper.save()

    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def catch_up(index):
        try:
            barrier.wait()
            index.catch_up()
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=catch_up, args=(i,)) for i in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert errors == []
    assert first.papers_applied + second.papers_applied == len(papers)
    for index in (first, second):
        searcher = index.catch_up()
        assert found(searcher, schema.TITLE, "narwhal") == sorted(p.pk for p in papers)
        assert searcher.num_docs == len(papers)


# --- Other processes -----------------------------------------------------------------------


@pytest.fixture
def shared_database_url(tmp_path) -> str:
    """A database URL another process can open, with the schema migrated.

    SQLite's test database lives in this process's memory: other processes get a file
    database of their own. On PostgreSQL they share the test database, which the tests using
    this are marked to use outside a transaction (pytest-django flushes it afterwards).
    """
    if connection.vendor == "sqlite":
        url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
        manage(url, tmp_path / "unused-index", "migrate", "--noinput", "-v0")
        return url
    db = connection.settings_dict
    password = f":{db['PASSWORD']}" if db["PASSWORD"] else ""
    return f"postgres://{db['USER']}{password}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def server_env(url: str, index: Path) -> dict[str, str]:
    """The environment of another app server on the same database with its own index."""
    return {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SECRET_KEY": "insecure-test-only-key",
        "SEARCH_INDEX_DIR": str(index),
    }


def manage(url: str, index: Path, *args: str, check: bool = True, **kwargs):
    return run_manage(server_env(url, index), *args, check=check, **kwargs)


def shell(url: str, index: Path, code: str, **kwargs):
    return manage(url, index, "shell", "-v", "0", "-c", textwrap.dedent(code), **kwargs)


def shell_started(url: str, index: Path, code: str) -> subprocess.Popen:
    """`shell` without waiting: the process runs `code` alongside the test, which reads its
    output as it comes (and must kill it in the end)."""
    return subprocess.Popen(
        [sys.executable, "manage.py", "shell", "-v", "0", "-c", textwrap.dedent(code)],
        cwd=BASE_DIR,
        env=server_env(url, index),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow  # child processes, each starting Django
@pytest.mark.django_db(transaction=True)
def test_a_second_server_process_sees_a_lab_tag_within_a_second(shared_database_url, tmp_path):
    url = shared_database_url
    shell(
        url,
        tmp_path / "a",
        """
        from tests.factories import make_paper, make_user
        make_paper("Axolotl")
        make_user("tagger")
        """,
    )
    server_b = tmp_path / "b"
    watcher = shell_started(
        url,
        server_b,
        """
        import time
        import tantivy
        from papers.search import schema, sync
        tagged = tantivy.Query.exists_query(schema.LAB_IDS)
        assert sync.current_searcher().search(tagged, 1).count == 0
        print("ready", flush=True)
        deadline = time.time() + 20
        while time.time() < deadline:
            if sync.current_searcher().search(tagged, 1).count:
                print("seen", time.time(), flush=True)
                break
            time.sleep(0.02)
        """,
    )
    try:
        assert watcher.stdout.readline().strip() == "ready"
        added = shell(
            url,
            tmp_path / "a",
            """
            import time
            from django.contrib.auth import get_user_model
            from annotations.services import add_lab_tag
            from papers.models import Paper
            from papers.search import schema, sync
            import tantivy
            tag = add_lab_tag(
                user=get_user_model().objects.get(username="tagger"),
                paper=Paper.objects.get(),
                name="kelp",
            ).tag
            print(time.time())
            query = tantivy.Query.term_query(schema.build_schema(), schema.LAB_IDS, tag.pk)
            print(sync.current_searcher().search(query, 1).count)
            """,
        )
        committed, seen_by_a = added.stdout.split()
        out, err = watcher.communicate(timeout=30)
    finally:
        watcher.kill()
    assert seen_by_a == "1"
    assert out.startswith("seen"), err
    assert float(out.split()[1]) - float(committed) < 1.0


@pytest.mark.slow  # child processes, each starting Django
@pytest.mark.django_db(transaction=True)
def test_a_killed_writer_process_leaves_an_index_that_catches_up(shared_database_url, tmp_path):
    url, index = shared_database_url, tmp_path / "index"
    shell(
        url,
        index,
        """
        from tests.factories import make_paper
        for i in range(50):
            make_paper(f"Axolotl {i}")
        """,
    )
    manage(url, index, "update_search_index")
    state_before = json.loads((index / derived_index.STATE_FILE).read_text())
    killed = shell(
        url,
        index,
        """
        import os
        from papers.models import Paper
        from papers.search import store, sync
        for paper in Paper.objects.order_by("pk")[:20]:
            paper.title = "Narwhal"
            paper.save()
        Paper.objects.order_by("pk").last().delete()

        def die(self, state):
            os._exit(9)  # after Tantivy's commit, before the state is written

        store.SearchIndex._write_state = die
        sync.current_searcher()
        """,
        check=False,
    )
    assert killed.returncode == 9, killed.stderr
    assert json.loads((index / derived_index.STATE_FILE).read_text()) == state_before
    checked = shell(
        url,
        index,
        """
        import tantivy
        from papers.models import Paper
        from papers.search import schema, sync
        searcher = sync.current_searcher()
        fields = schema.build_schema()
        ids = set(Paper.objects.values_list("pk", flat=True))
        for pk in ids:
            query = tantivy.Query.term_query(fields, schema.ID, pk)
            assert searcher.search(query, 5).count == 1, pk
        narwhals = tantivy.Query.term_query(fields, schema.TITLE, "narwhal")
        print(searcher.num_docs, len(ids), searcher.search(narwhals, 100).count)
        print(sync.search_index().builds, sync.search_index().papers_applied)
        """,
    )
    sizes, work = checked.stdout.strip().splitlines()
    assert sizes == "49 49 20"
    assert work == "0 21"  # caught up (20 edits and a deletion), not rebuilt


@pytest.mark.slow  # child processes, each starting Django
@pytest.mark.django_db(transaction=True)
def test_a_generation_is_switched_atomically_under_a_reading_process(shared_database_url, tmp_path):
    url, index = shared_database_url, tmp_path / "index"
    shell(url, index, "from tests.factories import make_paper\nmake_paper('Axolotl')")
    manage(url, index, "update_search_index")
    reader = shell_started(
        url,
        index,
        """
        import sys, time
        from papers.search import sync
        counts = set()
        deadline = time.time() + 4
        while time.time() < deadline:
            counts.add(sync.current_searcher().num_docs)
        print(sorted(counts))
        """,
    )
    try:
        for _ in range(3):
            manage(url, index, "rebuild_search_index")
        out, err = reader.communicate(timeout=30)
    finally:
        reader.kill()
    assert reader.returncode == 0, err
    assert out.strip() == "[1]"  # never an empty or half-built index
