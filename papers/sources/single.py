"""A paper by its link or identifier, for a member: from the catalogue, else fetched and added.

Used by the header search, a reading list's "Add paper" box (annotations.forms.AddPaperForm)
and whatever else takes a paper by what a member pastes. The text is parsed by
papers.sources.identifiers; a paper the catalogue has is returned without any request. Else,
for a member only (a visitor must not make the site fetch), the one service that knows the
paper is asked once, and its record goes through the one loader (import_records), recorded in
the import history as added by that member.

A member is waiting, so a lookup is bounded more tightly than a command's fetch: LOOKUP_TRIES
attempts with a short backoff, FETCH_TIMEOUT each, and no arXiv delay (one client, one request).
What fails is a LookupFailed whose message is for the member: PaperNotFound ("arXiv has no
paper 2402.99999") or ServiceUnavailable ("arXiv did not answer; try again later").
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import NamedTuple

from django.contrib.auth.models import AnonymousUser, User

from papers.importing.pipeline import ImportErrors, import_records
from papers.importing.records import ImportFailed, PaperRecord, Record
from papers.models import Paper
from papers.sources import arxiv_api, crossref, openreview_api
from papers.sources.client import FetchClient, FetchError, service
from papers.sources.identifiers import Identifier, Kind, RefusedIdentifier, parse_identifier

logger = logging.getLogger(__name__)

LOOKUP_TRIES = 2
LOOKUP_BACKOFF = 0.5  # seconds before the second try (plus jitter)
LOOKUP_MAX_WAIT = 2.0  # whatever a Retry-After asks

SERVICE_NAMES = {Kind.ARXIV: "arXiv", Kind.OPENREVIEW: "OpenReview", Kind.DOI: "Crossref"}


class LookupFailed(Exception):
    """A paper that could not be had; `message` is for the member."""

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


class PaperNotFound(LookupFailed):
    pass


class ServiceUnavailable(LookupFailed):
    pass


def lookup_client(name: str) -> FetchClient:
    return FetchClient(
        service(name),
        tries=LOOKUP_TRIES,
        backoff=LOOKUP_BACKOFF,
        max_wait=LOOKUP_MAX_WAIT,
    )


def paper_for_identifier(
    text: str, *, user: User | AnonymousUser | None, invoked_by: str = ""
) -> Paper | None:
    """The paper `text` names by an outside identifier: the catalogue's, else (for a logged-in
    `user`) fetched and added. None when `text` is no such identifier, or for a visitor when
    the catalogue does not have it. Raises LookupFailed."""
    try:
        identifier = parse_identifier(text)
    except RefusedIdentifier as error:
        raise LookupFailed(error.message) from None
    if identifier is None:
        return None
    known = Paper.objects.filter(identifier.lookup()).first()
    if known is not None or not isinstance(user, User) or not user.is_authenticated:
        return known
    return _add(_fetch(identifier), identifier, user=user, invoked_by=invoked_by)


class _Fetched(NamedTuple):
    records: list[Record]
    source: str
    # What the service sent that was left out (a malformed review of the paper).
    warnings: Sequence[str] = ()


def _fetch(identifier: Identifier) -> _Fetched:
    name = SERVICE_NAMES[identifier.kind]
    try:
        found = _FETCHERS[identifier.kind](identifier.value)
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


def _arxiv(arxiv_id: str) -> _Fetched | None:
    arxiv = service("arxiv")
    with lookup_client("arxiv") as client:
        # The base URL is the query endpoint itself (see manage.py fetch_arxiv).
        text = client.get(arxiv.base_url, arxiv_api.id_params(arxiv_id)).text
    record = arxiv_api.read_one(text, arxiv_id)
    return _Fetched([record], arxiv_api.SOURCE) if record else None


def _openreview(forum_id: str) -> _Fetched | None:
    fetch = openreview_api.fetch_forum(forum_id, client=lookup_client)
    return _Fetched(fetch.records, fetch.source, fetch.warnings) if fetch else None


def _crossref(doi: str) -> _Fetched | None:
    with lookup_client("crossref") as client:
        record = crossref.fetch_work(doi, client)
    return _Fetched([record], crossref.SOURCE) if record else None


_FETCHERS: dict[Kind, Callable[[str], _Fetched | None]] = {
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
