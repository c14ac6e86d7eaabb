"""A member's own notes inside an export: the BibTeX `note` and RIS `N1` fields, when the
export URL asks for them with `notes=mine` (annotations.export_sources.with_member_notes).

Another app that keeps a member's annotations of a paper (highlights: quotes with page
numbers) adds them by registering a provider from its AppConfig.ready(), so this module never
imports it: annotations stays below the apps built on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from annotations.export_data import Row
from annotations.models import Note

# (member, paper ids) -> paper id -> pieces of text, in the order they are to be read.
NoteProvider = Callable[[object, Sequence[int]], dict[int, list[str]]]

# Formats with a field for them: BibTeX's `note`, RIS's `N1`.
FORMATS_WITH_NOTES = ("bib", "ris")
PARAMETER, VALUE = "notes", "mine"

_providers: list[NoteProvider] = []


def register(provider: NoteProvider) -> None:
    if provider not in _providers:
        _providers.append(provider)


def requested(params, user, extension: str) -> bool:
    """Whether an export URL's parameters ask for the member's notes, and they can be given."""
    return (
        params.get(PARAMETER) == VALUE and user.is_authenticated and extension in FORMATS_WITH_NOTES
    )


def notes_text(user, paper_ids: Sequence[int]) -> dict[int, str]:
    """Paper id -> the member's own notes on it (oldest first), then what each provider adds,
    as plain text: one query per provider and one for the notes."""
    pieces: dict[int, list[str]] = {}
    notes = (
        Note.objects.filter(owner=user, paper_id__in=paper_ids)
        .order_by("created_at", "pk")
        .values_list("paper_id", "body")
    )
    for paper_id, body in notes:
        pieces.setdefault(paper_id, []).append(body.strip())
    for provider in _providers:
        for paper_id, texts in provider(user, paper_ids).items():
            pieces.setdefault(paper_id, []).extend(texts)
    return {paper_id: "\n\n".join(texts) for paper_id, texts in pieces.items()}


def with_notes(user, batches: Iterable[list[Row]]) -> Iterator[list[Row]]:
    """The batches with each paper's `note` filled in for `user`."""
    for batch in batches:
        texts = notes_text(user, [row.paper.pk for row in batch])
        for row in batch:
            row.paper.note = texts.get(row.paper.pk, "")
        yield batch
