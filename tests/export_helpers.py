"""What the export tests share: a track of papers to export, and its export's address."""

from __future__ import annotations

from django.urls import reverse

from papers.models import Tag, TagKind
from tests.factories import make_paper, make_tag


def poster_track(papers: int, **paper_fields) -> Tag:
    """A track tag, "Poster", on `papers` papers."""
    tag = make_tag("Poster", TagKind.TRACK)
    for n in range(papers):
        make_paper(f"Paper {n}", tags=[(tag.name, tag.kind)], **paper_fields)
    return tag


def tag_export(tag: Tag, extension: str = "json") -> str:
    return reverse("annotations:tag-export", args=[tag.kind, tag.slug, extension])
