"""A paper by its link or identifier, for a member: from the catalogue, else fetched and added.

Used by every box that takes a paper by what a member pastes: the list page's search (and the
header's, which opens it), a reading list's "Add paper" box (annotations.forms.AddPaperForm)
and the results' "Add to list" (annotations.triage_forms). The text is parsed by
papers.sources.identifiers.

`known_paper` and `in_catalogue` only read the catalogue: what a GET may call. `fetch_and_add`
fetches a paper the catalogue does not have and adds it: only in the background task a member's
POST queued (papers.link_tasks; a page elsewhere can send a member's browser to a GET of ours,
cookie and all, but not a POST with our CSRF token). The one service that knows the paper is
asked once, and its record goes through the one loader (import_records), recorded in the import
history as added by that member.

Each member may look up LINK_LOOKUPS_PER_MINUTE and LINK_LOOKUPS_PER_HOUR papers not yet here
(`count_lookup`, in the POST that queues the fetch; annotations.throttle); past that,
TooManyLookups. A member is waiting on the fetch's page, so a lookup is bounded more tightly
than a command's fetch: LOOKUP_TRIES attempts with a short backoff, and the whole lookup (its
turn for arXiv, tries and waits included) ends after LINK_LOOKUP_DEADLINE seconds (one
papers.sources.client.Deadline for all its requests). arXiv's delay between requests is kept
site-wide (papers.sources.client): a lookup whose turn is more than ARXIV_LOOKUP_MAX_WAIT
seconds away is refused as "busy" rather than held. What fails is a LookupFailed whose message
is for the member: PaperNotFound ("arXiv has no paper 2402.99999") or ServiceUnavailable
("arXiv did not answer; try again later").
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import partial
from typing import NamedTuple

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User

from annotations import throttle
from papers.importing.pipeline import ImportErrors, import_records
from papers.importing.records import ImportFailed, PaperRecord, Record
from papers.models import Paper
from papers.models_link_fetch import SERVICE_NAMES
from papers.sources import arxiv_api, crossref, openreview_api
from papers.sources.client import (
    Deadline,
    FetchClient,
    FetchError,
    OutOfTime,
    ServiceBusy,
    service,
)
from papers.sources.identifiers import Identifier, Kind, RefusedIdentifier, parse_identifier

logger = logging.getLogger(__name__)

LOOKUP_TRIES = 2
LOOKUP_BACKOFF = 0.5  # seconds before the second try (plus jitter)
LOOKUP_MAX_WAIT = 2.0  # whatever a Retry-After asks


class LookupFailed(Exception):
    """A paper that could not be had; `message` is for the member."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class PaperNotFound(LookupFailed):
    pass


class ServiceUnavailable(LookupFailed):
    pass


class TooManyLookups(LookupFailed):
    """The member has looked up as many papers as they may for now; nothing was fetched."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


def lookup_client(name: str, *, deadline: Deadline | None = None) -> FetchClient:
    """A client of the service `name` bounded as a member's lookup is (every call within
    `deadline`, LINK_LOOKUP_DEADLINE seconds from now if none is given)."""
    return FetchClient(
        service(name),
        tries=LOOKUP_TRIES,
        backoff=LOOKUP_BACKOFF,
        max_wait=LOOKUP_MAX_WAIT,
        max_turn_wait=float(settings.ARXIV_LOOKUP_MAX_WAIT),
        deadline=deadline or Deadline(settings.LINK_LOOKUP_DEADLINE),
    )


def known_paper(text: str) -> tuple[Identifier | None, Paper | None]:
    """The outside identifier `text` is (None if it is none) and the catalogue's paper for it
    (None if the catalogue does not have it). Never a request, never a write: a GET may ask.
    Text shaped like a DOI that no request may be made with is no identifier here: a search
    for its words (identifier_in says why it is refused)."""
    try:
        identifier = parse_identifier(text)
    except RefusedIdentifier:
        return None, None
    if identifier is None:
        return None, None
    return identifier, _in_catalogue(identifier)


def _in_catalogue(identifier: Identifier) -> Paper | None:
    return Paper.objects.filter(identifier.lookup()).first()


def service_name(identifier: Identifier) -> str:
    """The service a paper not yet here is fetched from, as members read it."""
    return SERVICE_NAMES[identifier.kind]


def identifier_in(text: str) -> Identifier | None:
    """The outside identifier `text` is, None if it is none. Raises LookupFailed with the
    refusal's message for text shaped like a DOI that no request may be made with."""
    try:
        return parse_identifier(text)
    except RefusedIdentifier as error:
        raise LookupFailed(error.message) from None


def in_catalogue(identifier: Identifier) -> Paper | None:
    """The catalogue's paper for `identifier`, None if it has none. Read only."""
    return _in_catalogue(identifier)


def fetch_and_add(identifier: Identifier, *, user: User, invoked_by: str = "") -> Paper:
    """Fetch the paper `identifier` names from its service and add it through the one loader,
    recorded in the import history as added by `user`. Raises LookupFailed. Reaches outside
    and writes: the background task of a member's request (papers.link_tasks) calls it, once
    count_lookup has counted the request."""
    return _add(_fetch(identifier), identifier, user=user, invoked_by=invoked_by)


