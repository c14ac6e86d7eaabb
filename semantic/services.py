"""Embedding papers: the work behind the task and the `embed_papers` command.

Vectors are computed outside any transaction; each batch is then written and recorded in the
search change log (SearchChange) in one short transaction, so every app server's vector index
catches up with it as its Tantivy index catches up with a changed paper.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from papers.models import Paper, SearchChange
from semantic.embedder import Embedder
from semantic.models import PaperEmbedding, vector_to_bytes
from semantic.text import embedded_text, text_hash

DEFAULT_BATCH = 64


@dataclass
class EmbedReport:
    embedded: int = 0
    unchanged: int = 0
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.embedded / self.seconds if self.seconds else 0.0


def embed_papers(
    embedder: Embedder,
    paper_ids: Iterable[int] | None = None,
    *,
    force: bool = False,
    batch: int = DEFAULT_BATCH,
    progress: Callable[[int], None] | None = None,
) -> EmbedReport:
    """Embed these papers (None: all) whose title and abstract changed since their stored
    vector, or that have none (`force`: all of them again)."""
    papers = Paper.objects.order_by("pk")
    if paper_ids is not None:
        papers = papers.filter(pk__in=list(paper_ids))
    ids = list(papers.values_list("pk", flat=True))
    report = EmbedReport()
    started = time.perf_counter()
    for start in range(0, len(ids), batch):
        chunk = ids[start : start + batch]
        embedded = _embed_chunk(embedder, chunk, force=force)
        report.embedded += embedded
        report.unchanged += len(chunk) - embedded
        if progress:
            progress(len(chunk))
    report.seconds = time.perf_counter() - started
    return report


def _embed_chunk(embedder: Embedder, paper_ids: list[int], *, force: bool) -> int:
    rows = Paper.objects.filter(pk__in=paper_ids).values_list("pk", "title", "abstract")
    stored = dict(
        PaperEmbedding.objects.filter(paper_id__in=paper_ids, model=embedder.name).values_list(
            "paper_id", "text_hash"
        )
    )
    wanted: list[tuple[int, str, str]] = []
    for pk, title, abstract in rows:
        text = embedded_text(title, abstract)
        digest = text_hash(text)
        if force or stored.get(pk) != digest:
            wanted.append((pk, text, digest))
    if not wanted:
        return 0
    vectors = embedder.embed([text for _pk, text, _digest in wanted])
    now = timezone.now()
    embeddings = [
        PaperEmbedding(
            paper_id=pk,
            model=embedder.name,
            text_hash=digest,
            vector=vector_to_bytes(vector),
            updated_at=now,
        )
        for (pk, _text, digest), vector in zip(wanted, vectors, strict=True)
    ]
    with transaction.atomic():
        # A paper deleted meanwhile has no row to point at any more.
        existing = set(Paper.objects.filter(pk__in=paper_ids).values_list("pk", flat=True))
        embeddings = [e for e in embeddings if e.paper_id in existing]
        PaperEmbedding.objects.bulk_create(
            embeddings,
            update_conflicts=True,
            unique_fields=["paper"],
            update_fields=["model", "text_hash", "vector", "updated_at"],
        )
        SearchChange.objects.record([e.paper_id for e in embeddings])
    return len(embeddings)
