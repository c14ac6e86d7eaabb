"""The access matrix's world (tests/access_table.py, tests/test_access_matrix.py): six roles,
one paper with a member's uploaded PDF, and one private object of each kind, whose text is a
marker that must never reach anyone but its owner; the lab's shared things, whose text must
never reach a guest."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from io import BytesIO

from django.contrib.auth.models import Permission
from django.core.files.base import ContentFile
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts.models import Role
from accounts.roles import CURATOR_PERMISSIONS as ROLE_CURATOR_PERMISSIONS
from accounts.roles import set_role
from alerts.models import DigestState, SavedSearch
from annotations import capture as capturing
from annotations.models import (
    Capture,
    CaptureSettings,
    Comment,
    ExportJob,
    ExportStatus,
    MemberReading,
    Note,
    Notification,
    NotificationKind,
    ReadingList,
    ReadingListItem,
    Suggestion,
    Visibility,
)
from api.models import ApiToken, TokenScope
from api.tokens import create_token
from groups.models import CalendarLink, Membership, ReadingGroup, Rsvp, Session
from highlights.models import Highlight, HighlightVisibility
from papers.models import Feed, ImportConflict, ImportRun, LinkFetch, Paper, PaperTag
from pdfs.models import PaperPdf, SetAsidePdf
from pdfs.storing import store_pdf
from tests.factories import (
    make_comment,
    make_lab_tag,
    make_note,
    make_paper,
    make_reading_list,
    make_user,
)
from tests.group_helpers import make_group, make_session
from tests.highlight_helpers import make_highlight
from tests.pdf_files import make_pdf

ROLES = ("visitor", "owner", "member", "curator", "superuser", "guest")

# The owner's private texts: any response to anyone else holding one of them is a leak.
SECRET_NOTE = "SECRET-NOTE-body"
SECRET_LIST = "SECRET-LIST-name"
SECRET_HIGHLIGHT = "SECRET-HIGHLIGHT-quote"
SECRET_HIGHLIGHT_NOTE = "SECRET-HIGHLIGHT-note"
SECRET_SEARCH = "SECRET-SEARCH-name"
SECRET_EXPORT = "SECRET-EXPORT-content"
SECRET_DOI = "10.5555/secret-link-fetch"  # a paper the owner asked for by its link
SECRET_SUGGESTION = "SECRET-SUGGESTION-reason"  # why the member suggested a paper to the owner
SECRETS = (
    SECRET_SUGGESTION,
    SECRET_NOTE,
    SECRET_LIST,
    SECRET_HIGHLIGHT,
    SECRET_HIGHLIGHT_NOTE,
    SECRET_SEARCH,
    SECRET_EXPORT,
    SECRET_DOI,
)

# What each role may see where it may (the positive controls' texts).
# Lower case: BibTeX would brace a capitalised word ({Matrix}).
PAPER_TITLE = "matrix paper"
LINKED_TITLE = "Paper with a PDF link"
SHARED_LIST = "Shared matrix list"
GROUP_NAME = "Matrix reading group"
LAB_EDIT_LIST = "Lab-edited matrix list"
LAB_HIGHLIGHT = "Lab highlight quote"
COMMENT = "A public comment of the owner"
FEED_NAME = "Matrix feed"
CONFLICT_INCOMING = "Incoming matrix title"
PDF_TEXT = "Uploaded matrix text"
# What the lab shares with its members and a guest never sees (accounts.roles: a guest sees
# what a visitor sees plus the comment threads): its lists, lab highlights, reading groups.
LAB_ONLY = (SHARED_LIST, LAB_EDIT_LIST, LAB_HIGHLIGHT, GROUP_NAME)
PDF_BYTES = make_pdf(PDF_TEXT)

# A curator: staff with the catalogue permissions docs/features.md ("Curator accounts") lists,
# comment moderation, the curation pages of feeds, PDFs and highlights, and inviting people:
# the Curators group's (accounts.roles), given here one by one as a curator made before roles.
CURATOR_PERMISSIONS = [
    f"{action}_{model}"
    for models in ROLE_CURATOR_PERMISSIONS.values()
    for model, actions in models.items()
    for action in actions.split()
]


@dataclass
class World:
    users: dict  # role -> user (None for the visitor)
    paper: Paper
    bare_paper: Paper  # no PDF: where an upload goes
    spare_paper: Paper  # in no list: what is added to one
    linked_paper: Paper  # no PDF, a link to fetch it from: what "Fetch the PDF" queues
    pdf: PaperPdf
    set_aside_pdf: SetAsidePdf  # a merged paper's PDF kept beside the paper's own
    note: Note
    private_list: ReadingList
    shared_list: ReadingList
    private_item: ReadingListItem
    shared_item: ReadingListItem
    lab_edit_list: ReadingList  # every member edits it
    lab_edit_item: ReadingListItem
    suggestion: Suggestion  # from the member to the owner
    private_highlight: Highlight
    lab_highlight: Highlight
    comment: Comment
    lab_tag: PaperTag
    search: SavedSearch
    digest: DigestState
    notification: Notification
    export: ExportJob
    link_fetch: LinkFetch
    feed: Feed
    conflict: ImportConflict
    import_run: ImportRun
    capture: Capture  # the owner's one-click capture of `paper` onto their private list
    group: ReadingGroup  # the owner's reading group (the member is not in it)
    session: Session
    calendar: CalendarLink  # the owner's secret feed of the group
    api_token: ApiToken  # the owner's read-write API token (api/)

    @property
    def owner(self):
        return self.users["owner"]

    def client_for(self, role: str) -> Client:
        client = Client()
        if self.users[role] is not None:
            client.force_login(self.users[role])
        return client


def make_curator(username: str = "curator"):
    curator = make_user(username, is_staff=True)
    curator.user_permissions.set(Permission.objects.filter(codename__in=CURATOR_PERMISSIONS))
    return curator


def _set_aside_pdf(paper: Paper) -> SetAsidePdf:
    pdf = SetAsidePdf(
        paper=paper,
        merged_paper_id=paper.pk + 1000,
        sha256=hashlib.sha256(PDF_BYTES).hexdigest(),
        size=len(PDF_BYTES),
        fetched_at=timezone.now(),
    )
    pdf.file.save("set-aside.pdf", ContentFile(PDF_BYTES))  # saves the row too
    return pdf


def make_guest(username: str = "guest"):
    guest = make_user(username)
    set_role(guest, Role.GUEST)
    return guest


def build_world() -> World:
    owner, member = make_user("owner"), make_user("member")
    users = {
        "visitor": None,
        "owner": owner,
        "member": member,
        "curator": make_curator(),
        "superuser": make_user("root", is_staff=True, is_superuser=True),
        "guest": make_guest(),
    }
    paper = make_paper(PAPER_TITLE, authors=["Ann Author"])
    bare_paper = make_paper("Paper without a PDF")
    store_pdf(
        paper_id=paper.pk,
        file=BytesIO(PDF_BYTES),
        sha256=hashlib.sha256(PDF_BYTES).hexdigest(),
        size=len(PDF_BYTES),
        uploaded_by=owner,
    )
    private_list = make_reading_list(owner, SECRET_LIST, papers=[paper, bare_paper])
    shared_list = make_reading_list(
        owner, SHARED_LIST, papers=[paper, bare_paper], visibility=Visibility.SHARED
    )
    lab_edit_list = make_reading_list(
        owner, LAB_EDIT_LIST, papers=[paper, bare_paper], visibility=Visibility.LAB_EDIT
    )
    comment = make_comment(owner, paper, COMMENT)
    export = ExportJob.objects.create(
        owner=owner,
        path="/export/papers.csv",
        extension="csv",
        filename="papers.csv",
        status=ExportStatus.DONE,
        entries=1,
        finished_at=timezone.now(),
    )
    export.file.save("papers.csv", ContentFile(f"title\n{SECRET_EXPORT}\n".encode()))
    run = ImportRun.objects.create(started_at=timezone.now(), finished_at=timezone.now())
    capturing.make_key(member=owner)  # a one-click bookmarklet's key, to revoke
    private_item = private_list.items.get(paper=paper)
    group = make_group([owner], name=GROUP_NAME)
    session = make_session(group, papers=[paper])
    return World(
        users=users,
        paper=paper,
        bare_paper=bare_paper,
        spare_paper=make_paper("Spare paper"),
        linked_paper=make_paper(LINKED_TITLE, pdf_url="https://openreview.net/pdf?id=matrix"),
        pdf=PaperPdf.objects.get(paper=paper),
        set_aside_pdf=_set_aside_pdf(paper),
        note=make_note(owner, paper, SECRET_NOTE),
        private_list=private_list,
        shared_list=shared_list,
        private_item=private_item,
        shared_item=shared_list.items.get(paper=paper),
        lab_edit_list=lab_edit_list,
        lab_edit_item=lab_edit_list.items.get(paper=paper),
        suggestion=Suggestion.objects.create(
            sender=member, recipient=owner, paper=paper, reason=SECRET_SUGGESTION
        ),
        private_highlight=make_highlight(
            owner, paper, exact=SECRET_HIGHLIGHT, note=SECRET_HIGHLIGHT_NOTE
        ),
        lab_highlight=make_highlight(
            owner, paper, exact=LAB_HIGHLIGHT, start=200, visibility=HighlightVisibility.LAB
        ),
        comment=comment,
        lab_tag=make_lab_tag(paper, "matrix-tag", added_by=owner),
        search=SavedSearch.objects.create(owner=owner, name=SECRET_SEARCH, query="q=matrix"),
        digest=DigestState.objects.create(user=owner),
        notification=Notification.objects.create(
            recipient=owner,
            kind=NotificationKind.REPLY,
            comment=make_comment(member, paper, "A reply to the owner", parent=comment),
        ),
        export=export,
        link_fetch=LinkFetch.objects.create(
            requested_by=owner,
            kind="doi",
            value=SECRET_DOI,
            link=f"https://doi.org/{SECRET_DOI}",
            status=LinkFetch.Status.FAILED,
            message=f"Crossref has no paper {SECRET_DOI}.",
        ),
        feed=Feed.objects.create(name=FEED_NAME, target="ICLR.cc/2025/Conference"),
        # A curator's title kept against a file's: the paper holds `previous`, so "keep
        # current" is the conflict's own value, not a stale one (papers.conflicts).
        conflict=ImportConflict.objects.create(
            paper=paper,
            kind=ImportConflict.Kind.CURATED,
            field="title",
            source="matrix.jsonl",
            previous=PAPER_TITLE,
            incoming=CONFLICT_INCOMING,
            import_run=run,
        ),
        import_run=run,
        capture=Capture.objects.create(
            member=owner, reading_list=private_list, paper=paper, item=private_item
        ),
        group=group,
        session=session,
        calendar=CalendarLink.objects.create(owner=owner, group=group),
        api_token=create_token(user=owner, name="Matrix script", scope=TokenScope.WRITE)[0],
    )


def group_memberships():
    return Membership.objects.order_by("pk").values_list("group", "member", "queue_position")


def snapshot(w: World) -> tuple:
    """Everything a refused request (and any GET) must leave as it was."""
    return (
        list(Note.objects.order_by("pk").values_list("owner", "paper", "body")),
        list(ReadingList.objects.order_by("pk").values_list("owner", "name", "visibility")),
        list(
            ReadingListItem.objects.order_by("pk").values_list(
                "reading_list", "paper", "position", "status", "priority", "note"
            )
        ),
        list(MemberReading.objects.order_by("pk").values_list("item", "member", "status")),
        list(Suggestion.objects.order_by("pk").values_list("state", "accepted_into")),
        list(
            Highlight.objects.order_by("pk").values_list(
                "author", "paper", "visibility", "page", "start", "end", "exact", "note"
            )
        ),
        list(Comment.objects.order_by("pk").values_list("author", "body", "removed_at")),
        list(PaperTag.objects.order_by("pk").values_list("paper", "tag")),
        list(PaperPdf.objects.order_by("pk").values_list("paper", "sha256", "uploaded_by")),
        list(
            SavedSearch.objects.order_by("pk").values_list("owner", "name", "alert", "last_seen_at")
        ),
        list(DigestState.objects.order_by("pk").values_list("user", "token", "unsubscribed_at")),
        list(Notification.objects.order_by("pk").values_list("recipient", "read_at")),
        list(ApiToken.objects.order_by("pk").values_list("user", "key_hash", "revoked_at")),
        list(ExportJob.objects.order_by("pk").values_list("owner", "status", "file")),
        list(LinkFetch.objects.order_by("pk").values_list("requested_by", "status", "value")),
        list(Feed.objects.order_by("pk").values_list("name", "target", "last_status")),
        list(ImportConflict.objects.order_by("pk").values_list("paper", "resolved_at")),
        list(Paper.objects.order_by("pk").values_list("title", "needs_curation", "reviewed_at")),
        list(Capture.objects.order_by("pk").values_list("member", "undone_at")),
        list(
            CaptureSettings.objects.order_by("pk").values_list("member", "reading_list", "key_hash")
        ),
        # Background work queued (a fetch, an export): never by a GET.
        DBTaskResult.objects.count(),
        list(ReadingGroup.objects.order_by("pk").values_list("name", "time_zone")),
        list(
            Session.objects.order_by("pk").values_list("starts_at", "presenter", "agenda", "notes")
        ),
        list(Rsvp.objects.order_by("pk").values_list("session", "member", "answer")),
        list(CalendarLink.objects.order_by("pk").values_list("owner", "group", "key")),
        list(group_memberships()),
    )
