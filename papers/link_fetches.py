"""A paper fetched by its link in the background: the worker's run and what the member's page
shows of it. papers.link_tasks records the request and queues the task that calls `run`.

`run` claims the request (operations.claims), so a task run twice fetches once; it fetches and
adds the paper through papers.sources.single (its deadline, its messages) and records the
outcome on the request and on the requests that follow it, in one transaction with
`link_fetch_finished` (papers.signals), so that what hangs on the paper (annotations adds it to
a reading list) commits with the outcome the member's page reads.

`progress` is what the page shows, read only: a request whose worker stopped (its claim lapsed,
or the task itself ended without recording an outcome, as when a worker dies and the task is
marked failed) or that no worker took within STALE_AFTER is shown failed, so the page stops
asking.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django_tasks import default_task_backend
from django_tasks.exceptions import TaskResultDoesNotExist

from operations import claims
from papers.models import LinkFetch, Paper
from papers.signals import link_fetch_finished
from papers.sources import single
from papers.sources.identifiers import Identifier, Kind

logger = logging.getLogger(__name__)

# A fetch is bounded by LINK_LOOKUP_DEADLINE (seconds) plus one import: a worker that holds a
# request this long without an outcome stopped.
CLAIM_FOR = timedelta(minutes=5)
# A request no worker has finished by then will not be: its page stops waiting.
STALE_AFTER = timedelta(minutes=15)
WORKER_STOPPED = "The fetch stopped before it finished; try again."
UNEXPECTED = "The paper could not be added. Try again, or tell a curator."


def identifier_of(fetch: LinkFetch) -> Identifier:
    return Identifier(Kind(fetch.kind), fetch.value)


def stopped(now: datetime) -> Q:
    """Pending requests no worker will finish: held by a worker whose claim lapsed, or older
    than STALE_AFTER. (A task that ended without an outcome is read from the task: task_ended.)"""
    running_unheld = Q(status=LinkFetch.Status.RUNNING) & claims.lapsed(now)
    return Q(status__in=LinkFetch.PENDING) & (running_unheld | Q(created_at__lt=now - STALE_AFTER))


def task_ended(task_id: str) -> bool:
    """Whether the task has ended (failed, or finished without recording an outcome) or is gone.
    A backend that keeps no results (tests' immediate one) says nothing: not ended."""
    if not task_id or not default_task_backend.supports_get_result:
        return False
    try:
        return default_task_backend.get_result(task_id).is_finished
    except TaskResultDoesNotExist:
        return True


def run(fetch_id: int) -> None:
    """Fetch and add the paper of request `fetch_id` and record the outcome (the task's work)."""
    now = timezone.now()
    waiting = LinkFetch.objects.filter(status__in=LinkFetch.PENDING, leader=None).exclude(
        stopped(now)
    )
    claim = claims.claim(waiting, fetch_id, CLAIM_FOR, now=now, status=LinkFetch.Status.RUNNING)
    if claim is None:  # done by another run of the task, or stopped
        return
    fetch = claim.row
    try:
        paper = single.fetch_and_add(
            identifier_of(fetch), user=fetch.requested_by, invoked_by=fetch.invoked_by
        )
    except single.LookupFailed as failed:
        _finish(claim, status=LinkFetch.Status.FAILED, message=failed.message)
    except Exception:
        logger.exception("fetching %s %s (request %s)", fetch.service, fetch.value, fetch.pk)
        _finish(claim, status=LinkFetch.Status.FAILED, message=UNEXPECTED)
    else:
        _finish(claim, status=LinkFetch.Status.DONE, paper=paper)


def _finish(claim: claims.Claim[LinkFetch], **outcome) -> None:
    fetch = claim.row
    outcome["finished_at"] = timezone.now()
    with transaction.atomic():
        if not claim.release(**outcome):
            logger.warning("request %s: the worker lost its claim; outcome dropped", fetch.pk)
            return
        # Locked by the release: a request that would follow this one waits for the commit
        # and then sees it finished (papers.link_tasks.ask_for_link).
        LinkFetch.objects.filter(leader=fetch, status__in=LinkFetch.PENDING).update(**outcome)
        finished = [fetch.pk, *fetch.followers.values_list("pk", flat=True)]
        link_fetch_finished.send(LinkFetch, fetch_ids=finished)


@dataclass(frozen=True)
class Progress:
    """What the request's page says: `state` is "waiting", "fetching", "done" or "failed"."""

    fetch: LinkFetch
    state: str
    paper: Paper | None = None
    message: str = ""

    @property
    def pending(self) -> bool:
        return self.state in ("waiting", "fetching")

    @property
    def next_url(self) -> str:
        """Where a finished request sends the member: the page they asked from, else the paper."""
        if self.paper is None:
            return ""
        return self.fetch.return_to or self.paper.get_absolute_url()

    @property
    def retry_url(self) -> str:
        """Where the member asks again: the page they asked from, else a search for the link
        (whose page offers the "Add from ..." button)."""
        query = urlencode({"q": self.fetch.link})
        return self.fetch.return_to or f"{reverse('papers:list')}?{query}"


def progress(fetch: LinkFetch, now: datetime | None = None) -> Progress:
    """The request's state as its page shows it; read only. A follower's is its leader's."""
    now = now or timezone.now()
    source = fetch.leader or fetch
    if source.status == LinkFetch.Status.DONE:
        if source.paper is None:  # deleted since (a curator's merge leaves a MergedPaper)
            return Progress(fetch, "failed", message="The paper is no longer in the catalogue.")
        return Progress(fetch, "done", paper=source.paper)
    if source.status == LinkFetch.Status.FAILED:
        return Progress(fetch, "failed", message=source.message)
    if LinkFetch.objects.filter(stopped(now), pk=source.pk).exists() or task_ended(source.task_id):
        return Progress(fetch, "failed", message=WORKER_STOPPED)
    if source.status == LinkFetch.Status.RUNNING:
        return Progress(fetch, "fetching")
    return Progress(fetch, "waiting")
