"""The search index and the vector index catch up through one base (papers/derived_index.py):
the changed papers' ids are applied in chunks, so a catch-up of any size keeps its feature on;
in a request both read the change counter once (SearchChange.objects.request_position).

Both tests record 250,000 changes in one bump (an import or a purge of that size): past
SQLite's variable limit here (250,000) and PostgreSQL's 65,535 parameters, which a catch-up
reading them in one `IN` list exceeded, turning search by meaning off until a rebuild.
"""

from __future__ import annotations

import numpy as np
import pytest
import tantivy
from django.core.signals import request_finished, request_started
from django.db import close_old_connections, connection, transaction
from django.test.utils import CaptureQueriesContext

from papers import derived_index
from papers.models import Paper, SearchChange
from papers.search import meaning, schema, store, sync
from semantic import embedder as embedder_module
from semantic import search
from semantic.models import PaperEmbedding
from semantic.services import embed_papers
from tests.factories import make_paper
from tests.semantic_helpers import WordHashEmbedder

pytestmark = pytest.mark.django_db

MANY = 250_000


def record_many_changes(*paper_ids: int) -> None:
    """One bump naming `paper_ids` and MANY papers that no longer exist. The many rows are
    written by one INSERT ... SELECT over a counted range: record() writes row by row, which
    takes 30 s on PostgreSQL here."""
    gone = (Paper.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1
    with transaction.atomic():
        seq = SearchChange.objects.record(paper_ids)
        token = SearchChange.objects.position().token
        table = connection.ops.quote_name(SearchChange._meta.db_table)
        count = "SELECT CAST(%s AS BIGINT) UNION ALL SELECT n + 1 FROM ids WHERE n < %s"
        insert = f"INSERT INTO {table} (seq, paper_id, token) SELECT %s, n, %s FROM ids"  # noqa: S608
        with connection.cursor() as cursor:
            cursor.execute(
                f"WITH RECURSIVE ids(n) AS ({count}) {insert}", [gone, gone + MANY - 1, seq, token]
            )
    assert SearchChange.objects.filter(seq=seq).count() == MANY + len(paper_ids)


class LargestQuery:
    """An execute wrapper that keeps the most parameters one statement was given (before any
    client-side binding: Django's PostgreSQL backend binds them itself, so no server limit is
    hit there, but a 250,000-item list is still sent and parsed)."""

    def __init__(self) -> None:
        self.most = 0

    def __call__(self, execute, sql, params, many, context):
        if not many:
            self.most = max(self.most, len(params or ()))
        return execute(sql, params, many, context)


@pytest.fixture
def fake_embedder(settings) -> WordHashEmbedder:
    settings.SEMANTIC_SEARCH = "auto"
    settings.SEMANTIC_EMBEDDER = "tests.semantic_helpers.word_hash_embedder"
    embedder_module.reset()
    search.reset()
    loaded = embedder_module.get_embedder()
    assert isinstance(loaded, WordHashEmbedder)
    return loaded


def test_a_vector_catch_up_after_250000_changes_keeps_search_by_meaning_on(fake_embedder):
    glaciers = make_paper("Glaciers", abstract="Ice sheets melt under warming oceans.")
    proteins = make_paper("Proteins", abstract="Folding chains of amino acids into shapes.")
    embed_papers(fake_embedder)
    index = search.vector_index(fake_embedder)
    index.current()
    vectors_before = index.vectors_applied

    glaciers.abstract = "Tulips, windmills and canals of the lowlands."
    glaciers.save()
    embed_papers(fake_embedder)  # its own bump, then the many
    record_many_changes(proteins.pk)

    largest = LargestQuery()
    with connection.execute_wrapper(largest):
        assert meaning.nearest("tulips windmills canals lowlands")[0] == glaciers.pk
    assert meaning.neighbours(proteins.pk) == ()  # nothing near it, and no failure
    assert largest.most <= derived_index.CHANGE_CHUNK + 1  # the ids of a chunk, the model
    # Caught up, not rebuilt: only the chunk holding the changed vector was added again
    # (both papers); the chunks of papers without a vector left the file as it was.
    assert (index.builds, index.vectors_applied) == (1, vectors_before + 2)
    assert index.papers_applied == MANY + 2


def test_a_search_index_catch_up_after_250000_changes_keeps_search_on(settings):
    axolotl = make_paper("Axolotl limbs")
    sync.current_searcher()  # built
    index = sync.search_index()

    Paper.objects.filter(pk=axolotl.pk).update(title="Narwhal tusks")
    record_many_changes(axolotl.pk)
    largest = LargestQuery()
    with connection.execute_wrapper(largest):
        searcher = sync.current_searcher()

    query = tantivy.Query.term_query(schema.build_schema(), schema.TITLE, "narwhal")
    hits = searcher.search(query, 10).hits
    assert [searcher.doc(address).get_first(schema.ID) for _, address in hits] == [axolotl.pk]
    assert index.builds == 1 and index.papers_applied == MANY + 1
    assert largest.most <= store.APPLY_CHUNK


def test_every_chunk_of_a_catch_up_stays_under_the_chunk_size(monkeypatch, fake_embedder):
    """The chunking itself, with a small chunk: each chunk reaches the index on its own."""
    papers = [make_paper(f"Glaciers {n}", abstract=f"Ice sheet {n} melts.") for n in range(7)]
    embed_papers(fake_embedder)
    index = search.vector_index(fake_embedder)
    index.current()
    monkeypatch.setattr(type(index), "chunk_size", 3)
    seen: list[list[int]] = []
    real_stored = type(index)._stored_vectors

    def stored(self, paper_ids):
        seen.append(list(paper_ids))
        return real_stored(self, paper_ids)

    monkeypatch.setattr(type(index), "_stored_vectors", stored)
    for paper in papers:
        paper.abstract = f"Tulip field {paper.pk}."
        paper.save()
    embed_papers(fake_embedder)

    caught_up = index.current()
    assert [len(chunk) for chunk in seen] == [3, 3, 1]
    for paper in papers:
        stored = PaperEmbedding.objects.get(paper=paper).as_array()
        assert np.allclose(caught_up.get(paper.pk), stored, atol=1e-3)


def test_a_request_reads_the_change_counter_once_and_sees_its_own_changes():
    paper = make_paper("Counted once")
    # Outside a request every ask reads the counter (a positive control).
    with CaptureQueriesContext(connection) as outside:
        SearchChange.objects.request_position()
        SearchChange.objects.request_position()
    assert len(outside.captured_queries) == 2
    # As the test client does: the signals without closing the test's database connection.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    request_started.send(sender=None)
    try:
        with CaptureQueriesContext(connection) as inside:
            first = SearchChange.objects.request_position()
            assert SearchChange.objects.request_position() == first
        assert len(inside.captured_queries) == 1
        # A change the request records itself is seen by its later reads.
        SearchChange.objects.record([paper.pk])
        assert SearchChange.objects.request_position().value == first.value + 1
    finally:
        request_finished.send(sender=None)
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    with CaptureQueriesContext(connection) as after:
        SearchChange.objects.request_position()
    assert len(after.captured_queries) == 1
