"""Plain factory functions: each makes one valid object, keyword arguments override defaults."""

from __future__ import annotations

import itertools

from django.contrib.auth import get_user_model

from papers.models import Author, Authorship, Paper, PaperTag, Tag, TagKind
from papers.tags.identity import tag_key
from papers.text import abstract_fingerprint, normalize_author_name

_counter = itertools.count(1)
PASSWORD = "correct-horse-battery-staple"


def make_user(username: str | None = None, **fields):
    username = username or f"user{next(_counter)}"
    fields.setdefault("email", f"{username}@example.org")
    return get_user_model().objects.create_user(username=username, password=PASSWORD, **fields)


def make_tag(name: str = "ICLR 2024", kind: str = TagKind.VENUE) -> Tag:
    # The catalogue's own rule (papers.text.tag_key), as the importer and the forms use it.
    tag, _ = Tag.objects.get_or_create(kind=kind, key=tag_key(name), defaults={"name": name})
    return tag


def make_paper(
    title: str | None = None,
    *,
    abstract: str | None = None,
    authors: list[str | Author] = (),
    tags: list[tuple[str, str]] = (),
    **fields,
) -> Paper:
    n = next(_counter)
    title = f"Paper number {n}" if title is None else title
    abstract = f"An abstract about topic {n}." if abstract is None else abstract
    fields.setdefault("forum_id", f"forum{n}")
    paper = Paper.objects.create(
        title=title,
        abstract=abstract,
        abstract_fingerprint=abstract_fingerprint(abstract),
        **fields,
    )
    for position, name in enumerate(authors):
        # An Author given as is (two people may share a name); a name is the first author so
        # named, or a new one.
        author = name if isinstance(name, Author) else _author_named(name)
        Authorship.objects.create(paper=paper, author=author, position=position)
    if authors:
        paper.refresh_author_names()
    for name, kind in tags:
        PaperTag.objects.create(paper=paper, tag=make_tag(name, kind))
    return paper


def _author_named(name: str) -> Author:
    named = Author.objects.filter(normalized_name=normalize_author_name(name)).order_by("pk")
    return named.first() or Author.objects.create(name=name)


# Annotations (notes, reading lists, comments, lab tags).


def make_note(owner, paper, body: str = "A thought about this paper."):
    from annotations.models import Note

    return Note.objects.create(owner=owner, paper=paper, body=body)


def make_reading_list(owner, name: str | None = None, *, papers=(), **fields):
    from annotations.models import ReadingList, ReadingListItem

    reading_list = ReadingList.objects.create(
        owner=owner, name=name or f"List {next(_counter)}", **fields
    )
    for position, paper in enumerate(papers):
        ReadingListItem.objects.create(reading_list=reading_list, paper=paper, position=position)
    return reading_list


def make_comment(author, paper, body: str = "Interesting result.", **fields):
    from annotations.models import Comment

    return Comment.objects.create(author=author, paper=paper, body=body, **fields)


def make_lab_tag(paper, name: str = "reinforcement learning", *, added_by=None) -> PaperTag:
    return PaperTag.objects.create(paper=paper, tag=make_tag(name, TagKind.LAB), added_by=added_by)
