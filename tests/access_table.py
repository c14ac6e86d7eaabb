"""Who gets what from every route: one row per route, object and method, one expected answer
per role (tests/test_access_matrix.py runs it; tests/access_world.py builds the world).

Columns, in this order: visitor, owner (the member who owns the private objects), member
(another member), curator (staff with the curation permissions), superuser. The sixth role, a
guest (accounts.roles), has a column only where it differs from its rule (`guest_answer`):
the member's answer on the routes accounts.middleware.GUEST_ROUTES opens to guests, 403 on
every other. Answers:

  200+   200, and the body holds the row's `shows` text (a positive control)
  200    200 (a page of the role's own things, none of them here)
  201+   201 with `shows` (a highlight created)
  302    a redirect (301, 302 or 303) not to a login page, after a change (the snapshot differs)
  302-   the same, changing nothing (refused with a message, or nothing to do)
  login  a redirect to the site's login page; admin: a redirect to the admin's login page
  400 403 404 405   refused

Whatever the answer, a response to anyone but the owner holds none of the owner's private
texts (access_world.SECRETS), a response to a guest none of the lab's (access_world.LAB_ONLY),
and a refused request or any GET changes nothing
(access_world.snapshot). Rows another change of issue 43 is about to move are marked with
the helper's name (H1: anchors; adding by link; the reader's fetches): adjust them at merge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.contrib import admin
from django.contrib.contenttypes.models import ContentType
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLResolver, get_resolver, resolve, reverse

from accounts.middleware import GUEST_ROUTES
from papers.models import Paper
from tests import access_world as aw
from tests.highlight_helpers import highlight_post
from tests.pdf_files import make_pdf

GET, POST = "get", "post"
POSITIVE = {"200+", "200", "201+", "302"}  # a change is allowed (302: required)


@dataclass(frozen=True)
class Row:
    route: str  # a URL name, or a path ("/favicon.ico") for the routes that have none
    target: str  # a key of TARGETS: which of the world's objects the URL names
    method: str
    expect: str  # five answers: visitor, owner, member, curator, superuser
    shows: str = ""  # what a 200+/201+ holds
    owner_sees: str = ""  # what the owner's 200+ also holds (their private text)
    data: Callable[[aw.World], dict] | dict | None = None
    query: str = ""
    guest: str = ""  # the guest's answer where it is not guest_answer's

    def answers(self) -> dict[str, str]:
        codes = dict(zip(aw.ROLES, self.expect.split(), strict=False))
        assert len(codes) == len(aw.ROLES) - 1, self
        codes["guest"] = self.guest or guest_answer(self, codes["member"])
        return codes

    def url(self, w: aw.World) -> str:
        if self.route.startswith("/"):
            return self.route
        return reverse(self.route, args=TARGETS[self.target](w)) + self.query

    def payload(self, w: aw.World) -> dict:
        return self.data(w) if callable(self.data) else dict(self.data or {})

    def __str__(self) -> str:
        return f"{self.method.upper()} {self.route} [{self.target}]{self.query}"


def guest_answer(row: Row, member: str) -> str:
    """A guest is a logged-in account kept to GUEST_ROUTES: there they are answered as another
    member is (and shown no lab-only text, checked beside), everywhere else 403."""
    return member if route_key(row) in GUEST_ROUTES else "403"


TARGETS: dict[str, Callable[[aw.World], list]] = {
    "-": lambda w: [],
    "paper": lambda w: [w.paper.pk],
    "bare paper": lambda w: [w.bare_paper.pk],
    "spare paper": lambda w: [w.spare_paper.pk],
    "linked paper": lambda w: [w.linked_paper.pk],
    "set-aside pdf": lambda w: [w.set_aside_pdf.pk],
    "author": lambda w: [w.paper.authors.get().pk],
    "lab tag": lambda w: [w.lab_tag.tag.kind, w.lab_tag.tag.slug],
    "lab tag csv": lambda w: [w.lab_tag.tag.kind, w.lab_tag.tag.slug, "csv"],
    "author csv": lambda w: [w.paper.authors.get().pk, "csv"],
    "csv": lambda w: ["csv"],
    "note": lambda w: [w.note.pk],
    "private list": lambda w: [w.private_list.pk],
    "shared list": lambda w: [w.shared_list.pk],
    "private item": lambda w: [w.private_list.pk, w.private_item.pk],
    "shared item": lambda w: [w.shared_list.pk, w.shared_item.pk],
    "lab-edit list": lambda w: [w.lab_edit_list.pk],
    "lab-edit item": lambda w: [w.lab_edit_list.pk, w.lab_edit_item.pk],
    "suggestion": lambda w: [w.suggestion.pk],
    "private highlight": lambda w: [w.private_highlight.pk],
    "lab highlight": lambda w: [w.lab_highlight.pk],
    "comment": lambda w: [w.comment.pk],
    "lab tag on paper": lambda w: [w.lab_tag.pk],
    "search": lambda w: [w.search.pk],
    "token": lambda w: [w.digest.token],
    "notification": lambda w: [w.notification.pk],
    "export": lambda w: [w.export.pk],
    "link fetch": lambda w: [w.link_fetch.pk],
    "capture": lambda w: [w.capture.pk],
    "feed": lambda w: [w.feed.pk],
    "conflict": lambda w: [w.conflict.pk],
    "import run": lambda w: [w.import_run.pk],
    "reset": lambda w: ["MQ", "set-password"],
    # An invitation the world never sent: every link is refused (tests/test_accounts_invitations
    # has the working one, and guests).
    "invitation": lambda w: ["made-up-token"],
    "oidc provider": lambda w: ["lab"],
    "papers app": lambda w: ["papers"],
    "owner account": lambda w: [w.owner.pk],
    "group": lambda w: [w.group.pk],
    "session": lambda w: [w.session.pk],
    "calendar": lambda w: [w.calendar.key],
    "api token": lambda w: [w.api_token.pk],
    "paper on site": lambda w: [ContentType.objects.get_for_model(Paper).pk, w.paper.pk],
}


def _upload(w: aw.World) -> dict:
    return {"file": SimpleUploadedFile("paper.pdf", make_pdf("Another upload"), "application/pdf")}


def _admin_action(action: str, pk: Callable[[aw.World], int]):
    return lambda w: {"action": action, "_selected_action": [pk(w)]}


_LIST = {"name": "Renamed", "visibility": "private", "description": ""}
_STATUS = {"status": "read", "priority": "1"}


_GROUP = {"name": "Another group", "time_zone": "UTC", "session_minutes": "60"}
_SESSION = {"starts_at": "2031-03-06T16:00", "papers": "", "agenda": "Matrix agenda"}


def _swap(w: aw.World) -> dict:
    return {"other": w.session.pk}


def _calendar(w: aw.World) -> dict:
    return {"group": w.group.pk}


def _anchor(exact: str) -> dict:
    return {"page": "2", "start": "5", "end": str(5 + len(exact)), "prefix": "", "suffix": ""}


def _known_link(w: aw.World) -> dict:
    return {"link": f"https://openreview.net/forum?id={w.paper.forum_id}"}


def _triage(field: str, value: Callable[[aw.World], str]):
    # Each paper's triage controls are a form of their own, prefixed with its number.
    return lambda w: {f"p{w.spare_paper.pk}-{field}": value(w)}


ROWS: list[Row] = [
    # The catalogue: everyone who may browse (REQUIRE_LOGIN off, the default).
    Row("healthz", "-", GET, "200 200 200 200 200"),
    Row("/favicon.ico", "-", GET, "302 302 302 302 302"),
    Row("papers:list", "-", GET, "200+ 200+ 200+ 200+ 200+", shows=aw.PAPER_TITLE),
    Row(
        "papers:detail",
        "paper",
        GET,
        "200+ 200+ 200+ 200+ 200+",
        shows=aw.PAPER_TITLE,
        owner_sees=aw.SECRET_NOTE,
    ),
    Row("papers:author", "author", GET, "200+ 200+ 200+ 200+ 200+", shows=aw.PAPER_TITLE),
    Row("papers:tag", "lab tag", GET, "200+ 200+ 200+ 200+ 200+", shows=aw.PAPER_TITLE),
    Row("papers:suggest", "-", GET, "200 200 200 200 200", query="?q=matrix"),
    Row("annotations:paper-cite", "paper", GET, "200+ 200+ 200+ 200+ 200+", shows=aw.PAPER_TITLE),
    Row("annotations:papers-export", "csv", GET, "200+ 200+ 200+ 200+ 200+", shows=aw.PAPER_TITLE),
    Row(
        "annotations:author-export",
        "author csv",
        GET,
        "200+ 200+ 200+ 200+ 200+",
        shows=aw.PAPER_TITLE,
    ),
    Row(
        "annotations:tag-export",
        "lab tag csv",
        GET,
        "200+ 200+ 200+ 200+ 200+",
        shows=aw.PAPER_TITLE,
    ),
    # The PDF (a member's upload: served to whoever may see the paper) and the reader.
    Row("pdfs:file", "paper", GET, "200+ 200+ 200+ 200+ 200+", shows="%PDF-"),
    Row("pdfs:reader", "paper", GET, "200+ 200+ 200+ 200+ 200+", shows=aw.PAPER_TITLE),
    # Without a PDF (nor a link to fetch one from; the reader's fetch on GET is another helper's).
    Row("pdfs:reader", "bare paper", GET, "200+ 200+ 200+ 200+ 200+", shows="Paper without a PDF"),
    Row("pdfs:upload", "bare paper", POST, "login 302 302 302 302", data=_upload),
    # "Fetch the PDF": a member's POST queues it (the snapshot counts the task); a GET of the
    # reader never does (the reader rows above change nothing), nor a paper without a link.
    Row("pdfs:reader", "linked paper", GET, "200+ 200+ 200+ 200+ 200+", shows=aw.LINKED_TITLE),
    Row("pdfs:fetch", "linked paper", POST, "login 302 302 302 302"),
    Row("pdfs:fetch", "bare paper", POST, "login 302- 302- 302- 302-"),
    Row("pdfs:fetch", "paper", POST, "login 302- 302- 302- 302-"),
    # Onto the owner's upload: never replaced, not even by its uploader.
    Row("pdfs:upload", "paper", POST, "login 302- 302- 302- 302-", data=_upload),
    # Highlights: JSON for the reader, JSON-LD, the member's Markdown.
    # Lab highlights are the lab's: members only.
    Row(
        "highlights:list",
        "paper",
        GET,
        "200 200+ 200+ 200+ 200+",
        shows=aw.LAB_HIGHLIGHT,
        owner_sees=aw.SECRET_HIGHLIGHT_NOTE,
    ),
    Row(
        "highlights:list",
        "paper",
        POST,
        "403 201+ 201+ 201+ 201+",
        data=lambda w: highlight_post(exact="We propose a simple method."),
        shows="We propose a simple method.",
    ),
    Row(
        "highlights:edit",
        "private highlight",
        POST,
        "403 200+ 404 404 404",
        data={"note": "edited"},
        shows="edited",
    ),
    Row(
        "highlights:edit",
        "lab highlight",
        POST,
        "403 200+ 404 404 404",
        data={"note": "edited"},
        shows="edited",
    ),
    # The panel's one-click switch (a form): only the author, another member's is not there.
    Row(
        "highlights:visibility",
        "private highlight",
        POST,
        "login 302 404 404 404",
        data={"visibility": "lab"},
    ),
    Row(
        "highlights:visibility",
        "lab highlight",
        POST,
        "login 302 404 404 404",
        data={"visibility": "private"},
    ),
    Row("highlights:delete", "private highlight", POST, "403 200 404 404 404"),
    Row("highlights:delete", "lab highlight", POST, "403 200 404 404 404"),
    Row(
        "highlights:anchor",
        "private highlight",
        POST,
        "403 200+ 404 404 404",
        data=_anchor(aw.SECRET_HIGHLIGHT),
        shows=aw.SECRET_HIGHLIGHT,
    ),
    # Only its author or a curator moves a lab highlight (issue 43, finding 12): another
    # member who can read it is answered as for an object of theirs they may not change.
    Row(
        "highlights:anchor",
        "lab highlight",
        POST,
        "403 200+ 404 200+ 200+",
        data=_anchor(aw.LAB_HIGHLIGHT),
        shows=aw.LAB_HIGHLIGHT,
    ),
    Row(
        "highlights:jsonld",
        "private highlight",
        GET,
        "404 200+ 404 404 404",
        shows=aw.SECRET_HIGHLIGHT,
    ),
    Row(
        "highlights:jsonld", "lab highlight", GET, "404 200+ 200+ 200+ 200+", shows=aw.LAB_HIGHLIGHT
    ),
    Row(
        "highlights:paper-export",
        "paper",
        GET,
        "login 200+ 200+ 200+ 200+",
        shows=aw.PAPER_TITLE,
        owner_sees=aw.SECRET_HIGHLIGHT,
    ),
    Row(
        "highlights:list-export",
        "private list",
        GET,
        "login 200+ 404 404 404",
        shows=aw.SECRET_LIST,
        owner_sees=aw.SECRET_NOTE,
    ),
    Row(
        "highlights:list-export",
        "shared list",
        GET,
        "login 200+ 200+ 200+ 200+",
        shows=aw.SHARED_LIST,
        owner_sees=aw.SECRET_NOTE,
    ),
    # Notes.
    Row("annotations:notes", "-", GET, "login 200+ 200 200 200", owner_sees=aw.SECRET_NOTE),
    Row("annotations:note-add", "bare paper", POST, "login 302 302 302 302", data={"body": "x"}),
    Row("annotations:note-edit", "note", GET, "login 200+ 404 404 404", shows=aw.SECRET_NOTE),
    Row("annotations:note-edit", "note", POST, "login 302 404 404 404", data={"body": "x"}),
    Row(
        "annotations:note-delete", "note", POST, "login 302 404 404 404", data={"confirmed": "yes"}
    ),
    # Reading lists.
    Row("annotations:lists", "-", GET, "login 200+ 200 200 200", owner_sees=aw.SECRET_LIST),
    Row("annotations:lists-shared", "-", GET, "login 200+ 200+ 200+ 200+", shows=aw.SHARED_LIST),
    Row("annotations:list-create", "-", POST, "login 302 302 302 302", data=_LIST),
    Row(
        "annotations:paper-list-add",
        "bare paper",
        POST,
        "login 302 302 302 302",
        data={"new_list_name": "New list"},
    ),
    Row(
        "annotations:list-detail",
        "private list",
        GET,
        "login 200+ 404 404 404",
        shows=aw.SECRET_LIST,
    ),
    Row(
        "annotations:list-detail",
        "shared list",
        GET,
        "login 200+ 200+ 200+ 200+",
        shows=aw.SHARED_LIST,
    ),
    Row(
        "annotations:list-edit", "private list", GET, "login 200+ 404 404 404", shows=aw.SECRET_LIST
    ),
    Row(
        "annotations:list-edit", "shared list", GET, "login 200+ 404 404 404", shows=aw.SHARED_LIST
    ),
    Row("annotations:list-edit", "private list", POST, "login 302 404 404 404", data=_LIST),
    Row("annotations:list-edit", "shared list", POST, "login 302 404 404 404", data=_LIST),
    Row(
        "annotations:list-delete",
        "private list",
        POST,
        "login 302 404 404 404",
        data={"confirmed": "yes"},
    ),
    Row(
        "annotations:list-delete",
        "shared list",
        POST,
        "login 302 404 404 404",
        data={"confirmed": "yes"},
    ),
    *[
        Row(f"annotations:list-export-{kind}", target, GET, expect, shows=aw.PAPER_TITLE)
        for kind in ("bibtex", "ris", "csl", "csv")
        for target, expect in [
            ("private list", "login 200+ 404 404 404"),
            ("shared list", "login 200+ 200+ 200+ 200+"),
        ]
    ],
    *[
        Row(
            f"annotations:list-item-{action}",
            f"{kind} item",
            POST,
            "login 302 404 404 404",
            data=data,
        )
        for action, data in [
            ("remove", {}),
            ("move", {"direction": "down"}),
            ("status", _STATUS),
            ("note", {"note": "A note"}),
        ]
        for kind in ("private", "shared")
        # A reader of the shared list keeps their own status on it (issue 41): below.
        if (action, kind) != ("status", "shared")
    ],
    # The lab's own list: every member edits it; a member's status is their own.
    *[
        Row(
            f"annotations:list-item-{action}",
            f"{kind} item",
            POST,
            "login 302 302 302 302",
            data=data,
        )
        for kind, action, data in [
            ("shared", "status", {"status": "read"}),
            ("lab-edit", "status", {"status": "read"}),
            ("lab-edit", "move", {"direction": "down"}),
            ("lab-edit", "note", {"note": "A note"}),
            ("lab-edit", "remove", {}),
        ]
    ],
    Row(
        "annotations:list-item-add",
        "lab-edit list",
        POST,
        "login 302 302 302 302",
        data=lambda w: {"paper": str(w.spare_paper.pk)},
    ),
    Row(
        "annotations:list-detail",
        "lab-edit list",
        GET,
        "login 200+ 200+ 200+ 200+",
        shows=aw.LAB_EDIT_LIST,
    ),
    # Suggestions: the member suggested the paper to the owner.
    Row(
        "annotations:paper-suggest",
        "spare paper",
        POST,
        "login 302- 302 302 302",  # the owner cannot suggest to themselves
        data={"recipient": "owner", "reason": "Read it"},
    ),
    Row(
        "annotations:suggestions",
        "-",
        GET,
        "login 200+ 200 200 200",
        owner_sees=aw.SECRET_SUGGESTION,
    ),
    Row(
        "annotations:suggestion-accept",
        "suggestion",
        POST,
        "login 302 404 404 404",
        data=lambda w: {"reading_list": str(w.private_list.pk)},
    ),
    Row("annotations:suggestion-dismiss", "suggestion", POST, "login 302 404 404 404"),
    *[
        Row(
            "annotations:list-item-add",
            f"{kind} list",
            POST,
            "login 302 404 404 404",
            data=lambda w: {"paper": str(w.spare_paper.pk)},
        )
        for kind in ("private", "shared")
    ],
    Row("recommendations:recommended", "-", GET, "login 200 200 200 200"),
    Row(
        "recommendations:list-similar",
        "private list",
        GET,
        "login 200+ 404 404 404",
        shows=aw.SECRET_LIST,
    ),
    Row(
        "recommendations:list-similar",
        "shared list",
        GET,
        "login 200+ 200+ 200+ 200+",
        shows=aw.SHARED_LIST,
    ),
    # Comments, lab tags, activity, notifications.
    Row("annotations:comment-add", "paper", POST, "login 302 302 302 302", data={"body": "Hi"}),
    Row("annotations:comment-edit", "comment", GET, "login 200+ 404 404 404", shows=aw.COMMENT),
    Row("annotations:comment-edit", "comment", POST, "login 302 404 404 404", data={"body": "x"}),
    Row(
        "annotations:comment-delete",
        "comment",
        POST,
        "login 302 404 302 302",
        data={"confirmed": "yes"},
    ),
    Row(
        "annotations:tag-add",
        "bare paper",
        POST,
        "login 302 302 302 302",
        data={"name": "another-tag"},
    ),
    Row("annotations:tag-remove", "lab tag on paper", POST, "login 302 404 302 302"),
    Row("annotations:activity", "-", GET, "login 200+ 200+ 200+ 200+", shows=aw.COMMENT),
    Row(
        "annotations:notifications",
        "-",
        GET,
        "login 200+ 200 200 200",
        owner_sees="A reply to the owner",
    ),
    Row("annotations:notifications-mark-all-read", "-", POST, "login 302 302- 302- 302-"),
    Row("annotations:notification-open", "notification", GET, "login 302 404 404 404"),
    Row("annotations:notification-open", "notification", POST, "login 302 404 404 404"),
    # Triage from lists of papers.
    *[
        Row(f"annotations:triage-{action}", "spare paper", POST, expect, data=data)
        for action, expect, data in [
            ("save", "login 302 302 302 302", {}),
            ("unsave", "login 302- 302- 302- 302-", {}),  # nothing saved: nothing to do
            ("status", "login 302 302 302 302", _triage("status", lambda w: "reading")),
            ("tag", "login 302 302 302 302", _triage("name", lambda w: "triaged")),
            # To the owner from a result's "More" (the owner cannot suggest to themselves).
            ("suggest", "login 302- 302 302 302", _triage("recipient", lambda w: "owner")),
        ]
    ],
    # Into the owner's private list: refused to everyone else, as a list they cannot see.
    Row(
        "annotations:triage-list",
        "spare paper",
        POST,
        "login 302 302- 302- 302-",
        data=_triage("reading_list", lambda w: str(w.private_list.pk)),
    ),
    Row(
        "annotations:triage-bulk",
        "-",
        POST,
        "login 302 302 302 302",
        data=lambda w: {"paper": [str(w.spare_paper.pk)], "action": "save"},
    ),
    Row(
        "annotations:triage-bulk",
        "-",
        POST,
        "login 302 302- 302- 302-",
        data=lambda w: {
            "paper": [str(w.spare_paper.pk)],
            "action": "list",
            "reading_list": str(w.private_list.pk),
        },
    ),
    # Prepared exports: the owner's files only.
    Row("annotations:export-list", "-", GET, "login 200+ 200 200 200", owner_sees="papers.csv"),
    Row(
        "annotations:export-prepare",
        "-",
        POST,
        "login 302 302 302 302",
        data={"path": "/export/papers.csv"},
    ),
    Row(
        "annotations:export-download",
        "export",
        GET,
        "login 200+ 404 404 404",
        shows=aw.SECRET_EXPORT,
    ),
    Row("annotations:export-delete", "export", POST, "login 302 404 404 404"),
    # Adding by link is a member's POST; a paper the catalogue has is opened, no request made
    # (the lookups themselves: tests/test_add_by_link_post_only.py).
    Row("papers:add-by-link", "-", POST, "login 302- 302- 302- 302-", data=_known_link),
    # A fetch by link's page: the member who asked only (a failed one: its message).
    Row(
        "papers:link-fetch",
        "link fetch",
        GET,
        "login 200+ 404 404 404",
        owner_sees=f"Crossref has no paper {aw.SECRET_DOI}.",
    ),
    # The results' "Add by link" box: onto one of the member's own lists only.
    Row(
        "annotations:triage-link",
        "-",
        POST,
        "login 302 302- 302- 302-",
        data=lambda w: {"paper": str(w.spare_paper.pk), "reading_list": str(w.private_list.pk)},
    ),
    # One-click capture (the bookmarklet's page, a GET, adds nothing; a title-only page's
    # match is the positive control); adding onto one's own lists only; a capture and its undo
    # are the member's own.
    Row(
        "annotations:capture",
        "-",
        GET,
        "login 200+ 200 200 200",
        owner_sees=aw.PAPER_TITLE,
        query="?title=matrix+paper",
    ),
    Row(
        "annotations:capture-add",
        "-",
        POST,
        "login 302 400 400 400",
        data=lambda w: {
            "paper": str(w.spare_paper.pk),
            "reading_list": str(w.private_list.pk),
            "add": "1",
        },
    ),
    Row(
        "annotations:capture-result",
        "capture",
        GET,
        "login 200+ 404 404 404",
        owner_sees=aw.SECRET_LIST,
    ),
    Row("annotations:capture-undo", "capture", POST, "login 302 404 404 404"),
    Row(
        "annotations:capture-settings",
        "-",
        GET,
        "login 200+ 200 200 200",
        owner_sees=aw.SECRET_LIST,
    ),
    Row(
        "annotations:capture-settings",
        "-",
        POST,
        "login 302 400 400 400",
        data=lambda w: {"reading_list": str(w.shared_list.pk)},
    ),
    Row("annotations:capture-key", "-", POST, "login 200 200 200 200"),
    Row("annotations:capture-key-revoke", "-", POST, "login 302 302- 302- 302-"),
    # Saved searches and the digest.
    Row("alerts:searches", "-", GET, "login 200+ 200 200 200", owner_sees=aw.SECRET_SEARCH),
    Row(
        "alerts:save",
        "-",
        POST,
        "login 302 302 302 302",
        data={"name": "Matrix search", "query": "q=matrix"},
    ),
    Row("alerts:open", "search", GET, "login 302 404 404 404"),
    Row("alerts:open", "search", POST, "login 302 404 404 404"),
    Row("alerts:rename", "search", POST, "login 302 404 404 404", data={"name": "Renamed"}),
    Row("alerts:toggle-alert", "search", POST, "login 302 404 404 404"),
    Row("alerts:delete", "search", POST, "login 302 404 404 404", data={"confirmed": "yes"}),
    # The token is the key: whoever has the mail's link may unsubscribe (after asking).
    Row("alerts:unsubscribe", "token", GET, "200 200 200 200 200"),
    Row("alerts:unsubscribe", "token", POST, "200 200 200 200 200"),
    Row("alerts:resubscribe", "-", POST, "login 302- 302- 302- 302-"),  # none unsubscribed
    Row("alerts:lab", "-", GET, "login 200 200 200 200"),
    # Accounts (Django's views, with the site's login and reset throttles).
    Row("login", "-", GET, "200 200 200 200 200"),
    # ALLOW_SIGNUP off, the default (its positive control: test_signup_when_it_is_allowed).
    Row("signup", "-", GET, "404 404 404 404 404"),
    Row("logout", "-", POST, "302- 302- 302- 302- 302-"),
    Row("password_change", "-", GET, "login 200 200 200 200"),
    Row("password_change_done", "-", GET, "login 200 200 200 200"),
    Row("password_reset", "-", GET, "200 200 200 200 200"),
    Row("password_reset_done", "-", GET, "200 200 200 200 200"),
    Row("password_reset_confirm", "reset", GET, "200 200 200 200 200"),
    Row("password_reset_complete", "-", GET, "200 200 200 200 200"),
    # Invitations (accounts/): curators invite (302-: an invitation is not in the snapshot).
    Row("accounts:invite", "-", GET, "login 403 403 200 200"),
    Row(
        "accounts:invite",
        "-",
        POST,
        "login 403 403 302- 302-",
        data={"emails": "newcomer@example.org", "role": "member"},
    ),
    Row("accounts:accept", "invitation", GET, "410 410 410 410 410"),
    Row("accounts:accept", "invitation", POST, "410 410 410 410 410"),
    # Single sign-on (accounts/sso_urls.py): no provider configured in the world, so its
    # login and callback answer 404 (tests/test_accounts_sso.py has a configured one).
    Row("openid_connect_login", "oidc provider", GET, "404 404 404 404 404"),
    Row("openid_connect_login", "oidc provider", POST, "404 404 404 404 404"),
    Row("openid_connect_callback", "oidc provider", GET, "404 404 404 404 404"),
    Row("orcid_login", "-", POST, "404 404 404 404 404"),
    Row("orcid_callback", "-", GET, "404 404 404 404 404"),
    Row("socialaccount_login_cancelled", "-", GET, "200 200 200 200 200"),
    Row("socialaccount_login_error", "-", GET, "401 401 401 401 401"),
    # Without a sign-in under way: to allauth's name for the login page (account_login).
    Row("socialaccount_signup", "-", GET, "302 302 302 302 302"),
    Row("socialaccount_connections", "-", GET, "login 200 200 200 200"),
    Row("account_login", "-", GET, "login login login login login"),
    Row("account_inactive", "-", GET, "200 200 200 200 200"),
    # The admin: curators and superusers; members and visitors are sent to its login.
    Row("admin:index", "-", GET, "login login login 200 200"),
    Row("admin:login", "-", GET, "200 200 200 302 302"),
    Row("admin:logout", "-", POST, "302- 302- 302- 302- 302-"),
    Row("admin:password_change", "-", GET, "login login login 200 200"),
    Row("admin:password_change_done", "-", GET, "login login login 200 200"),
    Row("admin:autocomplete", "-", GET, "login login login 403 403"),  # no field named
    Row(
        "admin:autocomplete",
        "-",
        GET,
        "login login login 200+ 200+",
        query="?app_label=papers&model_name=authorship&field_name=author&term=Ann",
        shows="Ann Author",
    ),
    Row("admin:jsi18n", "-", GET, "login login login 200 200"),
    Row("admin:view_on_site", "paper on site", GET, "login login login 302 302"),
    Row("admin:app_list", "papers app", GET, "login login login 200+ 200+", shows="Feeds"),
    Row("admin:auth_user_password_change", "owner account", GET, "login login login 403 200"),
    Row(
        "admin:papers_feed_changelist", "-", GET, "login login login 200+ 200+", shows=aw.FEED_NAME
    ),
    Row("admin:papers_feed_change", "feed", GET, "login login login 200+ 200+", shows=aw.FEED_NAME),
    # A feed's bulk PDF run: counted on a page first, started by its POST (the world's feed
    # has no paper to fetch: nothing starts; tests/test_pdf_runs.py starts one).
    Row(
        "admin:pdfs_pdfrun_start",
        "feed",
        GET,
        "login login login 200+ 200+",
        shows=f"Download the PDFs of {aw.FEED_NAME}",
    ),
    Row("admin:pdfs_pdfrun_start", "feed", POST, "login login login 302- 302-"),
    Row(
        "admin:papers_feed_changelist",
        "-",
        POST,
        "login login login 302 302",
        data=_admin_action("fetch_now", lambda w: w.feed.pk),
    ),
    Row(
        "admin:papers_importconflict_changelist",
        "-",
        GET,
        "login login login 200+ 200+",
        shows="Incoming",
    ),
    Row(
        "admin:papers_importconflict_change",
        "conflict",
        GET,
        "login login login 200+ 200+",
        shows=aw.CONFLICT_INCOMING,
    ),
    Row(
        "admin:papers_importconflict_settle",
        "conflict",
        POST,
        "login login login 302 302",
        data={"resolution": "kept"},
    ),
    Row(
        "admin:papers_importconflict_changelist",
        "-",
        POST,
        "login login login 302 302",
        data=_admin_action("mark_resolved", lambda w: w.conflict.pk),
    ),
    # Duplicates: the paper list's action (the world has none to find).
    Row(
        "admin:papers_paper_changelist",
        "-",
        POST,
        "login login login 302- 302-",
        data=_admin_action("find_duplicates", lambda w: w.paper.pk),
    ),
    Row("admin:papers_importrun_change", "import run", GET, "login login login 200 200"),
    # The curation queue's spellings to merge (the world has none: refused with a message).
    Row("admin:papers_tag_variants_merge", "-", POST, "login login login 302- 302-"),
    Row("admin:papers_tag_variants_dismiss", "-", POST, "login login login 302- 302-"),
    # Private highlights are hidden from every admin, superusers included.
    Row(
        "admin:highlights_highlight_changelist",
        "-",
        GET,
        "login login login 200+ 200+",
        shows=aw.LAB_HIGHLIGHT,
    ),
    Row("admin:highlights_highlight_change", "private highlight", GET, "login login login 302 302"),
    Row(
        "admin:highlights_highlight_change",
        "lab highlight",
        GET,
        "login login login 200+ 200+",
        shows=aw.LAB_HIGHLIGHT,
    ),
    Row("admin:annotations_readinglist_change", "private list", GET, "login login login 403 302"),
    # A merged paper's PDF set aside: curators download it, members never.
    Row(
        "admin:pdfs_setasidepdf_file",
        "set-aside pdf",
        GET,
        "login login login 200+ 200+",
        shows="%PDF-",
    ),
    Row(
        "admin:pdfs_paperpdf_changelist",
        "-",
        GET,
        "login login login 200+ 200+",
        shows=aw.PAPER_TITLE,
    ),
    # Reading groups: the lab sees every group; only its members (the owner here) change it.
    Row("groups:list", "-", GET, "login 200+ 200+ 200+ 200+", shows=aw.GROUP_NAME),
    Row("groups:list", "-", POST, "login 302 302 302 302", data=_GROUP),
    Row("groups:detail", "group", GET, "login 200+ 200+ 200+ 200+", shows=aw.GROUP_NAME),
    Row("groups:edit", "group", GET, "login 200+ 404 404 404", shows=aw.GROUP_NAME),
    Row("groups:edit", "group", POST, "login 302 404 404 404", data=_GROUP),
    Row("groups:join", "group", POST, "login 302- 302 302 302"),
    Row("groups:leave", "group", POST, "login 302 404 404 404"),
    Row("groups:session-create", "group", POST, "login 302 404 404 404", data=_SESSION),
    Row("groups:session", "session", GET, "login 200+ 200+ 200+ 200+", shows=aw.GROUP_NAME),
    Row("groups:session-edit", "session", GET, "login 200+ 404 404 404", shows=aw.GROUP_NAME),
    Row("groups:session-edit", "session", POST, "login 302 404 404 404", data=_SESSION),
    Row("groups:session-notes", "session", POST, "login 302 404 404 404", data={"notes": "N"}),
    Row("groups:rsvp", "session", POST, "login 302 404 404 404", data={"answer": "yes"}),
    # The group has one session: nothing to swap with (refused with a message).
    Row("groups:swap", "session", POST, "login 302- 404 404 404", data=_swap),
    Row("groups:calendar-link-new", "-", POST, "login 302 302 302 302", data=_calendar),
    Row("groups:calendar-link-revoke", "-", POST, "login 302 302- 302- 302-", data=_calendar),
    # The secret address is the proof: calendar apps come without a session.
    Row("groups:calendar-feed", "calendar", GET, "200+ 200+ 200+ 200+ 200+", shows=aw.GROUP_NAME),
    # The JSON API (api/, docs/api.md), with the site's session (tests/test_api_*.py: tokens).
    # Writes take JSON: the table's form posts are refused (415) before any check, and
    # CONTROLLED_ELSEWHERE names their positive controls.
    Row("api:tokens", "-", GET, "login 200 200 200 200"),
    Row("api:tokens", "-", POST, "login 200 200 200 200", data={"name": "Bot", "scope": "read"}),
    Row("api:token-revoke", "api token", POST, "login 302 404 404 404"),
    Row("api-1:api-root", "-", GET, "404 404 404 404 404"),
    # Any other address under the API's (an id its URL does not take): its JSON 404.
    Row("/api/v1/papers/-1", "-", GET, "404 404 404 404 404"),
    Row("api-1:openapi-json", "-", GET, "200+ 200+ 200+ 200+ 200+", shows='"openapi": "3.1'),
    Row("api-1:search_papers", "-", GET, "200+ 200+ 200+ 200+ 200+", shows=aw.PAPER_TITLE),
    Row("api-1:paper", "paper", GET, "200+ 200+ 200+ 200+ 200+", shows=aw.PAPER_TITLE),
    Row("api-1:author", "author", GET, "200+ 200+ 200+ 200+ 200+", shows="Ann Author"),
    Row("api-1:tags", "-", GET, "200+ 200+ 200+ 200+ 200+", shows="matrix-tag"),
    Row(
        "api-1:lists",
        "-",
        GET,
        "200 200+ 200+ 200+ 200+",
        shows=aw.SHARED_LIST,
        owner_sees=aw.SECRET_LIST,
    ),
    Row(
        "api-1:list_detail",
        "private list",
        GET,
        "404 200+ 404 404 404",
        owner_sees=aw.SECRET_LIST,
    ),
    Row("api-1:list_detail", "shared list", GET, "404 200+ 200+ 200+ 200+", shows=aw.SHARED_LIST),
    Row("api-1:item_add", "lab-edit list", POST, "415 415 415 415 415", data=_known_link),
    Row("api-1:item_status", "shared item", POST, "415 415 415 415 415", data=_STATUS),
    Row("api-1:fetch", "link fetch", GET, "404 200+ 404 404 404", shows='"failed"'),
    Row("api-1:notes", "-", GET, "200 200+ 200 200 200", owner_sees=aw.SECRET_NOTE),
    Row("api-1:note_add", "-", POST, "415 415 415 415 415", data={"paper": "1", "body": "x"}),
    Row("api-1:tag_add", "paper", POST, "415 415 415 415 415", data={"name": "api-tag"}),
    Row(
        "api-1:highlights",
        "-",
        GET,
        "200 200+ 200+ 200+ 200+",
        shows=aw.LAB_HIGHLIGHT,
        owner_sees=aw.SECRET_HIGHLIGHT,
    ),
    Row("api-1:highlight_add", "paper", POST, "415 415 415 415 415", data=_anchor("api quote")),
    Row("api-1:notifications", "-", GET, "200 200+ 200 200 200", owner_sees='"reply"'),
]


# The routes of the site, from the URL resolver (tests/test_access_matrix.py checks that each
# has a row above or is an admin model page; tests/test_get_changes_nothing.py requests them).


def site_routes(patterns=None, prefix: str = "", namespace: str = ""):
    """(key, route) of every URL pattern the site resolves: its name, or its route if it has
    none."""
    for pattern in get_resolver().url_patterns if patterns is None else patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            inner = ":".join(filter(None, [namespace, pattern.namespace or ""]))
            yield from site_routes(pattern.url_patterns, route, inner)
        elif pattern.name:
            yield ":".join(filter(None, [namespace, pattern.name])), route
        else:
            yield route, route


def route_key(row: Row) -> str:
    if not row.route.startswith("/"):
        return row.route
    match = resolve(row.route)
    return match.route if match.url_name is None else match.view_name


# The admin's model pages: every registered model's list, add, history, delete and change
# pages (and the bare "<id>/" address that redirects to the change page), for every object
# of the world of that model, and a page the admin does not have.


def admin_sweep_urls() -> list[str]:
    urls = [reverse("admin:index") + "no-such-page/"]
    for model in admin.site._registry:
        info = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        urls += [reverse(f"{info}_changelist"), reverse(f"{info}_add")]
        for pk in model._default_manager.order_by("pk").values_list("pk", flat=True)[:10]:
            change = reverse(f"{info}_change", args=[pk])
            urls += [
                change,
                change.removesuffix("change/"),
                reverse(f"{info}_history", args=[pk]),
                reverse(f"{info}_delete", args=[pk]),
            ]
    return urls


def _admin_sweep_keys() -> set[str]:
    keys = {"admin/(?P<url>.*)$"}
    for model in admin.site._registry:
        info = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        keys |= {f"{info}_{view}" for view in ("changelist", "add", "change", "history", "delete")}
        keys.add(f"admin/{model._meta.app_label}/{model._meta.model_name}/<path:object_id>/")
    return keys


ADMIN_SWEEP_KEYS = _admin_sweep_keys()
