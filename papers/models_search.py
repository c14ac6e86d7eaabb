"""The change log the search indexes follow: every write that changes what a paper's search
document holds records the paper's id here, in the write's transaction (papers.signals lists
where); each app server's index catches up to the latest change before it answers.

Its own module (papers.models re-exports it): it needs none of the catalogue's models.
"""

from __future__ import annotations

import secrets
import threading
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from django.core.signals import request_finished, request_started
from django.db import connections, models, transaction
from django.db.models import Q
from django.db.models.functions import Now


@dataclass(frozen=True)
class SearchPosition:
    """Where the database's change log stands: what an index must have applied to be current.

    `value` is the last sequence number handed out, `token` the random token of that bump
    (it tells a committed seq from one that was rolled back or restored over), `database_id`
    names the database, and changes with seq <= `pruned_through` have been deleted.
    """

    value: int
    token: int
    database_id: str
    pruned_through: int = 0


SEARCH_SEQUENCE_PK = 1


class SearchSequence(models.Model):
    """The one row counting recorded changes (see SearchChangeManager.record)."""

    id = models.PositiveSmallIntegerField(primary_key=True, default=SEARCH_SEQUENCE_PK)
    value = models.BigIntegerField(default=0)
    # Random, new with each bump: stored with that bump's SearchChange rows.
    token = models.BigIntegerField(default=0)
    # This database's identity: an index built from another database is rebuilt.
    database_id = models.UUIDField(default=uuid.uuid4)
    # SearchChange rows with seq <= this were pruned: an index older than that is rebuilt.
    pruned_through = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(id=SEARCH_SEQUENCE_PK), name="papers_searchsequence_single_row"
            ),
        ]

    def __str__(self) -> str:
        return f"search change sequence at {self.value}"


# The position a request's readers share (SearchChangeManager.request_position): read on the
# request's first ask; forgotten when the request ends or records a change itself.
_request = threading.local()


def _request_started(**kwargs) -> None:
    _request.reading = True
    _request.position = None


def _request_finished(**kwargs) -> None:
    _request.reading = False
    _request.position = None


request_started.connect(_request_started, dispatch_uid="papers.search_position.started")
request_finished.connect(_request_finished, dispatch_uid="papers.search_position.finished")


class SearchChangeManager(models.Manager):
    def record(self, paper_ids: Iterable[int], *, using: str | None = None) -> int | None:
        """Record that the search documents of `paper_ids` changed; returns the new seq.

        Call it inside the transaction that makes the change (it opens one itself when there
        is none, so the bump and its rows always commit together).

        The bump is `UPDATE ... SET value = value + 1` on the single SearchSequence row. That
        row stays locked until the recording transaction ends, so a second recorder waits at
        its own UPDATE until the first commits or rolls back: transactions that record commit
        in the order of their seqs, and a seq that is visible is never followed by an earlier
        one appearing later. A reader that has applied every change up to H and then reads
        the counter at H' > H can therefore fetch the changes in (H, H'] and miss none: each
        of them committed before the counter showed H' (PostgreSQL's READ COMMITTED included:
        each statement sees everything committed before it began; SQLite has one writer).

        The lock also serialises recording writers with each other until they commit, which
        is why the importer records once per import, just before its commit, not per batch.
        """
        ids = sorted({int(paper_id) for paper_id in paper_ids if paper_id is not None})
        if not ids:
            return None
        using = using or self.db
        connection = connections[using]
        # 63 random bits, never 0 (the token of a database nothing was recorded in).
        token = secrets.randbits(63) or 1
        # Plain SQL: this runs on every save of a paper, author link or tag link, and the ORM's
        # update + read back + bulk_create cost ten times as much per call.
        counter, changes = _search_change_sql(connection)
        with transaction.atomic(using=using, savepoint=False), connection.cursor() as cursor:
            seq = counter.bump(cursor, token)
            if seq is None:
                # The row is created by the migration; only a flushed database lacks it.
                SearchSequence.objects.using(using).get_or_create(pk=SEARCH_SEQUENCE_PK)
                seq = counter.bump(cursor, token)
            cursor.executemany(changes, [(seq, paper_id, token) for paper_id in ids])
        # This request's later reads must see its own change.
        _request.position = None
        return seq

    def request_position(self) -> SearchPosition:
        """position(), read once per request: the search index and the vector index one
        request asks reflect the same changes, and a hybrid search reads the counter once,
        not once per index. A change another process commits meanwhile is seen by the next
        request; one this request records, by its own later reads. Outside a request
        (commands, tasks) every call reads."""
        if not getattr(_request, "reading", False):
            return self.position()
        if _request.position is None:
            _request.position = self.position()
        return _request.position

    def position(self, *, using: str | None = None) -> SearchPosition:
        """The counter, in one query: what an index must have applied to be current."""
        row = (
            SearchSequence.objects.using(using or self.db)
            .filter(pk=SEARCH_SEQUENCE_PK)
            .values_list("value", "token", "database_id", "pruned_through")
            .first()
        )
        if row is None:  # a flushed database: nothing recorded, and no identity yet
            return SearchPosition(0, 0, "", 0)
        value, token, database_id, pruned_through = row
        return SearchPosition(value, token, str(database_id), pruned_through)

    def token_at(self, seq: int, *, using: str | None = None) -> int | None:
        """The token of bump `seq`, or None when no change of that seq is stored."""
        return (
            self.using(using or self.db)
            .filter(seq=seq)
            .values_list("token", flat=True)
            .order_by()
            .first()
        )

    def paper_ids_between(self, after: int, upto: int, *, using: str | None = None) -> list[int]:
        """Ids of the papers changed by the bumps after..upto (after excluded), each once."""
        rows = (
            self.using(using or self.db)
            .filter(seq__gt=after, seq__lte=upto)
            .order_by()
            .values_list("paper_id", flat=True)
            .distinct()
        )
        return sorted(rows)

    def prune(self, *, through: int, using: str | None = None) -> int:
        """Delete the changes with seq <= `through`; an index older than that gets rebuilt."""
        using = using or self.db
        with transaction.atomic(using=using):
            sequence = SearchSequence.objects.using(using).select_for_update()
            current = sequence.filter(pk=SEARCH_SEQUENCE_PK).first()
            if current is None:
                return 0
            # The latest bump's rows stay: an index that is current keeps a token to check.
            through = min(through, current.value - 1)
            if through <= current.pruned_through:
                return 0
            deleted, _ = self.using(using).filter(seq__lte=through).delete()
            sequence.filter(pk=SEARCH_SEQUENCE_PK).update(pruned_through=through)
        return deleted


