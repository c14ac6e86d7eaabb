"""Spellings of one tag offered to curators for merging: tags of one kind whose names differ only
by case, a plural or hyphens and spaces ("Diffusion Models" / "Diffusion model",
"Self-Supervised" / "self supervised"; papers.tags.identity.spelling_key, stored as
Tag.spelling_key). The curation queue shows each group with its tags' paper counts; a curator
merges it into its most used spelling (papers.tags.service.merge_tags, the one merge) or
dismisses it (DismissedTagVariant), after which it is not suggested again until a new spelling
joins it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, TypedDict

from django.db import transaction
from django.db.models import Count, Subquery

from papers.choices import TagKind
from papers.models import DismissedTagVariant, Tag
from papers.querysets import shared_spelling_keys
from papers.tags import service as tag_service

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django_stubs_ext import WithAnnotations

    from papers.tags.service import TagMergeResult

# The queue lists this many groups, those with most papers first; the tag list's "spelling
# variants" filter has them all.
SHOWN_SUGGESTIONS = 10


class _Counted(TypedDict):
    paper_count: int


class VariantsRefused(ValueError):
    """Tags that are not spellings of one tag (a hand-made or stale request)."""


@dataclass(frozen=True)
class MergeSuggestion:
    """Tags of one kind spelt alike, the most used first: the one a merge keeps. Each tag
    carries `paper_count`."""

    tags: list[WithAnnotations[Tag, _Counted]]

    @property
    def target(self) -> Tag:
        return self.tags[0]

    @property
    def others(self) -> Sequence[Tag]:
        return self.tags[1:]

    @property
    def papers(self) -> int:
        return sum(tag.paper_count for tag in self.tags)


@dataclass(frozen=True)
class Suggestions:
    shown: list[MergeSuggestion]
    total: int  # groups to look at, shown or not


def _pairs(keys: Sequence[str]) -> set[tuple[str, str]]:
    return {(a, b) for a, b in combinations(sorted(set(keys)), 2)}


def _most_used_first(
    tags: list[WithAnnotations[Tag, _Counted]],
) -> list[WithAnnotations[Tag, _Counted]]:
    # As the tag admin's merge actions choose: most papers, then the shorter name.
    return sorted(tags, key=lambda tag: (-tag.paper_count, len(tag.name), tag.name, tag.pk))


def merge_suggestions(limit: int = SHOWN_SUGGESTIONS) -> Suggestions:
    """The groups of spelling variants no curator dismissed, most papers first. Two
    queries: the tags whose spelling key another tag of their kind shares (a GROUP BY on the
    (kind, spelling_key) index as a subquery), with their paper counts; the dismissed pairs."""
    tags = (
        Tag.objects.exclude(kind=TagKind.DECISION)
        .filter(spelling_key__in=Subquery(shared_spelling_keys()))
        .annotate(paper_count=Count("paper_tags"))  # a join: only these few tags are grouped
        .order_by()
    )
    groups: dict[tuple[str, str], list[WithAnnotations[Tag, _Counted]]] = {}
    for tag in tags:
        groups.setdefault((tag.kind, tag.spelling_key), []).append(tag)
    dismissed = set(DismissedTagVariant.objects.values_list("kind", "key", "other_key"))
    suggestions = [
        MergeSuggestion(_most_used_first(group))
        for (kind, _), group in groups.items()
        if len(group) > 1
        and any((kind, *pair) not in dismissed for pair in _pairs([t.key for t in group]))
    ]
    suggestions.sort(key=lambda s: (-s.papers, s.target.kind, s.target.spelling_key))
    return Suggestions(shown=suggestions[:limit], total=len(suggestions))


def _variants(tag_ids: Sequence[int]) -> list[Tag]:
    """The tags `tag_ids` name, refused unless they are two or more spellings of one tag of
    one kind (not a decision: reviews set those by name)."""
    tags = list(Tag.objects.filter(pk__in=tag_ids).select_for_update())
    if len(tags) < 2 or len(tags) != len(set(tag_ids)):
        raise VariantsRefused("These tags are no longer there to merge: reload the page.")
    if len({(tag.kind, tag.spelling_key) for tag in tags}) > 1 or tags[0].kind == TagKind.DECISION:
        raise VariantsRefused("These tags are not spellings of one tag.")
    return tags


@transaction.atomic
def merge_variants(*, target_id: int, other_ids: Sequence[int]) -> TagMergeResult:
    """Merge the spellings `other_ids` into `target_id` (the one the curator was shown as the
    most used) through the tag service."""
    tags = {tag.pk: tag for tag in _variants([target_id, *other_ids])}
    return tag_service.merge_tags(
        target=tags[target_id], others=[tags[pk] for pk in other_ids if pk != target_id]
    )


@transaction.atomic
def dismiss_variants(*, tag_ids: Sequence[int], user: User | None) -> list[Tag]:
    """Record that the tags `tag_ids` are not to be merged: each pair of their keys (a pair
    dismissed before stays as it was). Returns the tags."""
    tags = _variants(tag_ids)
    kind = tags[0].kind
    rows = [
        DismissedTagVariant(kind=kind, key=a, other_key=b, dismissed_by=user)
        for a, b in sorted(_pairs([tag.key for tag in tags]))
    ]
    DismissedTagVariant.objects.bulk_create(rows, ignore_conflicts=True)
    return tags
