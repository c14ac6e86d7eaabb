"""A paper by its link, for a member's POST: opened at once when the catalogue has it, else
fetched by the task worker while the member's page follows it (issue 38, point 3). The task and
the function that queues it (which is why this module imports the work, papers.link_fetches,
and the work never imports it).

`ask_for_link` is the one entry of every box that adds by link (the header's and the list
page's "Add from ..." button, a reading list's "Add paper" box, the results' link box). A
request for a paper not yet here is counted against the member's share
(papers.sources.single.count_lookup: TooManyLookups past it, nothing recorded), recorded as a
LinkFetch and its task queued on the default queue at a member's priority, in one transaction
(the database task backend stores the task as a row: both exist or neither). While a request
for the same paper is pending, a new one follows it: one task fetches the paper for both.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from operations import claims
from operations.queues import DEFAULT_QUEUE, MEMBER_PRIORITY
from papers import link_fetches
from papers.models import LinkFetch, Paper
from papers.sources import single
from papers.text import MAX_TITLE


@task(queue_name=DEFAULT_QUEUE, priority=MEMBER_PRIORITY)
def fetch_link(fetch_id: int) -> None:
    """Fetch and add the paper a member asked for by its link (papers.link_fetches.run)."""
    link_fetches.run(fetch_id)


def ask_for_link(
    text: str, *, user: User, invoked_by: str, return_to: str = ""
) -> Paper | LinkFetch | None:
    """The catalogue's paper `text` names by an arXiv, OpenReview or DOI link or id, else the
    member's request to fetch it (queued, or following a pending one); None when `text` is no
    such identifier. `return_to`: where the member goes once it is added (blank: the paper).
    Raises LookupFailed (a DOI no request may be made with), TooManyLookups. Asks nothing
    outside: call it from a POST."""
    link = text.strip()[:MAX_TITLE]
    identifier = single.identifier_in(link)
    if identifier is None:
        return None
    known = single.in_catalogue(identifier)
    if known is not None:
        return known
    single.count_lookup(user)
    asked = {
        "requested_by": user,
        "kind": identifier.kind.value,
        "value": identifier.value,
        "link": link,
        "invoked_by": invoked_by,
        "return_to": return_to,
    }
    with transaction.atomic():
        leader = _pending_request(identifier)
        if leader is not None:
            return LinkFetch.objects.create(**asked, leader=leader, task_id=leader.task_id)
        # Added since the first look, by the request that was pending then.
        known = single.in_catalogue(identifier)
        if known is not None:
            return known
        fetch = LinkFetch.objects.create(**asked)
        fetch.task_id = str(fetch_link.enqueue(fetch.pk).id)
        fetch.save(update_fields=["task_id"])
        return fetch


def _pending_request(identifier) -> LinkFetch | None:
    """The request for `identifier` a worker is still to finish, locked until the transaction
    ends: the worker records its outcome and that of its followers after this one commits (a
    no-op lock on SQLite, whose writers queue). One whose worker stopped is marked failed and
    followed by nobody."""
    now = timezone.now()
    pending = LinkFetch.objects.filter(
        kind=identifier.kind.value,
        value=identifier.value,
        status__in=LinkFetch.PENDING,
        leader=None,
    )
    claims.let_go(
        pending.filter(link_fetches.stopped(now)),
        status=LinkFetch.Status.FAILED,
        message=link_fetches.WORKER_STOPPED,
        finished_at=now,
    )
    for fetch in pending.select_for_update().order_by("created_at"):
        if not link_fetches.task_ended(fetch.task_id):
            return fetch
        claims.let_go(
            LinkFetch.objects.filter(pk=fetch.pk, status__in=LinkFetch.PENDING),
            status=LinkFetch.Status.FAILED,
            message=link_fetches.WORKER_STOPPED,
            finished_at=now,
        )
    return None
