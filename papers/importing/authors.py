"""Which author each name of an import's author lists is: by OpenReview profile id, then by
normalised name (papers.importing.loader writes the authorships).

A profile id ("~Jane_Doe1", from OpenReview's content.authorids) finds its author; else its
name finds an author of that name without a profile id, who takes this one (the person the
name was known as before profile ids were kept); else it is a new author. A name without a
profile id finds the author of that name without one, else the oldest of that name. So two
people of one name with different profile ids stay two authors, one person under two
spellings with one profile id is one, and a name-only source (a BibTeX file) still finds the
author an OpenReview fetch made.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from django.db import connection
from django.utils import timezone

from papers.importing.bulk_rows import IN_CHUNK, allocate_ids, chunks, insert_rows
from papers.importing.records import PaperRecord
from papers.models import Author, Authorship
from papers.text import fold_author_name, normalize_author_name


class Person(NamedTuple):
    """An author as a record or a paper names them."""

    key: str  # the normalised name
    name: str  # as written
    profile: str = ""  # the OpenReview profile id, "" when not known
    # Without a profile id, the how-manieth author of this name in the list (0: the first):
    # two people of one name on one paper are two authors ("Xia Li" and "Xia Li").
    nth: int = 0


@dataclass
class AuthorRow:
    """The author a Person is: a stored one, or one the import creates (pk 0 until its id is
    allocated)."""

    pk: int
    name: str
    key: str
    profile: str  # "" when it has none


def people_of(record: PaperRecord) -> list[Person]:
    """The record's authors in order (people_named)."""
    profiles = record.author_ids
    if len(profiles) != len(record.authors):  # validate_record pairs them; a source may not
        profiles = [""] * len(record.authors)
    return people_named(record.authors, profiles)


def people_named(names: list[str], profiles: list[str]) -> list[Person]:
    """The people of an author list, names paired with profile ids ("" for none), in order.
    A second mention of one profile id is dropped (one person); a name listed twice without
    profile ids is two people of one name, each an author of their own (a source lists a
    person once)."""
    result: list[Person] = []
    seen_profiles: set[str] = set()
    unidentified: dict[str, int] = {}  # normalised name -> its mentions without a profile id
    for name, profile in zip(names, profiles, strict=True):
        key = normalize_author_name(name)
        if not key or (profile and profile in seen_profiles):
            continue
        nth = 0
        if profile:
            seen_profiles.add(profile)
        else:
            nth = unidentified.get(key, 0)
            unidentified[key] = nth + 1
        result.append(Person(key, name.strip(), profile, nth))
    return result


def author_list_data(people: list[Person]) -> list[dict[str, str]]:
    """An author list as an import conflict keeps it (ImportConflict.incoming_data): each
    name as written, in order, with its OpenReview profile id when known."""
    data = []
    for person in people:
        entry = {"name": person.name}
        if person.profile:
            entry["profile_id"] = person.profile
        data.append(entry)
    return data


def people_of_data(data: list[dict[str, str]]) -> list[Person]:
    """The people an author list kept by author_list_data names, read as an import reads
    a record's list."""
    return people_named(
        [entry["name"] for entry in data], [entry.get("profile_id", "") for entry in data]
    )


def people_of_paper(paper_id: int) -> list[Person]:
    """A paper's authors in order, as the loader reads them to compare a record's list."""
    rows = (
        Authorship.objects.filter(paper_id=paper_id)
        .order_by("position")
        .values_list("author__normalized_name", "author__name", "author__openreview_id")
    )
    return [Person(key, name, profile or "") for key, name, profile in rows]


def authorship_rows(
    people: list[Person], authors: dict[tuple[str, str, int], AuthorRow]
) -> list[AuthorRow]:
    """The authors of one list in order, from resolve_authors' answer. Two names of a list
    can resolve to one author (a profile id's author is also found by another spelling):
    they are one authorship, the first."""
    rows: dict[int, AuthorRow] = {}
    for person in people:
        row = authors[(person.key, person.profile, person.nth)]
        rows.setdefault(row.pk, row)
    return list(rows.values())


def same_people(incoming: list[Person], current: list[Person]) -> bool:
    """Whether a record's author list names the paper's authors, in order: each by the same
    profile id, or by the same name where the record gives no profile id or the one the
    author has."""
    return len(incoming) == len(current) and all(
        (ours.profile and ours.profile == theirs.profile)
        or (ours.key == theirs.key and ours.profile in ("", theirs.profile))
        for ours, theirs in zip(incoming, current, strict=True)
    )


