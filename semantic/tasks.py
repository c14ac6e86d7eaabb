"""Background tasks of the semantic app, run by the task worker (`manage.py task_worker`)."""

from __future__ import annotations

from django_tasks import task

from operations.queues import DEFAULT_QUEUE, ROUTINE_PRIORITY, resumable
from semantic.embedder import get_embedder
from semantic.services import embed_papers


@resumable
@task(priority=ROUTINE_PRIORITY, queue_name=DEFAULT_QUEUE)
def embed_changed_papers(paper_ids: list[int]) -> str:
    """Embed these papers again if their title or abstract changed since their vector."""
    embedder = get_embedder()
    if embedder is None:
        return "semantic search is off: nothing embedded"
    report = embed_papers(embedder, paper_ids)
    return f"{report.embedded} embedded, {report.unchanged} unchanged"
