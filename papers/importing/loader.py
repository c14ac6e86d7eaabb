"""Writing validated records to the database in batches, a fixed handful of queries per batch.

Per batch: papers by forum id, papers by abstract fingerprint, the current authors and imported
tags of matched papers whose content hash changed, authors by normalised name, then bulk
creates/updates (Django splits a bulk statement further only where the backend limits the
number of parameters). Every `__in` lookup takes at most IN_CHUNK values, so a batch whose
records bring thousands of authors or venues costs a few more queries, never one statement
past SQLite's limits. Nothing is queried per record.

Matching: a record with a forum id matches the paper with that id; otherwise (or when no paper
has it) it matches by abstract fingerprint, but a record with a forum id only ever takes a
fingerprint match that has no forum id yet, so two papers with different forum ids are never
merged. Merging only fills in and replaces with non-empty incoming values: a missing field never
blanks a stored one, imported tags are only added, and fields in curator_edited_fields are
never overwritten (a differing incoming value is reported as a conflict). An abstract whose
fingerprint equals the stored one counts as unchanged, so two sources that differ only in
whitespace do not flip the text back and forth.
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from papers.importing.bulk_rows import insert_rows
from papers.importing.records import PaperRecord
from papers.importing.report import Conflict, Report
from papers.importing.tags import classify_tags, topic_tags
from papers.models import (
    Author,
    Authorship,
    ImportRun,
    MergedPaper,
    Paper,
    PaperTag,
    SearchChange,
    Tag,
    TagKind,
)
from papers.text import (
    abstract_fingerprint,
    normalize_author_name,
    normalize_tag_name,
    tag_key,
    tag_slug,
)

BATCH_SIZE = 1000
# Values per `__in` lookup: below SQLite's 999 bound parameters (Django's own figure for it),
# whatever the batch size or the number of authors and tags a batch brings.
IN_CHUNK = 500
UNTITLED_REASON = "Imported without a title"
IMPORTED_KINDS = (TagKind.VENUE, TagKind.TRACK, TagKind.KEYWORD, TagKind.AREA)
SCALAR_FIELDS = ("title", "forum_id", "forum_url", "pdf_url")
# Paper fields the search index holds (with the authors and tags): changing one is recorded.
INDEXED_FIELDS = frozenset({"title", "abstract"})


def record_hash(record: PaperRecord, tags: list[tuple[str, str]]) -> str:
    """Hash of the normalised record: equal hashes mean the same import input."""
    payload = [
        record.title,
        record.forum_id,
        record.forum_url,
        record.pdf_url,
        record.authors,
        sorted([kind, tag_key(name)] for kind, name in tags),
        record.abstract,
    ]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()


@dataclass
class _Target:
    """A paper some record in the batch maps to, with the state merging needs."""

    paper: Paper
    is_new: bool
    # (normalized_name, display name) in order; None until loaded for an existing paper.
    authors: list[tuple[str, str]] | None = None
    tag_keys: set[tuple[str, str]] | None = None
    new_tags: list[tuple[str, str]] = field(default_factory=list)
    changed: set[str] = field(default_factory=set)
    authors_changed: bool = False


@dataclass
class _Match:
    record: PaperRecord
    fingerprint: str
    digest: str
    target: _Target
    created: bool
    tags: list[tuple[str, str]]
    # The record gave a forum id to a paper that had none (matched by abstract).
    claimed: bool = False


class _AuthorRow(NamedTuple):
    pk: int
    name: str


class Loader:
    def __init__(self, report: Report, import_run: ImportRun, *, batch_size: int = BATCH_SIZE):
        self.report = report
        # Papers this load creates or changes point to it; the caller completes it.
        self.import_run = import_run
        self.batch_size = batch_size
        self.tags: dict[tuple[str, str], Tag] = {}
        # Papers created or changed: recorded for the search index once, at the end.
        self.changed_paper_ids: set[int] = set()
        # Most catalogues never merged a paper: their imports skip those lookups.
        self.any_merged = MergedPaper.objects.exists()

    def load(
        self, records: Sequence[PaperRecord], progress: Callable[[int, int], None] | None = None
    ) -> None:
        done = 0
        fingerprints = [abstract_fingerprint(record.abstract) for record in records]
        for batch, batch_fingerprints in _batches(records, fingerprints, self.batch_size):
            self._load_batch(batch, batch_fingerprints)
            done += len(batch)
            if progress:
                progress(done, len(records))
        # One record for the whole import, in its transaction and just before it commits:
        # recording locks the change counter until commit, so recording per batch would make
        # every other recording writer (a member adding a lab tag) wait for the whole import.
        SearchChange.objects.record(self.changed_paper_ids)

    # -- matching ---------------------------------------------------------------------------

    def _load_batch(self, batch: Sequence[PaperRecord], fingerprints: Sequence[str]) -> None:
        forum_ids = {record.forum_id for record in batch if record.forum_id}
        found: dict[int, Paper] = {}
        for chunk in _chunks(forum_ids):  # query: papers by forum id
            found.update((p.pk, p) for p in Paper.objects.filter(forum_id__in=chunk))
        by_forum = {p.forum_id: p for p in found.values()}
        merged_forum = self._merged_into("forum_id", forum_ids - by_forum.keys())
        pairs = zip(batch, fingerprints, strict=True)
        known = by_forum.keys() | merged_forum.keys()
        wanted = {fp for record, fp in pairs if record.forum_id not in known}
        for chunk in _chunks(wanted):  # query: papers by abstract fingerprint
            for paper in Paper.objects.filter(abstract_fingerprint__in=chunk):
                found.setdefault(paper.pk, paper)
        stored_fps = {p.abstract_fingerprint for p in found.values()}
        merged_fp = self._merged_into("abstract_fingerprint", wanted - stored_fps)
        kept_ids = {*merged_forum.values(), *merged_fp.values()} - found.keys()
        for chunk in _chunks(kept_ids):  # query: papers that merged papers were folded into
            found.update((p.pk, p) for p in Paper.objects.filter(pk__in=chunk))
        targets = {pk: _Target(paper, is_new=False) for pk, paper in sorted(found.items())}
        by_forum_target = {t.paper.forum_id: t for t in targets.values() if t.paper.forum_id}
        by_fp_target: dict[str, list[_Target]] = {}
        for target in targets.values():
            by_fp_target.setdefault(target.paper.abstract_fingerprint, []).append(target)
        # A merged paper's forum id or abstract finds the paper it was merged into.
        for forum_id, kept_id in merged_forum.items():
            by_forum_target[forum_id] = targets[kept_id]
        for fp, kept_id in merged_fp.items():
            by_fp_target.setdefault(fp, []).append(targets[kept_id])

        matches: list[_Match] = []
        for record, fp in zip(batch, fingerprints, strict=True):
            target = self._match(record, fp, by_forum_target, by_fp_target)
            created = target is None
            if created:
                target = _Target(_new_paper(record, fp), is_new=True, authors=[], tag_keys=set())
                by_fp_target.setdefault(fp, []).append(target)
            if record.forum_id:
                by_forum_target[record.forum_id] = target
            tags = classify_tags(record.tags) + topic_tags(record.keywords, record.primary_area)
            match = _Match(record, fp, record_hash(record, tags), target, created, tags)
            matches.append(match)
            if record.forum_id and not target.paper.forum_id:
                # Claim the forum id now so a later record with another id cannot take this paper.
                target.paper.forum_id = record.forum_id
                target.changed.add("forum_id")
                match.claimed = not created

        self._load_current_state(matches)
        for match in matches:
            self._merge(match)
        self._write([m.target for m in matches])

    def _merged_into(self, field_name: str, values: set[str]) -> dict[str, int]:
        """Which kept paper each of these forum ids or fingerprints of merged papers means."""
        into: dict[str, int] = {}
        if not self.any_merged:
            return into
        for chunk in _chunks(sorted(values - {""})):  # query: merged papers
            rows = MergedPaper.objects.filter(**{f"{field_name}__in": chunk})
            # The latest merge wins should one value have been merged into two papers.
            for value, kept_id in rows.order_by("merged_at", "pk").values_list(
                field_name, "into_id"
            ):
                into[value] = kept_id
        return into

    @staticmethod
    def _match(record, fp, by_forum, by_fp) -> _Target | None:
        if record.forum_id and record.forum_id in by_forum:
            return by_forum[record.forum_id]
        for candidate in by_fp.get(fp, []):
            if not record.forum_id or not candidate.paper.forum_id:
                return candidate
        return None

    def _needs_full_compare(self, match: _Match) -> bool:
        paper = match.target.paper
        return bool(
            match.target.is_new
            or match.target.changed
            or paper.import_hash != match.digest
            or paper.curator_edited_fields
        )

    def _load_current_state(self, matches: list[_Match]) -> None:
        pks = {
            m.target.paper.pk
            for m in matches
            if not m.target.is_new and m.target.authors is None and self._needs_full_compare(m)
        }
        if not pks:
            return
        by_pk = {m.target.paper.pk: m.target for m in matches if not m.target.is_new}
        for pk in pks:
            by_pk[pk].authors, by_pk[pk].tag_keys = [], set()
        for chunk in _chunks(sorted(pks)):
            rows = (  # query: current authors in order
                Authorship.objects.filter(paper_id__in=chunk)
                .order_by("paper_id", "position")
                .values_list("paper_id", "author__normalized_name", "author__name")
            )
            for paper_id, key, name in rows:
                by_pk[paper_id].authors.append((key, name))
            # query: current tags, imported kinds kept below. Filtering on the tag's kind in SQL
            # lets SQLite start from every venue tag and probe each paper for it: with 10,000
            # venues that is millions of index probes per chunk instead of a few per paper.
            rows = (
                PaperTag.objects.filter(paper_id__in=chunk)
                .order_by()
                .values_list("paper_id", "tag__kind", "tag__key")
            )
            for paper_id, kind, key in rows:
                if kind in IMPORTED_KINDS:
                    by_pk[paper_id].tag_keys.add((kind, key))

    # -- merging ----------------------------------------------------------------------------

    def _merge(self, match: _Match) -> None:
        record, target = match.record, match.target
        counts = self.report.for_file(record.source)
        if not self._needs_full_compare(match):
            counts.unchanged += 1
            return
        paper = target.paper
        curated = set(paper.curator_edited_fields or [])
        changes = ["forum_id"] if match.claimed else []

        def conflict(name: str, current: str, incoming: str) -> None:
            counts.conflicts.append(
                Conflict(record.source, record.line, _describe(paper), name, current, incoming)
            )

        for name in SCALAR_FIELDS:
            incoming, current = getattr(record, name), getattr(paper, name)
            if not incoming or incoming == current:
                continue
            if name in curated:
                conflict(name, current, incoming)
            elif name == "forum_url" and record.forum_id and record.forum_id != paper.forum_id:
                continue  # a merged paper's record: its forum page is not the kept paper's
            elif name != "forum_id":  # a stored forum id is identity: matching never changes it
                setattr(paper, name, incoming)
                changes.append(name)
        if match.fingerprint != paper.abstract_fingerprint:
            if "abstract" in curated:
                conflict("abstract", paper.abstract, record.abstract)
            else:
                paper.abstract = record.abstract
                paper.abstract_fingerprint = match.fingerprint
                changes += ["abstract", "abstract_fingerprint"]

        incoming_authors = _dedupe_authors(record.authors)
        if incoming_authors and [k for k, _ in incoming_authors] != [k for k, _ in target.authors]:
            if "authors" in curated:
                current_names = ", ".join(name for _, name in target.authors)
                conflict("authors", current_names, ", ".join(n for _, n in incoming_authors))
            else:
                target.authors = incoming_authors
                target.authors_changed = True
                changes.append("authors")

        missing = []
        for kind, name in match.tags:
            if (kind, tag_key(name)) not in target.tag_keys:
                missing.append((kind, name))
                target.tag_keys.add((kind, tag_key(name)))
        if missing and "tags" in curated:
            conflict("tags", "", ", ".join(name for _, name in missing))
        elif missing:
            target.new_tags.extend(missing)
            changes.append("tags")

        if paper.title and paper.needs_curation and paper.curation_reason == UNTITLED_REASON:
            paper.needs_curation = False
            paper.curation_reason = ""
            changes += ["needs_curation", "curation_reason"]

        if match.created or changes:
            paper.import_hash = match.digest
            changes.append("import_hash")
        target.changed.update(c for c in changes if c not in ("authors", "tags"))
        if match.created:
            counts.created += 1
        elif changes:
            counts.updated += 1
        else:
            counts.unchanged += 1

    # -- writing ----------------------------------------------------------------------------

    def _write(self, targets: list[_Target]) -> None:
        unique = list({id(t): t for t in targets}.values())
        authors = self._authors_for([t for t in unique if t.authors_changed])
        for target in unique:
            if target.authors_changed:
                names = [authors[key].name for key, _ in target.authors]
                target.paper.author_names = ", ".join(names)
                target.changed.add("author_names")

        new = [t for t in unique if t.is_new]
        for target in new:
            target.paper.created_by_import = target.paper.changed_by_import = self.import_run
        if new:  # query: insert papers (ids come back on SQLite and PostgreSQL)
            Paper.objects.bulk_create([t.paper for t in new])
        # A paper whose authors or tags changed has a new import_hash, so it is in here too.
        changed = [t for t in unique if not t.is_new and t.changed]
        if changed:
            now = timezone.now()
            fields = {"updated_at", "changed_by_import"}
            for target in changed:
                target.paper.updated_at = now
                target.paper.changed_by_import = self.import_run
                fields |= target.changed
            # query: update changed papers
            Paper.objects.bulk_update([t.paper for t in changed], sorted(fields))

        replaced = [t.paper.pk for t in unique if t.authors_changed and not t.is_new]
        for chunk in _chunks(replaced):  # query: drop the author lists being replaced
            Authorship.objects.filter(paper_id__in=chunk).delete()
        authorships = [
            (t.paper.pk, authors[key].pk, position)
            for t in unique
            if t.authors_changed
            for position, (key, _) in enumerate(t.authors)
        ]
        # query: insert authorships (COPY on PostgreSQL)
        insert_rows(Authorship, ("paper", "author", "position"), authorships)

        tagged = [t for t in unique if t.new_tags]
        tags = self._tags_for({(kind, name) for t in tagged for kind, name in t.new_tags})
        now = connection.ops.adapt_datetimefield_value(timezone.now())
        links = [
            (t.paper.pk, tags[(kind, tag_key(name))].pk, now)
            for t in tagged
            for kind, name in t.new_tags
        ]
        # query: insert paper-tag links (COPY on PostgreSQL); added_by is null for imports
        insert_rows(PaperTag, ("paper", "tag", "created_at"), links)
        self.changed_paper_ids.update(
            t.paper.pk
            for t in unique
            if t.is_new or t.authors_changed or t.new_tags or t.changed & INDEXED_FIELDS
        )
        for target in unique:
            target.changed.clear()
            target.new_tags = []
            target.authors_changed = False

    def _authors_for(self, targets: list[_Target]) -> dict[str, _AuthorRow]:
        """Each wanted author's (id, stored name) by normalised name, created when missing.
        Read as values: most authors of a large import already exist after its first batches."""
        wanted: dict[str, str] = {}
        for target in targets:
            for key, name in target.authors:
                wanted.setdefault(key, name)
        if not wanted:
            return {}
        authors: dict[str, _AuthorRow] = {}
        for chunk in _chunks(wanted):  # query: existing authors by normalised name
            rows = Author.objects.filter(normalized_name__in=chunk).values_list(
                "normalized_name", "pk", "name"
            )
            authors.update((key, _AuthorRow(pk, name)) for key, pk, name in rows)
        missing = [
            Author(name=name, normalized_name=key)
            for key, name in wanted.items()
            if key not in authors
        ]
        if missing:  # query: insert new authors
            created = Author.objects.bulk_create(missing)
            authors.update((a.normalized_name, _AuthorRow(a.pk, a.name)) for a in created)
        return authors

    def _tags_for(self, wanted: set[tuple[str, str]]) -> dict[tuple[str, str], Tag]:
        """Imported tags by (kind, key), created when missing; cached for the whole import."""
        needed = {(kind, tag_key(name)): name for kind, name in wanted}
        unknown = {ident: name for ident, name in needed.items() if ident not in self.tags}
        # One OR term per kind, each a bounded `key__in`: a long OR of (kind, key) pairs is an
        # expression SQLite refuses ("Expression tree is too large") at 1,000 venues.
        for tags in _by_kind_in_chunks(Tag, "key", sorted(unknown)):  # query: existing tags
            self.tags.update(((t.kind, t.key), t) for t in tags)
        self._create_tags({i: n for i, n in unknown.items() if i not in self.tags})
        return {ident: self.tags[ident] for ident in needed}

    def _create_tags(self, missing: dict[tuple[str, str], str]) -> None:
        if not missing:
            return
        slugs = _free_slugs(missing)
        new = [
            Tag(name=normalize_tag_name(name), key=key, slug=slugs[(kind, key)], kind=kind)
            for (kind, key), name in sorted(missing.items())
        ]
        # query: insert tags
        self.tags.update(((t.kind, t.key), t) for t in Tag.objects.bulk_create(new))


def _batches(
    records: Sequence[PaperRecord], fingerprints: Sequence[str], size: int
) -> Iterator[tuple[Sequence[PaperRecord], Sequence[str]]]:
    """Consecutive batches of at most `size` records (with their abstracts' fingerprints), a
    new one started wherever a record names a paper (by forum id or abstract) that its batch
    already holds: the later record then finds the paper as the earlier one left it, exactly
    as in a later import."""
    start = 0
    seen: set[str] = set()
    for position, (record, fingerprint) in enumerate(zip(records, fingerprints, strict=True)):
        keys = {"fp:" + fingerprint}
        if record.forum_id:
            keys.add("id:" + record.forum_id)
        if position - start == size or not seen.isdisjoint(keys):
            yield records[start:position], fingerprints[start:position]
            start, seen = position, set()
        seen |= keys
    if start < len(records):
        yield records[start:], fingerprints[start:]


def _chunks(values: Iterable, size: int = IN_CHUNK) -> Iterator[list]:
    values = list(values)
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _by_kind_in_chunks(model, field_name: str, pairs: list[tuple[str, str]]) -> Iterator:
    """Rows of `model` matching (kind, value) pairs, IN_CHUNK pairs per query."""
    for chunk in _chunks(pairs):
        by_kind: dict[str, list[str]] = {}
        for kind, value in chunk:
            by_kind.setdefault(kind, []).append(value)
        condition = Q()
        for kind, values in by_kind.items():
            condition |= Q(kind=kind, **{f"{field_name}__in": values})
        yield model.objects.filter(condition)


def _free_slugs(missing: dict[tuple[str, str], str]) -> dict[tuple[str, str], str]:
    """A slug for each new tag, unique within its kind among stored and new tags.

    Different keys can share a slug ("ICLR 2024" / "ICLR 2024!"); the later ones, in key order,
    get "-2", "-3", ... Candidates are checked against the database in bulk, a window per
    base slug that doubles each round, so many tags on one base, or a stored "iclr-2024-2",
    cost a few queries rather than one per tag or a quadratic search.
    """
    pending: dict[tuple[str, str], deque] = {}
    for (kind, key), name in sorted(missing.items()):
        pending.setdefault((kind, tag_slug(name)), deque()).append((kind, key))
    result: dict[tuple[str, str], str] = {}
    used: set[tuple[str, str]] = set()
    next_number = dict.fromkeys(pending, 1)
    window = 1
    while pending:
        proposals: dict[tuple[str, str], tuple[str, str]] = {}
        for group, members in pending.items():
            kind, base = group
            first = next_number[group]
            next_number[group] = first + max(len(members), window)
            for number in range(first, next_number[group]):
                slug = base if number == 1 else f"{base}-{number}"
                if (kind, slug) not in used:
                    proposals.setdefault((kind, slug), group)
        taken = set()  # query: slugs already in use
        for rows in _by_kind_in_chunks(Tag, "slug", list(proposals)):
            taken.update(rows.values_list("kind", "slug"))
        for candidate, group in proposals.items():
            members = pending[group]
            if members and candidate not in taken:
                result[members.popleft()] = candidate[1]
                used.add(candidate)
        pending = {group: members for group, members in pending.items() if members}
        window *= 2
    return result


def _new_paper(record: PaperRecord, fingerprint: str) -> Paper:
    paper = Paper(
        title=record.title,
        abstract=record.abstract,
        forum_url=record.forum_url,
        pdf_url=record.pdf_url,
        abstract_fingerprint=fingerprint,
    )
    if not record.title:
        paper.needs_curation = True
        paper.curation_reason = UNTITLED_REASON
    return paper


def _dedupe_authors(names: list[str]) -> list[tuple[str, str]]:
    """(normalized, display) in order; a second spelling of the same person is dropped."""
    result, seen = [], set()
    for name in names:
        key = normalize_author_name(name)
        if key and key not in seen:
            seen.add(key)
            result.append((key, name.strip()))
    return result


def _describe(paper: Paper) -> str:
    label = f'"{paper.display_title[:60]}"'
    return f"{label} ({paper.forum_id})" if paper.forum_id else label