def only_names_profiles(incoming: list[Person], current: list[Person]) -> bool:
    """Whether a record's author list is the paper's, name for name, and only adds profile ids
    to authors that have none."""
    return len(incoming) == len(current) and all(
        ours.key == theirs.key and (not theirs.profile or ours.profile in ("", theirs.profile))
        for ours, theirs in zip(incoming, current, strict=True)
    )


def resolve_authors(people: Iterable[Person]) -> dict[tuple[str, str, int], AuthorRow]:
    """The author of each (normalised name, profile id) among `people`, by the rules of the
    module's docstring; missing ones are created, and authors found by name take the profile
    id given with it. Read as values, one query per IN_CHUNK profile ids and per IN_CHUNK
    names: most authors of a large import already exist after its first batches."""
    wanted: dict[tuple[str, str, int], str] = {}
    for person in people:
        wanted.setdefault((person.key, person.profile, person.nth), person.name)
    if not wanted:
        return {}
    by_profile: dict[str, AuthorRow] = {}
    for chunk in chunks({profile for _, profile, _ in wanted} - {""}):
        # query: existing authors by profile id
        rows = Author.objects.filter(openreview_id__in=chunk).values_list(
            "pk", "name", "normalized_name", "openreview_id"
        )
        for pk, name, key, profile in rows:
            by_profile[profile or ""] = AuthorRow(pk, name, key, profile or "")
    named: dict[str, list[AuthorRow]] = {}
    names = {key for key, profile, _ in wanted if profile not in by_profile}
    for chunk in chunks(sorted(names)):  # query: existing authors by normalised name
        rows = (
            Author.objects.filter(normalized_name__in=chunk)
            .order_by("pk")
            .values_list("pk", "name", "normalized_name", "openreview_id")
        )
        for pk, name, key, profile in rows:
            named.setdefault(key, []).append(AuthorRow(pk, name, key, profile or ""))
    authors: dict[tuple[str, str, int], AuthorRow] = {}
    claimed: list[AuthorRow] = []
    new: list[AuthorRow] = []
    # The first mention of each name is resolved before a second one: the second person of a
    # name is the second author of that name, whatever order the papers come in.
    for (key, profile, nth), name in sorted(wanted.items(), key=lambda item: item[0][2]):
        found = by_profile.get(profile) if profile else None
        same_name = named.setdefault(key, [])
        if found is None:
            found = _by_name(same_name, profile, nth)
            if found is not None and profile:  # known by name until now
                found.profile = profile
                if found.pk:  # not one this import creates
                    claimed.append(found)
        if found is None:
            found = AuthorRow(0, name, key, profile)
            new.append(found)
            same_name.append(found)
        if profile:
            by_profile[profile] = found
        authors[(key, profile, nth)] = found
    if claimed:  # query: authors known by name take the profile id given with it
        Author.objects.bulk_update(
            [Author(pk=row.pk, openreview_id=row.profile) for row in claimed],
            ["openreview_id"],
            batch_size=IN_CHUNK,
        )
    if new:
        # query: allocate ids, then insert the new authors as rows (COPY on PostgreSQL)
        for row, pk in zip(new, allocate_ids(Author, len(new)), strict=True):
            row.pk = pk
        created = connection.ops.adapt_datetimefield_value(timezone.now())
        insert_rows(
            Author,
            ("id", "name", "normalized_name", "search_name", "openreview_id", "created_at"),
            [
                (
                    row.pk,
                    row.name,
                    row.key,
                    fold_author_name(row.name),
                    row.profile or None,
                    created,
                )
                for row in new
            ],
        )
    return authors


def _by_name(same_name: list[AuthorRow], profile: str, nth: int = 0) -> AuthorRow | None:
    """Of the authors of one name (oldest first), the one a person of that name is: for a
    person with a profile id, the first author without one (an author with another profile id
    is another person); for a person without, the first author without one, else the first;
    for the `nth` other person of that name on one paper, the nth after it (None: a new one)."""
    without_profile = [row for row in same_name if not row.profile]
    if profile:
        return without_profile[0] if without_profile else None
    candidates = without_profile or same_name
    return candidates[nth] if len(candidates) > nth else None