@dataclass(frozen=True)
class _CounterSQL:
    update: str
    read: str
    returning: bool

    def bump(self, cursor, token: int) -> int | None:
        """Add one to the counter (locking its row); the new value, None without a row."""
        cursor.execute(self.update, [token, SEARCH_SEQUENCE_PK])
        if self.returning:
            row = cursor.fetchone()
            return None if row is None else row[0]
        if not cursor.rowcount:
            return None
        cursor.execute(self.read, [SEARCH_SEQUENCE_PK])  # our own bump, under our lock
        return cursor.fetchone()[0]


def db_column(model: type[models.Model], name: str) -> str:
    """The database column of a concrete field ("pk" for the primary key), for raw SQL."""
    field = model._meta.pk if name == "pk" else model._meta.get_field(name)
    assert isinstance(field, models.Field) and field.column  # a concrete field, not a relation
    return field.column


def _search_change_sql(connection) -> tuple[_CounterSQL, str]:
    """The statements of SearchChangeManager.record, in this connection's quoting.

    UPDATE ... RETURNING where the database has it (PostgreSQL, SQLite 3.35+): one statement
    instead of an UPDATE and a SELECT.
    """
    quote = connection.ops.quote_name
    counter = quote(SearchSequence._meta.db_table)
    value, token, key = (quote(db_column(SearchSequence, f)) for f in ("value", "token", "id"))
    # Every name below is a quoted table or column name from the models' metadata.
    update = f"UPDATE {counter} SET {value} = {value} + 1, {token} = %s WHERE {key} = %s"  # noqa: S608
    returning = connection.features.can_return_columns_from_insert
    change = SearchChange._meta
    columns = ", ".join(quote(db_column(SearchChange, f)) for f in ("seq", "paper_id", "token"))
    return (
        _CounterSQL(
            update=f"{update} RETURNING {value}" if returning else update,
            read=f"SELECT {value} FROM {counter} WHERE {key} = %s",  # noqa: S608
            returning=returning,
        ),
        f"INSERT INTO {quote(change.db_table)} ({columns}) VALUES (%s, %s, %s)",  # noqa: S608
    )


class SearchChange(models.Model):
    """One paper whose search document changed with bump `seq` of SearchSequence."""

    seq = models.BigIntegerField()
    # No foreign key: a deleted paper's change must outlive the paper.
    paper_id = models.BigIntegerField()
    token = models.BigIntegerField()
    recorded_at = models.DateTimeField(db_default=Now())

    objects = SearchChangeManager()

    class Meta:
        ordering = ["seq", "id"]
        indexes = [models.Index(fields=["seq"], name="papers_searchchange_seq")]

    def __str__(self) -> str:
        return f"paper {self.paper_id} changed at {self.seq}"
