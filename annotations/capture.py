"""One-click capture from another site (issue 39, point 2): what the member's bookmarklet
sends, read strictly; the capture itself (through papers.link_tasks.ask_for_link, the same
queue and limits as every add by link); its undo; the member's key; the bookmarklet's code.

The bookmarklet reads the page it is clicked on (its address and its `citation_arxiv_id`,
`citation_doi` and `citation_title` meta tags) in that page, and opens our capture page with
them in the query string: the server never fetches the foreign page. Everything it sends is
untrusted text: each value is length-limited here and parsed by papers.sources.identifiers.
Why the flow is CSRF-safe, and why a GET never adds: docs/security.md ("One-click capture").
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from annotations import services
from annotations.models import Capture, CaptureSettings, ReadingList, ReadingListItem
from papers import link_fetches
from papers.models import LinkFetch, Paper
from papers.sources.identifiers import Identifier, RefusedIdentifier, parse_identifier
from papers.suggest import papers_titled, papers_worded_like
from papers.text import MAX_TITLE, collapse_whitespace

# What the bookmarklet sends, in the order tried: the page's address (an arXiv, OpenReview or
# doi.org page names its paper), then its meta tags.
IDENTIFIER_FIELDS = (
    ("url", "the page's address"),
    ("arxiv", "the page's citation_arxiv_id"),
    ("doi", "the page's citation_doi"),
)
# Longer than any identifier or address worth reading (parse_identifier stops at 500, titles
# at MAX_TITLE): a longer value is refused, not cut, since a cut one could name another paper.
MAX_SENT = 1_000
TITLE_MATCHES = 5
KEY_BYTES = 32


@dataclass(frozen=True)
class Asked:
    """What a capture URL asks for: `link`, the text naming the paper (one of the fields),
    else `title` (a page with a title only, to look for in the catalogue); `problem`, why it
    is refused, for the member."""

    link: str = ""
    identifier: Identifier | None = None
    title: str = ""
    problem: str = ""


def asked_in(params) -> Asked:
    """Read the bookmarklet's query parameters (a QueryDict or dict). Never a request, never
    a write."""
    for field, label in IDENTIFIER_FIELDS:
        value = str(params.get(field, "")).strip()
        if len(value) > MAX_SENT:
            return Asked(problem=f"{label.capitalize()} is too long ({len(value):,} characters).")
        try:
            identifier = parse_identifier(value)
        except RefusedIdentifier as refused:
            return Asked(problem=refused.message)
        if identifier is not None:
            return Asked(link=value, identifier=identifier)
    title = collapse_whitespace(str(params.get("title", "")))
    if len(title) > MAX_SENT:
        return Asked(problem=f"The page's title is too long ({len(title):,} characters).")
    if title:
        return Asked(title=title[:MAX_TITLE])
    return Asked(problem="The page names no arXiv, OpenReview or DOI paper, nor a title.")


def papers_with_title(title: str) -> list[Paper]:
    """The catalogue's papers a title-only page may be: its exact title, else every word of it
    (search index), best first. Read only."""
    exact = papers_titled(title, limit=TITLE_MATCHES)
    if exact:
        return exact
    ids = papers_worded_like(title, limit=TITLE_MATCHES)
    found = Paper.objects.in_bulk(ids)
    return [found[pk] for pk in ids if pk in found]


def target_list(member) -> ReadingList | None:
    """The list the member's captures go to: the one chosen on the capture page, else their
    default list, else their first. None when they have no list."""
    chosen = CaptureSettings.objects.filter(member=member).values_list("reading_list", flat=True)
    lists = ReadingList.objects.filter(owner=member)
    return (
        lists.filter(pk__in=chosen.exclude(reading_list=None)).first()
        or lists.filter(is_default=True).first()
        or lists.first()
    )


def choose_target(*, member, reading_list: ReadingList) -> None:
    CaptureSettings.objects.update_or_create(member=member, defaults={"reading_list": reading_list})


# --- The key of the one-click bookmarklet ------------------------------------------------------


def _hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def make_key(*, member) -> str:
    """A new key for the member's one-click bookmarklet (the previous one stops working); only
    its hash is stored, so this is the one time it is seen."""
    key = secrets.token_urlsafe(KEY_BYTES)
    CaptureSettings.objects.update_or_create(
        member=member, defaults={"key_hash": _hash(key), "key_made_at": timezone.now()}
    )
    return key


def revoke_key(*, member) -> None:
    CaptureSettings.objects.filter(member=member).update(key_hash="", key_made_at=None)


def key_matches(member, key: str) -> bool:
    if not key or len(key) > 100:
        return False
    stored = CaptureSettings.objects.filter(member=member).values_list("key_hash", flat=True)
    return any(digest and hmac.compare_digest(digest, _hash(key)) for digest in stored)


# --- Capturing and undoing ---------------------------------------------------------------------


@transaction.atomic
def capture(
    *, member, reading_list: ReadingList, link: str = "", paper: Paper | None = None
) -> Capture:
    """Put the paper `link` names (or `paper`, a title-only page's match) on the member's
    `reading_list`: at once when the catalogue has it, else when its queued fetch finishes
    (annotations.services.add_to_list_by_link). Raises services.Refused when `link` names no
    paper, and LookupFailed and TooManyLookups as papers.link_tasks.ask_for_link does."""
    asked: Paper | LinkFetch | None = paper
    if asked is None:
        asked = services.add_to_list_by_link(
            reading_list=reading_list, link=link, by=member, invoked_by=f"capture ({member})"
        )
    if asked is None:
        raise services.Refused("That is no arXiv, OpenReview or DOI link or id.")
    if isinstance(asked, LinkFetch):
        return Capture.objects.create(member=member, reading_list=reading_list, link_fetch=asked)
    try:
        item = services.add_paper_to_list(reading_list=reading_list, paper=asked)
    except services.AlreadyThere:
        item = None
    return Capture.objects.create(
        member=member,
        reading_list=reading_list,
        paper=asked,
        item=item,
        already_listed=item is None,
    )


def captured_paper(capture: Capture) -> Paper | None:
    """The paper captured: at once, or once its fetch (or the one it follows) added it."""
    if capture.paper is not None or capture.link_fetch is None:
        return capture.paper
    fetch = capture.link_fetch.leader or capture.link_fetch
    return fetch.paper if fetch.status == LinkFetch.Status.DONE else None


def added_item(capture: Capture) -> ReadingListItem | None:
    """The list item this capture added and still there, None if it added none (the paper
    was listed already, its fetch is pending or failed) or it was undone or removed. Read only."""
    if capture.undone_at is not None or capture.already_listed:
        return None
    if capture.item is not None:
        return capture.item
    paper = captured_paper(capture)
    if capture.link_fetch is None or paper is None:
        return None
    return (
        ReadingListItem.objects.filter(
            reading_list=capture.reading_list, paper=paper, added_at__gte=capture.created_at
        )
        .order_by("pk")
        .first()
    )


@dataclass(frozen=True)
class Outcome:
    """What the capture's confirmation says: `state` is "pending" (its fetch), "failed",
    "added" (undoable: `item`), "already" (listed before), "undone" or "gone" (the item was
    taken off the list since)."""

    capture: Capture
    state: str
    paper: Paper | None = None
    item: ReadingListItem | None = None
    message: str = ""

    @property
    def pending(self) -> bool:
        return self.state == "pending"


def outcome(capture: Capture) -> Outcome:
    """The capture's state as its page shows it; read only."""
    if capture.link_fetch is not None:
        shown = link_fetches.progress(capture.link_fetch)
        if shown.pending:
            return Outcome(capture, "pending")
        if shown.state == "failed":
            return Outcome(capture, "failed", message=shown.message)
    paper = captured_paper(capture)
    if capture.undone_at is not None:
        return Outcome(capture, "undone", paper=paper)
    if capture.already_listed:
        return Outcome(capture, "already", paper=paper)
    item = added_item(capture)
    return Outcome(capture, "added" if item else "gone", paper=paper, item=item)


@transaction.atomic
def undo(capture: Capture) -> bool:
    """Take off the list the item this capture added, and nothing else; whether there was one."""
    locked = Capture.objects.select_for_update().get(pk=capture.pk)
    item = added_item(locked)
    locked.undone_at = timezone.now()
    locked.save(update_fields=["undone_at"])
    capture.undone_at = locked.undone_at
    if item is None:
        return False
    services.remove_item(item=item)
    return True


# --- The bookmarklet ---------------------------------------------------------------------------

# Runs in the foreign page when clicked: reads the address (its query string only on
# OpenReview, whose forum id is in it: another site's query may hold its own secrets) and the
# meta tags, each cut to MAX_SENT, and opens our capture page in a small window (a tab when
# popups are blocked). %(url)s and %(key)s are JSON strings; the key goes in the fragment,
# which the browser sends to no server and no Referer carries.
_BOOKMARKLET = (
    "(function(){var d=document,l=location,n=%(limit)d,"
    "m=function(k){var e=d.querySelector('meta[name=\"'+k+'\"]');"
    "return e?(e.getAttribute('content')||'').slice(0,n):''},"
    "u=(l.origin+l.pathname+(/(^|\\.)openreview\\.net$/.test(l.hostname)?l.search:'')).slice(0,n),"
    "q=[['url',u],['arxiv',m('citation_arxiv_id')],['doi',m('citation_doi')],"
    "['title',m('citation_title')]].map(function(p){return p[0]+'='+encodeURIComponent(p[1])})"
    ".join('&'),k=%(key)s,a=%(url)s+'?'+q+(k?'#key='+k:''),"
    "w=window.open(a,'paper_capture','width=560,height=620');if(!w){l.href=a}})()"
)


def bookmarklet(capture_url: str, key: str = "") -> str:
    """The bookmarklet's href: `javascript:` code opening `capture_url` (absolute) with what
    the page names; with `key`, the one-click kind."""
    code = _BOOKMARKLET % {
        "limit": MAX_SENT,
        "url": json.dumps(capture_url),
        "key": json.dumps(key),
    }
    return "javascript:" + code
