"""Triage from the results: what a member's Save, list, status and tag controls on a list of
papers read and write. Reads return plain state for the page; writes are atomic, so a bulk
action on many papers either happens for all of them or not at all."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property

from django.db import IntegrityError, transaction

from annotations import services
from annotations.models import ReadingList, ReadingListItem, ReadingStatus, Visibility
from papers.models import Paper
from papers.routes import int_route

DEFAULT_LIST_NAME = "Saved"


# The triage controls' routes, each taking the paper's id (annotations/urls.py).
ACTIONS = ("save", "unsave", "status", "list", "tag", "suggest")


@dataclass
class PaperTriage:
    """One paper's state for the member: the default list's item (if saved) and the ids of
    the member's lists holding it."""

    page: TriageState
    paper_id: int
    status: str | None = None
    list_ids: set[int] = field(default_factory=set)

    @property
    def key(self) -> str:
        # The id as text: a template renders an int through number localisation, every time.
        return str(self.paper_id)

    @cached_property
    def urls(self) -> dict[str, str]:
        return {action: route(self.paper_id) for action, route in self.page.routes.items()}

    @property
    def saved(self) -> bool:
        return self.status is not None

    @property
    def status_label(self) -> str:
        """The saved paper's reading status as a person reads it ("Reading"), else empty."""
        return ReadingStatus(self.status).label if self.status else ""

    @property
    def statuses(self) -> list[tuple[str, str, bool]]:
        """(value, label, current) for the status menu; an unsaved paper would be "To read"."""
        current = self.status or ReadingStatus.TO_READ
        return [(value, label, value == current) for value, label in ReadingStatus.choices]

    @property
    def lists(self) -> list[tuple[int, str, bool]]:
        """The list menu's options: (id, label, whether this paper is in it) for every list of
        the member's. Plain tuples: a template unpacks them without attribute lookups, which
        are what a hundred results' blocks spend their time on."""
        return [(pk, label, pk in self.list_ids) for pk, label in self.page.list_labels]

    @property
    def list_names(self) -> list[str]:
        return [each.name for each in self.page.lists if each.pk in self.list_ids]


@dataclass
class TriageState:
    """The member's lists and, per paper of the page, a PaperTriage."""

    lists: list[ReadingList]
    default: ReadingList | None
    papers: dict[int, PaperTriage] = field(default_factory=dict)
    # reverse() per control and result would cost more than the rest of the block.
    routes: dict[str, Callable[[int], str]] = field(
        default_factory=lambda: {a: int_route(f"annotations:triage-{a}") for a in ACTIONS}
    )

    status_choices = ReadingStatus.choices

    @cached_property
    def list_labels(self) -> list[tuple[int, str]]:
        return [
            (each.pk, f"{each.name} (shared)" if each.is_shared else each.name)
            for each in self.lists
        ]

    @property
    def default_name(self) -> str:
        return self.default.name if self.default else DEFAULT_LIST_NAME

    def for_paper(self, paper_id: int) -> PaperTriage:
        return self.papers.get(paper_id) or PaperTriage(self, paper_id)


def triage_state(user, paper_ids: Iterable[int]) -> TriageState:
    """The member's lists and their items for these papers: two queries, whatever their number."""
    ids = list(paper_ids)
    lists = list(
        ReadingList.objects.filter(owner=user).only("pk", "name", "visibility", "is_default")
    )
    default = next((reading_list for reading_list in lists if reading_list.is_default), None)
    state = TriageState(lists=lists, default=default)
    items = ReadingListItem.objects.filter(reading_list__owner=user, paper_id__in=ids).values_list(
        "paper_id", "reading_list_id", "status"
    )
    for paper_id, list_id, status in items:
        paper = state.papers.setdefault(paper_id, PaperTriage(state, paper_id))
        paper.list_ids.add(list_id)
        if default is not None and list_id == default.pk:
            paper.status = status
    return state


def paper_state(lists: list[ReadingList], paper_id: int) -> TriageState:
    """triage_state for one paper, from the member's lists as selectors.lists_with_paper
    reads them for the paper page (each with the paper's item): no query of its own."""
    default = next((reading_list for reading_list in lists if reading_list.is_default), None)
    state = TriageState(lists=lists, default=default)
    paper = state.papers[paper_id] = PaperTriage(state, paper_id)
    for reading_list in lists:
        if reading_list.paper_item_id is not None:  # type: ignore[attr-defined]
            paper.list_ids.add(reading_list.pk)
            if reading_list is default:
                paper.status = reading_list.paper_item_status  # type: ignore[attr-defined]
    return state


def attach_triage_state(user, papers: Iterable[Paper]) -> TriageState:
    """triage_state for these papers, each given its own as `paper.triage` (what
    annotations/_triage.html reads)."""
    papers = list(papers)
    state = triage_state(user, [paper.pk for paper in papers])
    for paper in papers:
        # Paper declares only the attributes the catalogue adds; papers never import annotations.
        paper.triage = state.for_paper(paper.pk)  # type: ignore[attr-defined]
    return state


@transaction.atomic
def default_list(owner) -> ReadingList:
    """The owner's default list; without one, their list called "Saved" becomes it, or a new
    private "Saved" list is made for it."""
    current = ReadingList.objects.filter(owner=owner, is_default=True).first()
    if current is not None:
        return current
    saved = ReadingList.objects.filter(owner=owner, name__iexact=DEFAULT_LIST_NAME).first()
    if saved is None:
        saved = ReadingList(owner=owner, name=DEFAULT_LIST_NAME, visibility=Visibility.PRIVATE)
    saved.is_default = True
    try:
        with transaction.atomic():
            saved.save()
    except IntegrityError:
        # Another request of the same member made the default a moment ago.
        return ReadingList.objects.get(owner=owner, is_default=True)
    return saved


@transaction.atomic
def save_papers(*, owner, papers: list[Paper]) -> tuple[ReadingList, list[Paper]]:
    """Put the papers in the owner's default list; returns it and the papers newly added."""
    reading_list = default_list(owner)
    return reading_list, services.add_papers_to_list(reading_list=reading_list, papers=papers)


@transaction.atomic
def unsave_paper(*, owner, paper: Paper) -> ReadingList | None:
    """Take the paper out of the owner's default list; the list, or None if it was not there."""
    item = (
        ReadingListItem.objects.select_related("reading_list")
        .filter(reading_list__owner=owner, reading_list__is_default=True, paper=paper)
        .first()
    )
    if item is None:
        return None
    services.remove_item(item=item)
    return item.reading_list


@transaction.atomic
def set_status(*, owner, papers: list[Paper], status: str) -> ReadingList:
    """Set the reading status of the papers' items in the default list, saving them first."""
    reading_list, _ = save_papers(owner=owner, papers=papers)
    ReadingListItem.objects.filter(reading_list=reading_list, paper__in=papers).update(
        status=status
    )
    return reading_list


@transaction.atomic
def tag_papers(*, user, papers: list[Paper], name: str) -> int:
    """Tag every paper with the lab tag through services.add_lab_tag (its rules, one place);
    papers already tagged are skipped. Returns how many were tagged; a refusal (a clashing
    name) is raised and, the whole being one transaction, nothing is tagged."""
    tagged = 0
    for paper in papers:
        try:
            services.add_lab_tag(user=user, paper=paper, name=name)
        except services.AlreadyThere:
            continue
        tagged += 1
    return tagged
