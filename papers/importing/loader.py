"""Writing validated records to the database in batches, a fixed handful of queries per batch.

Over 600 lines: the batch writer is one transaction's sequence of bulk reads and writes whose
steps hand each other their maps; split, they would pass that state across modules.

Per batch: what the records' sources supplied last time (records unchanged since stop there),
papers by each identity the rest carry, the current authors and imported tags of the papers
found, authors by OpenReview profile id and by normalised name (papers.importing.authors), then
the writes: new authors and papers as rows with ids allocated first, changed papers (and
authors given a profile id) by bulk update, authorships, paper tags and source records as rows
(COPY on PostgreSQL). Every `__in` lookup takes at most IN_CHUNK values, so a batch whose
records bring thousands of authors or venues costs a few more queries, never one statement
past SQLite's limits. Nothing is queried per record.

Matching: by forum id, then arXiv id, then DOI, then abstract fingerprint. A forum id match is
always the paper; any other match needs the record's and the paper's forum ids and arXiv ids
not to differ, so two papers with different forum ids (or arXiv ids) are never merged; a match
by abstract alone also needs their DOIs not to differ (an arXiv DOI aside), since exporters give
many papers one stock abstract ("No abstract available."), and the record to bring no forum
id, arXiv id or DOI the paper lacks, unless the paper is only an abstract: anyone can copy an
abstract into a record of their own (matching._known_by_abstract). Such a record becomes a new
paper, flagged as a possible duplicate of the other (`abstract_twins`). A paper
takes the forum id or arXiv id of a record that matched it another way, unless another paper
holds it.

Merging is three-way, per source (papers.importing.sources): a field changes only when the
record's source changed it since that source's last import, so re-importing source A after
source B never brings A's old values back over B's. A record its source already supplied,
unchanged, costs one lookup and no write. A missing field never blanks a stored one, imported
tags are only added, and fields in curator_edited_fields are never overwritten. Both a
differing value for a curator's field and a value that replaces another source's are listed
once, in the report and as an ImportConflict for the curators; a newer conflict about a field
closes the older open ones (papers.conflicts.supersede_older_conflicts). An abstract whose
fingerprint equals the stored one counts as unchanged, so two sources that differ only in
whitespace do not disagree; nor do two that write one value two ways
(papers.importing.equivalence: math as `$Ω$` or `$\\Omega$`, one OpenReview PDF as `/pdf?id=X`
or `/pdf/<hash>.pdf`).

The stages that need no batch state live beside it: which paper each record is
(`matching.py`), the reviews stored after the papers (`review_rows.py`), the authors each name
is (`authors.py`), the rows written (`bulk_rows.py`); the tags a record names are found and
created by papers.tags.service.

Just over 600 lines: the batch's reads, the three-way merge of each record and the writes
share the batch's state (Loader); the stages that need none of it have their own modules
(matching.py, review_rows.py, bulk_rows.py, equivalence.py, cleaning.py).

Over 600 lines: one batch pipeline whose steps share the batch's reads (the state passed
between them); what a step needs no batch state for has its own module (matching.py,
review_rows.py, bulk_rows.py, authors.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property

from django.db import connection
from django.utils import timezone

from papers.conflicts import supersede_older_conflicts
from papers.duplicate_keys import KEY_COLUMNS, set_duplicate_keys
from papers.importing.authors import (
    AuthorRow,
    Person,
    author_list_data,
    authorship_rows,
    only_names_profiles,
    resolve_authors,
    same_people,
)
from papers.importing.bulk_rows import (
    PlannerStatistics,
    by_kind_in_chunks,
    chunks,
    insert_objects,
    insert_rows,
)
from papers.importing.equivalence import equivalent
from papers.importing.matching import (
    CLAIMED_IDENTITIES,
    IDENTITIES,
    MERGED_IDENTITIES,
    Base,
    Match,
    PaperIndex,
    Target,
    batches,
    match_for,
    papers_sharing_an_abstract,
)
from papers.importing.orcids import fill_author_orcids, named_orcids
from papers.importing.publication_types import merged_type
from papers.importing.records import PaperRecord
from papers.importing.report import Conflict, Report
from papers.importing.sources import (
    RELEASED,
    SCALAR_FIELDS,
    abstract_hash,
    authors_hash,
    source_name,
    value_hash,
    year_hash,
)
from papers.importing.tags import superseded_tags
from papers.models import (
    Author,
    Authorship,
    ImportConflict,
    ImportRun,
    MergedPaper,
    Paper,
    PaperTag,
    SearchChange,
    SourceRecord,
    Tag,
    TagKind,
)
from papers.querysets import identifier_in
from papers.search.document_fields import PAPER_FIELDS
from papers.signals import abstracts_changed
from papers.tags import service as tag_service
from papers.tags.identity import tag_key

BATCH_SIZE = 1000
UNTITLED_REASON = "Imported without a title"
IMPORTED_KINDS = (TagKind.VENUE, TagKind.TRACK, TagKind.KEYWORD, TagKind.AREA)
# Paper fields the search index holds (with the authors and tags): changing one is recorded.
INDEXED_FIELDS = PAPER_FIELDS


class Loader:
    def __init__(
        self,
        report: Report,
        import_run: ImportRun,
        *,
        batch_size: int = BATCH_SIZE,
        source: str | None = None,
    ):
        self.report = report
        # The source every record is remembered under; None: each file's own name.
        self.source = source
        # Papers this load creates or changes point to it; the caller completes it.
        self.import_run = import_run
        self.batch_size = batch_size
        self.tags: dict[tuple[str, str], Tag] = {}
        # Papers created or changed: recorded for the search index once, at the end.
        self.changed_paper_ids: set[int] = set()
        # Existing papers whose abstract changed: told to papers.signals.abstracts_changed.
        self.abstract_changed_ids: set[int] = set()
        # Most catalogues never merged a paper: their imports skip those lookups.
        self.any_merged = MergedPaper.objects.exists()
        # New papers that share an abstract with a paper their identifiers kept them from
        # (matching._known_by_abstract), new id -> that paper's: possible duplicates.
        self.abstract_twins: dict[int, int] = {}
        # Listed for the curators as ImportConflicts, written with the batch that found them.
        self.conflicts: list[tuple[Paper, Conflict]] = []
        # The tables each batch looks rows up in by identity, name and source key.
        self.statistics = PlannerStatistics(Paper, SourceRecord, Author)

    def load(
        self, records: Iterable[PaperRecord], progress: Callable[[PaperRecord], None] | None = None
    ) -> None:
        """Load the records batch by batch as they come; `progress` is called with the last
        record of each batch."""
        for batch, fingerprints in batches(records, self.batch_size):
            self._load_batch(batch, fingerprints)
            self.statistics.added(len(batch))
            if progress:
                progress(batch[-1])
        # One record for the whole import, in its transaction and just before it commits:
        # recording locks the change counter until commit, so recording per batch would make
        # every other recording writer (a member adding a lab tag) wait for the whole import.
        SearchChange.objects.record(self.changed_paper_ids)
        if self.abstract_changed_ids:
            abstracts_changed.send(Paper, paper_ids=sorted(self.abstract_changed_ids))

    # -- matching ---------------------------------------------------------------------------

    def _load_batch(self, batch: Sequence[PaperRecord], fingerprints: Sequence[str]) -> None:
        incoming = [
            match_for(r, fp, self.source or source_name(r.source))
            for r, fp in zip(batch, fingerprints, strict=True)
        ]
        bases = self._bases(incoming)
        matches = []
        for match in incoming:
            match.base = bases.get((match.source, match.key))
            if match.base is not None and match.base.digest == match.digest:
                # Nothing new from this source since its last import: no paper is even read.
                self.report.for_file(match.record.source).unchanged += 1
            else:
                matches.append(match)
        if not matches:
            return
        targets = self._find_papers(matches)
        self._load_current_state([t for t in targets if not t.is_new])
        for match in matches:
            self._merge(match)
        self._write(matches)

    def _bases(self, matches: list[Match]) -> dict[tuple[str, str], Base]:
        bases: dict[tuple[str, str], Base] = {}
        # query: what these records' sources supplied last time
        for rows in by_kind_in_chunks(
            SourceRecord, "key", [(m.source, m.key) for m in matches], kind_field="source"
        ):
            for pk, source, key, digest, fields in rows.values_list(
                "pk", "source", "key", "digest", "fields"
            ):
                bases[(source, key)] = Base(pk, digest, fields)
        return bases

    def _find_papers(self, matches: list[Match]) -> list[Target]:
        """Sets each match's target, a new paper where none matches; returns the targets.

        Papers are looked up by each identity in turn, strongest first, and only for records
        that a stronger one has not found (one query per identity and IN_CHUNK values; none
        for an identity no record has).
        """
        found: dict[int, Paper] = {}
        merged: dict[str, dict[str, int]] = {}
        unresolved = matches
        for name in IDENTITIES:
            values = {getattr(m, name) for m in unresolved} - {""}
            if name == "abstract_fingerprint":
                found.update(papers_sharing_an_abstract(unresolved))
            else:
                for chunk in chunks(values):  # query: papers by this identity
                    papers = Paper.objects.filter(identifier_in(name, chunk))
                    found.update((p.pk, p) for p in papers)
            # Found values only: a record without this identity is not found by it.
            known = {getattr(paper, name) for paper in found.values()} - {""}
            if name in MERGED_IDENTITIES:  # a merged paper's identity finds its kept paper
                merged[name] = self._merged_into(name, values - known)
                known |= merged[name].keys()
            unresolved = [m for m in unresolved if getattr(m, name) not in known]
        kept_ids = {pk for into in merged.values() for pk in into.values()} - found.keys()
        for chunk in chunks(kept_ids):  # query: papers that merged papers were folded into
            found.update((p.pk, p) for p in Paper.objects.filter(pk__in=chunk))

        targets = [Target(paper, is_new=False) for _, paper in sorted(found.items())]
        index = PaperIndex(targets)
        by_pk = {t.paper.pk: t for t in targets}
        for name, into in merged.items():
            for value, kept_id in into.items():
                index.add(name, value, by_pk[kept_id])
        for match in matches:
            target = index.match(match)
            if target is None:
                match.created = True
                target = Target(_new_paper(match), is_new=True, loaded=True)
                targets.append(target)
            match.target = target
            # Claim the record's identities the paper lacks now, so that a later record with
            # another forum id (or arXiv id) cannot take this paper, nor two papers one id.
            for name in CLAIMED_IDENTITIES:
                value = getattr(match, name)
                if value and not getattr(target.paper, name) and not index.taken(name, value):
                    setattr(target.paper, name, value)
                    target.changed.add(name)
                    match.claimed.append(name)
            index.add_paper(target)
        return targets

    def _merged_into(self, field_name: str, values: set[str]) -> dict[str, int]:
        """Which kept paper each of these forum ids or fingerprints of merged papers means."""
        into: dict[str, int] = {}
        if not self.any_merged:
            return into
        for chunk in chunks(sorted(values - {""})):  # query: merged papers
            rows = MergedPaper.objects.filter(**{f"{field_name}__in": chunk})
            # The latest merge wins should one value have been merged into two papers.
            for value, kept_id in rows.order_by("merged_at", "pk").values_list(
                field_name, "into_id"
            ):
                into[value] = kept_id
        return into

    def _load_current_state(self, targets: list[Target]) -> None:
        by_pk = {t.paper.pk: t for t in targets if not t.loaded}
        for target in by_pk.values():
            target.loaded = True
        for chunk in chunks(sorted(by_pk)):
            authorships = (  # query: current authors in order
                Authorship.objects.filter(paper_id__in=chunk)
                .order_by("paper_id", "position")
                .values_list(
                    "paper_id", "author__normalized_name", "author__name", "author__openreview_id"
                )
            )
            for paper_id, key, name, profile in authorships:
                by_pk[paper_id].authors.append(Person(key, name, profile or ""))
            # query: current tags, imported kinds kept below. Filtering on the tag's kind in SQL
            # lets SQLite start from every venue tag and probe each paper for it: with 10,000
            # venues that is millions of index probes per chunk instead of a few per paper.
            paper_tags = (
                PaperTag.objects.filter(paper_id__in=chunk)
                .order_by()
                .values_list("paper_id", "tag__kind", "tag__key")
            )
            for paper_id, kind, key in paper_tags:
                if kind in IMPORTED_KINDS:
                    by_pk[paper_id].tag_keys.add((kind, key))

    # -- merging ----------------------------------------------------------------------------

    def _merge(self, match: Match) -> None:
        record, target = match.record, match.target
        paper = target.paper
        counts = self.report.for_file(record.source)
        curated = set(paper.curator_edited_fields or [])
        base = match.base.fields if match.base else {}
        changes = list(match.claimed)

        def source_changed(name: str) -> bool:
            """The record has a value for `name` that is not what its source gave last time."""
            supplied = match.supplied.get(name)
            return supplied is not None and supplied != base.get(name)

        def may_apply(
            name: str, current_hash: str, current: str, incoming: str, data: tuple = (None, None)
        ) -> bool:
            """Whether the incoming value replaces the current one; lists it for the curators
            when the current value is a curator's (kept) or another source's (replaced).
            `data`: the two values as structured data, for an author list."""
            if name in curated:
                self._conflict(match, ImportConflict.Kind.CURATED, name, current, incoming, data)
                return False
            if current and base.get(name) not in (current_hash, RELEASED):
                self._conflict(match, ImportConflict.Kind.SOURCES, name, current, incoming, data)
            return True

        forum_id = paper.forum_id or record.forum_id
        for name in SCALAR_FIELDS:
            incoming, current = getattr(record, name), getattr(paper, name)
            # The same value written another way (papers.importing.equivalence) is no news.
            if not source_changed(name) or equivalent(name, current, incoming, forum_id):
                continue
            if name == "forum_url" and record.forum_id and record.forum_id != paper.forum_id:
                continue  # a merged paper's record: its forum page is not the kept paper's
            if may_apply(name, value_hash(current), current, incoming):
                setattr(paper, name, incoming)
                changes.append(name)

        if source_changed("year") and record.year != paper.year:
            current = str(paper.year or "")
            if may_apply("year", year_hash(paper.year), current, str(record.year)):
                paper.year = record.year
                changes.append("year")

        # No disagreement to list: a preprint published later takes the published kind, and
        # a published paper keeps its kind (publication_types.merged_type).
        kind = merged_type(paper.publication_type, record.publication_type)
        if kind != paper.publication_type and "publication_type" not in curated:
            paper.publication_type = kind
            changes.append("publication_type")

        if (
            source_changed("abstract")
            and match.fingerprint != paper.abstract_fingerprint
            and not equivalent("abstract", paper.abstract, record.abstract)
        ):
            current_hash = abstract_hash(paper.abstract_fingerprint)
            if may_apply("abstract", current_hash, paper.abstract, record.abstract):
                paper.abstract = record.abstract
                paper.abstract_fingerprint = match.fingerprint
                changes += ["abstract", "abstract_fingerprint"]

        current_keys = [person.key for person in target.authors]
        if (source_changed("authors") or source_changed("author_ids")) and not same_people(
            match.authors, target.authors
        ):
            current_names = ", ".join(person.name for person in target.authors)
            incoming_names = ", ".join(person.name for person in match.authors)
            if only_names_profiles(match.authors, target.authors):
                # The same names, with the profile ids they lacked: no one's list is replaced,
                # so nothing to dispute; a curator's list is left as the curator made it.
                apply = "authors" not in curated
            else:
                data = (author_list_data(target.authors), author_list_data(match.authors))
                apply = may_apply(
                    "authors", authors_hash(current_keys), current_names, incoming_names, data
                )
            if apply:
                target.authors = match.authors
                target.authors_changed = True
                changes.append("authors")

        if source_changed("tags"):
            missing = []
            for kind, name in match.tags:
                ident = self._tag_ident(kind, name)
                if ident not in target.tag_keys:
                    missing.append((kind, name))
                    target.tag_keys.add(ident)
            missing_names = ", ".join(name for _, name in missing)
            if missing and "tags" in curated:
                tags_data = (None, [{"kind": kind, "name": name} for kind, name in missing])
                self._conflict(
                    match, ImportConflict.Kind.CURATED, "tags", "", missing_names, tags_data
                )
            elif missing:
                target.new_tags.extend(missing)
                changes.append("tags")
            superseded = superseded_tags(target.tag_keys, match.tags)
            if superseded and "tags" not in curated:
                target.tag_keys -= {self._tag_ident(kind, name) for kind, name in superseded}
                target.dropped_tags.extend(superseded)
                changes.append("tags")

        if paper.title and paper.needs_curation and paper.curation_reason == UNTITLED_REASON:
            paper.needs_curation = False
            paper.curation_reason = ""
            changes += ["needs_curation", "curation_reason"]

        target.changed.update(c for c in changes if c not in ("authors", "tags"))
        if match.created:
            counts.created += 1
        elif changes:
            counts.updated += 1
        else:
            counts.unchanged += 1

    def _conflict(
        self,
        match: Match,
        kind: str,
        name: str,
        current: str,
        incoming: str,
        data: tuple = (None, None),
    ) -> None:
        record, paper = match.record, match.target.paper
        conflict = Conflict(
            record.source,
            record.line,
            _describe(paper),
            name,
            current,
            incoming,
            kind=kind,
            current_data=data[0],
            incoming_data=data[1],
        )
        self.report.for_file(record.source).conflicts.append(conflict)
        self.conflicts.append((paper, conflict))

    # -- writing ----------------------------------------------------------------------------

    def _write(self, matches: list[Match]) -> None:
        targets = [m.target for m in matches]
        unique = list({id(t): t for t in targets}.values())
        # queries: authors by profile id and by name, then new ones and found profile ids
        authors = resolve_authors(p for t in unique if t.authors_changed for p in t.authors)
        rows_of: dict[int, list[AuthorRow]] = {}
        for target in unique:
            if target.authors_changed:
                rows_of[id(target)] = authorship_rows(target.authors, authors)
                target.paper.author_names = ", ".join(row.name for row in rows_of[id(target)])
                target.changed.add("author_names")

        new = [t for t in unique if t.is_new]
        now = timezone.now()
        for target in new:
            target.paper.created_by_import = target.paper.changed_by_import = self.import_run
            target.paper.created_at = target.paper.updated_at = now
        # query: insert papers (COPY on PostgreSQL), their ids allocated first
        insert_objects([t.paper for t in new])
        self.abstract_twins.update(
            (m.target.paper.pk, m.abstract_twin.pk)
            for m in matches
            if m.abstract_twin and m.created
        )
        changed = [
            t for t in unique if not t.is_new and (t.changed or t.authors_changed or t.tags_changed)
        ]
        if changed:
            fields = {"updated_at", "changed_by_import"}
            for target in changed:
                target.paper.updated_at = now
                target.paper.changed_by_import = self.import_run
                if target.changed & {"title", "abstract"}:
                    set_duplicate_keys(target.paper)
                    target.changed.update(KEY_COLUMNS.values())
                fields |= target.changed
            # query: update changed papers
            Paper.objects.bulk_update([t.paper for t in changed], sorted(fields))

        replaced = [t.paper.pk for t in unique if t.authors_changed and not t.is_new]
        for chunk in chunks(replaced):  # query: drop the author lists being replaced
            Authorship.objects.filter(paper_id__in=chunk).delete()
        authorships = [
            (t.paper.pk, row.pk, position)
            for t in unique
            if t.authors_changed
            for position, row in enumerate(rows_of[id(t)])
        ]
        # query: insert authorships (COPY on PostgreSQL)
        insert_rows(Authorship, ("paper", "author", "position"), authorships)
        # queries: the authors without an ORCID iD their records give one (Crossref's)
        fill_author_orcids((m.target.paper.pk, named_orcids(m.record)) for m in matches)

        tagged = [t for t in unique if t.new_tags]
        tags = self._tags_for({(kind, name) for t in tagged for kind, name in t.new_tags})
        added = connection.ops.adapt_datetimefield_value(timezone.now())
        links = [
            (t.paper.pk, tags[self._tag_ident(kind, name)].pk, added)
            for t in tagged
            for kind, name in t.new_tags
        ]
        # query: insert paper-tag links (COPY on PostgreSQL); added_by is null for imports
        insert_rows(PaperTag, ("paper", "tag", "created_at"), links)
        self._drop_tags([t for t in unique if t.dropped_tags])
        self.abstract_changed_ids.update(
            t.paper.pk for t in unique if not t.is_new and "abstract" in t.changed
        )
        self.changed_paper_ids.update(
            t.paper.pk
            for t in unique
            if t.is_new or t.authors_changed or t.tags_changed or t.changed & INDEXED_FIELDS
        )
        self._write_sources(matches)
        self._write_conflicts()
        for target in unique:
            target.changed.clear()
            target.new_tags = []
            target.dropped_tags = []
            target.authors_changed = False

    def _drop_tags(self, targets: list[Target]) -> None:
        """Unlink the tags records replaced (a provisional track): one query per tag and chunk."""
        papers_of: dict[tuple[str, str], list[int]] = {}
        for target in targets:
            for kind, name in target.dropped_tags:
                papers_of.setdefault((kind, name), []).append(target.paper.pk)
        tags = self._tags_for(set(papers_of))
        for (kind, name), paper_ids in papers_of.items():
            tag = tags[self._tag_ident(kind, name)]
            for chunk in chunks(paper_ids):  # query: unlink a replaced tag
                PaperTag.objects.filter(tag=tag, paper_id__in=chunk).delete()

    def _write_sources(self, matches: list[Match]) -> None:
        """Remember what each record's source supplied: the base of its next import."""
        new = [
            (m.source, m.key, m.target.paper.pk, m.digest, json.dumps(m.supplied))
            for m in matches
            if m.base is None
        ]
        # query: insert source records (COPY on PostgreSQL)
        insert_rows(SourceRecord, ("source", "key", "paper", "digest", "fields"), new)
        seen = [
            SourceRecord(pk=m.base.pk, paper=m.target.paper, digest=m.digest, fields=m.supplied)
            for m in matches
            if m.base is not None
        ]
        if seen:  # query: update source records
            SourceRecord.objects.bulk_update(seen, ["paper", "digest", "fields"])

    def _write_conflicts(self) -> None:
        if not self.conflicts:
            return
        rows = [
            ImportConflict(
                paper=paper,
                kind=conflict.kind,
                field=conflict.field,
                # The source the merge knows the record by (a fetch's is no file name).
                source=self.source or source_name(conflict.source),
                line=conflict.line,
                previous=conflict.current,
                incoming=conflict.incoming,
                previous_data=conflict.current_data,
                incoming_data=conflict.incoming_data,
                import_run=self.import_run,
            )
            for paper, conflict in self.conflicts
        ]
        # query: list the batch's conflicts for the curators
        ImportConflict.objects.bulk_create(rows)
        # Each is the newest about its field: it closes the older open ones, whatever their
        # source (and an earlier one of this batch), so only it can be settled.
        supersede_older_conflicts(row.paper.pk for row in rows)
        self.conflicts = []

    def _tags_for(self, wanted: set[tuple[str, str]]) -> dict[tuple[str, str], Tag]:
        """Imported tags by (kind, key), created when missing; cached for the whole import."""
        needed = {self._tag_ident(kind, name): name for kind, name in wanted}
        unknown = {ident: name for ident, name in needed.items() if ident not in self.tags}
        # queries: stored tags, then slugs in use and new tags
        self.tags.update(tag_service.tags_by_ident(unknown))
        return {ident: self.tags[ident] for ident in needed}

    @cached_property
    def aliases(self) -> dict[tuple[str, str], tuple[str, str]]:
        """Spellings a curator merged into another tag, (kind, key) -> the kept tag's: a few,
        read once, when the first record brings tags."""
        return tag_service.merged_keys()  # query: tag aliases

    def _tag_ident(self, kind: str, name: str) -> tuple[str, str]:
        """The (kind, key) of the tag a record's tag name gives: a merged spelling's is the
        kept tag's (TagAlias)."""
        ident = (kind, tag_key(name))
        return self.aliases.get(ident, ident)


def _new_paper(match: Match) -> Paper:
    """The paper a record creates; its forum id and arXiv id are claimed after (_find_papers)."""
    record = match.record
    paper = Paper(
        title=record.title,
        abstract=record.abstract,
        forum_url=record.forum_url,
        pdf_url=record.pdf_url,
        doi=record.doi,
        year=record.year,
        publication_type=record.publication_type,
        abstract_fingerprint=match.fingerprint,
    )
    if not record.title:
        paper.needs_curation = True
        paper.curation_reason = UNTITLED_REASON
    set_duplicate_keys(paper)
    return paper


def _describe(paper: Paper) -> str:
    label = f'"{paper.display_title[:60]}"'
    return f"{label} ({paper.forum_id})" if paper.forum_id else label