def paper_for_identifier(
    text: str, *, user: User | AnonymousUser | None, invoked_by: str = ""
) -> Paper | None:
    """The paper `text` names by an outside identifier: the catalogue's, else (for a logged-in
    `user`) counted, fetched and added, all now. None when `text` is no such identifier, or for
    a visitor when the catalogue does not have it. Raises LookupFailed. Waits on a service:
    never in a request (a member's request queues the fetch, papers.link_tasks); for the
    shell and tests of the fetchers."""
    identifier = identifier_in(text)
    if identifier is None:
        return None
    known = _in_catalogue(identifier)
    if known is not None or not isinstance(user, User) or not user.is_authenticated:
        return known
    count_lookup(user)
    return fetch_and_add(identifier, user=user, invoked_by=invoked_by)


def count_lookup(user: User) -> None:
    """Count one lookup against the member's share, or raise TooManyLookups."""
    for limit, window, period in (
        (settings.LINK_LOOKUPS_PER_MINUTE, 60, "minute"),
        (settings.LINK_LOOKUPS_PER_HOUR, 3600, "hour"),
    ):
        if not throttle.allow(f"link-lookup-{period}", str(user.pk), limit=limit, window=window):
            raise TooManyLookups(
                f"You have added {limit} papers by link in the last {period}, as many as one "
                f"member may. Try again in a {period}; papers already here can be added now.",
                retry_after=window,
            )


class _Fetched(NamedTuple):
    records: list[Record]
    source: str
    # What the service sent that was left out (a malformed review of the paper).
    warnings: Sequence[str] = ()


def _fetch(identifier: Identifier) -> _Fetched:
    name = SERVICE_NAMES[identifier.kind]
    try:
        found = _FETCHERS[identifier.kind](
            identifier.value, Deadline(settings.LINK_LOOKUP_DEADLINE)
        )
    except ServiceBusy:
        raise ServiceUnavailable(f"{name} is busy, try again in a moment.") from None
    except OutOfTime:
        logger.warning("looking up %s %s: no answer within the deadline", name, identifier)
        raise ServiceUnavailable(f"{name} did not answer in time; try again later.") from None
    except FetchError as error:
        logger.warning("looking up %s %s: %s", name, identifier, error)
        raise ServiceUnavailable(f"{name} did not answer; try again later.") from None
    except ImportFailed as error:  # an answer that is not what the service documents
        logger.warning("looking up %s %s: %s", name, identifier, error)
        raise ServiceUnavailable(
            f"{name}'s answer for {identifier} could not be read; try again later."
        ) from None
    if found is None:
        raise PaperNotFound(f"{name} has no paper {identifier}.")
    return found


def _arxiv(arxiv_id: str, deadline: Deadline) -> _Fetched | None:
    arxiv = service("arxiv")
    with lookup_client("arxiv", deadline=deadline) as client:
        # The base URL is the query endpoint itself (see manage.py fetch_arxiv).
        text = client.get(arxiv.base_url, arxiv_api.id_params(arxiv_id)).text
    record = arxiv_api.read_one(text, arxiv_id)
    return _Fetched([record], arxiv_api.SOURCE) if record else None


def _openreview(forum_id: str, deadline: Deadline) -> _Fetched | None:
    fetch = openreview_api.fetch_forum(forum_id, client=partial(lookup_client, deadline=deadline))
    return _Fetched(fetch.records, fetch.source, fetch.warnings) if fetch else None


def _crossref(doi: str, deadline: Deadline) -> _Fetched | None:
    with lookup_client("crossref", deadline=deadline) as client:
        record = crossref.fetch_work(doi, client)
    return _Fetched([record], crossref.SOURCE) if record else None


_FETCHERS: dict[Kind, Callable[[str, Deadline], _Fetched | None]] = {
    Kind.ARXIV: _arxiv,
    Kind.OPENREVIEW: _openreview,
    Kind.DOI: _crossref,
}


def _add(fetched: _Fetched, identifier: Identifier, *, user: User, invoked_by: str) -> Paper:
    name = SERVICE_NAMES[identifier.kind]
    records = fetched.records
    try:
        import_records(
            records,
            source=fetched.source,
            user=user,
            invoked_by=invoked_by or f"link ({user})",
            warnings=fetched.warnings,
        )
    except ImportErrors as error:
        logger.warning("adding %s %s: %s", name, identifier, error)
        problem = error.errors[0].message if error.errors else "it is not a usable paper"
        raise LookupFailed(f"{name}'s paper {identifier} could not be added: {problem}") from None
    # By the record's own identifier: Crossref may answer a DOI alias with the work's DOI.
    paper = next((_paper_of(r) for r in records if isinstance(r, PaperRecord)), None)
    if paper is None:  # merged into a paper known by another identifier
        paper = Paper.objects.filter(identifier.lookup()).first()
    if paper is None:
        raise LookupFailed(f"{name}'s paper {identifier} could not be added.")
    return paper


def _paper_of(record: PaperRecord) -> Paper | None:
    for kind in Kind:
        value = getattr(record, kind.value)
        if value:
            return Paper.objects.filter(Identifier(kind, value).lookup()).first()
    return None
