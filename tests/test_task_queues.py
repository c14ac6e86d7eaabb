"""A member's action never waits behind bulk background work (issue 38, point 2): each task's
queue and priority come from operations/queues.py, and one worker serving both queues takes a
member's upload's text before fifty queued batches of a feed's PDF run."""

from __future__ import annotations

import hashlib
from io import BytesIO

import pytest
from django_tasks_db.models import DBTaskResult

from annotations.tasks import prepare_export
from operations.queues import (
    BULK_PRIORITY,
    BULK_QUEUE,
    DEFAULT_QUEUE,
    MEMBER_PRIORITY,
    RESUMABLE,
    ROUTINE_PRIORITY,
    TEXT_PRIORITY,
)
from papers.tasks import run_feed
from pdfs.bulk import fetch_pdf_run_batch
from pdfs.storing import store_pdf
from pdfs.tasks import fetch_paper_pdfs
from pdfs.text_tasks import extract_pdf_texts
from semantic.tasks import embed_changed_papers
from tests.factories import make_paper, make_user
from tests.pdf_files import make_pdf
from tests.task_workers import in_process_worker

# task, its queue, its priority, whether an interrupted run is queued again (its work may be
# done twice; the others end failed through their own claims).
TASKS = [
    (prepare_export, DEFAULT_QUEUE, MEMBER_PRIORITY, False),  # a member's export
    (fetch_paper_pdfs, DEFAULT_QUEUE, MEMBER_PRIORITY, True),  # the reader's "Fetch the PDF"
    (extract_pdf_texts, DEFAULT_QUEUE, TEXT_PRIORITY, True),  # an upload's: MEMBER (below)
    (embed_changed_papers, DEFAULT_QUEUE, ROUTINE_PRIORITY, True),
    (run_feed, DEFAULT_QUEUE, ROUTINE_PRIORITY, False),  # "Fetch now"
    (fetch_pdf_run_batch, BULK_QUEUE, BULK_PRIORITY, True),  # a feed's bulk PDF run
]


@pytest.mark.parametrize(("task", "queue", "priority", "resumable"), TASKS)
def test_each_task_has_its_queue_and_priority(task, queue, priority, resumable):
    assert (task.queue_name, task.priority) == (queue, priority)
    assert (task.module_path in RESUMABLE) == resumable


def test_the_priorities_put_members_before_text_before_routine_before_bulk():
    assert MEMBER_PRIORITY > TEXT_PRIORITY > ROUTINE_PRIORITY > BULK_PRIORITY


def _store(paper, *, uploaded_by=None) -> None:
    content = make_pdf(f"The text of {paper.title}.")
    store_pdf(
        paper_id=paper.pk,
        file=BytesIO(content),
        sha256=hashlib.sha256(content).hexdigest(),
        size=len(content),
        source_url="" if uploaded_by else "https://arxiv.org/pdf/2310.01234",
        uploaded_by=uploaded_by,
    )


def _text_task(paper) -> DBTaskResult:
    return DBTaskResult.objects.get(
        task_path=extract_pdf_texts.module_path, args_kwargs__args=[[paper.pk]]
    )


@pytest.mark.django_db(transaction=True)
def test_an_uploads_text_is_read_at_member_priority_a_fetched_files_at_text_priority(
    settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    uploaded, fetched = make_paper(), make_paper()
    _store(uploaded, uploaded_by=make_user())
    _store(fetched)
    assert _text_task(uploaded).priority == MEMBER_PRIORITY
    assert _text_task(fetched).priority == TEXT_PRIORITY
    assert {_text_task(uploaded).queue_name, _text_task(fetched).queue_name} == {DEFAULT_QUEUE}


@pytest.mark.django_db(transaction=True)
def test_a_members_upload_is_read_before_fifty_queued_bulk_batches(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    # Fifty batches of a bulk run queued first (run 0 does not exist: a batch does nothing).
    for position in range(0, 500, 10):
        fetch_pdf_run_batch.enqueue(0, position)
    paper = make_paper()
    _store(paper, uploaded_by=make_user())
    # One worker for every queue: the worst case (`make run` gives bulk a worker of its own).
    both_queues = in_process_worker(queues=("*",), max_tasks=1)

    both_queues.run()

    assert _text_task(paper).status == "SUCCESSFUL"
    batches = DBTaskResult.objects.filter(task_path=fetch_pdf_run_batch.module_path)
    assert set(batches.values_list("status", flat=True)) == {"READY"}
    assert batches.count() == 50
    # The positive control: the next task the worker takes is a batch.
    both_queues.run()
    assert batches.filter(status="SUCCESSFUL").count() == 1
