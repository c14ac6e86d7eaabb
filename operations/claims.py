"""The one way a row is held by one worker at a time: a claim with a lease and a holder.

Work that several processes or servers may start at once (a scheduled command, a feed, an
export job, a member's digest) claims its row first. The claim is one conditional UPDATE that
writes a new holder token and the lease's end on a row nobody holds (or whose lease has
lapsed): of two claimers at once, exactly one sees its UPDATE change the row. Everything the
holder writes afterwards (renewing the lease, recording the outcome, letting go) is an UPDATE
conditional on its token, as healthchecks' `sendreports` re-reads with the value it saw: a run
that outlived its lease and was taken over changes nothing, and learns it (False).

A lease that lapsed is a worker that stopped (killed, its host restarted) or one far slower than
its lease allows: the row may be claimed again, and what a lapsed claim means for the work
(failed, run again) is the caller's to say. The holder token names the host and process, for
the admin's list of what is held (operations.admin).
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from django.apps import apps
from django.db import models
from django.db.models import Q, QuerySet
from django.utils import timezone

HOLDER_MAX_LENGTH = 100
_HOST_MAX_LENGTH = 40


class Claimable(models.Model):
    """The two fields a claimable row carries. Both empty: nobody holds it."""

    # Who holds the row: host, process and a random part unique to the claim (new_holder).
    held_by = models.CharField(max_length=HOLDER_MAX_LENGTH, blank=True, editable=False)
    # The lease's end: past it, the row may be claimed by another.
    held_until = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        abstract = True

    def claim_label(self) -> str:
        """What the admin's list of held rows calls the row: its kind and id, so that nothing
        private (a list's name in an export's file name) shows there."""
        return f"{self._meta.verbose_name} {self.pk}"

    def is_held(self, now: datetime | None = None) -> bool:
        """Whether a claim holds the row now (its lease has not passed)."""
        return self.held_until is not None and self.held_until > (now or timezone.now())

    def holding(self, now: datetime | None = None) -> str:
        """Who holds the row and until when, in words (admin columns and pages)."""
        if self.held_until is None:
            return "free"
        now = now or timezone.now()
        until = moment(self.held_until)
        if self.held_until <= now:
            return f"lapsed at {until} (was {self.held_by})"
        return f"{self.held_by} until {until}"


class ClaimLost(Exception):
    """The claim was taken over by another worker after its lease lapsed (or cleared as
    failed): its holder must stop and record nothing."""


def moment(value: datetime | None) -> str:
    """A time as the admin and log lines show it (the site's time zone, to the minute)."""
    return timezone.localtime(value).strftime("%Y-%m-%d %H:%M") if value else "?"


def new_holder() -> str:
    return f"{socket.gethostname()[:_HOST_MAX_LENGTH]} pid {os.getpid()} {uuid.uuid4().hex}"


def free(now: datetime) -> Q:
    """Rows nobody holds: never claimed, let go, or whose lease has lapsed."""
    return Q(held_until__isnull=True) | Q(held_until__lte=now)


def lapsed(now: datetime) -> Q:
    """Rows still marked held whose lease has passed: their holder stopped, or is late."""
    return Q(held_until__lte=now)


def held(now: datetime) -> Q:
    """Rows held now (lease not passed)."""
    return Q(held_until__gt=now)


M = TypeVar("M", bound=Claimable)


@dataclass
class Claim(Generic[M]):
    """A row this process holds; every write through it is conditional on its token."""

    row: M  # as read right after the claim
    token: str
    lease: timedelta
    until: datetime
    _renewed: float = field(default_factory=time.monotonic)

    def _mine(self) -> QuerySet[M]:
        return type(self.row)._default_manager.filter(pk=self.row.pk, held_by=self.token)

    def renew(self, now: datetime | None = None) -> bool:
        """Extend the lease to `lease` from now; False when the claim was lost."""
        until = (now or timezone.now()) + self.lease
        if not self._mine().update(held_until=until):
            return False
        self.until, self._renewed = until, time.monotonic()
        return True

    def keep(self) -> None:
        """Renew the lease once a quarter of it has passed since the last renewal (call it as
        the work goes, between batches); ClaimLost when it was taken over."""
        if time.monotonic() - self._renewed < self.lease.total_seconds() / 4:
            return
        if not self.renew():
            raise ClaimLost(str(self.row))

    def record(self, **fields: Any) -> bool:
        """Write `fields` on the row while still holding it; False when the claim was lost."""
        return bool(self._mine().update(**fields))

    def release(self, **outcome: Any) -> bool:
        """Let the row go, writing `outcome` (the run's result) in the same UPDATE; False, and
        nothing written, when the claim was lost to another worker."""
        return bool(self._mine().update(held_by="", held_until=None, **outcome))


def claim(
    rows: type[M] | QuerySet[M],
    pk: Any,
    lease: timedelta,
    *,
    now: datetime | None = None,
    was_held_by: str | None = None,
    **fields: Any,
) -> Claim[M] | None:
    """Claim row `pk` of `rows` (a model, or a queryset whose filter the row must also match)
    for `lease`, writing `fields` in the same UPDATE (a status, a start time); None when
    another holds it, it does not match, or it is gone. With `was_held_by`, only if the row's
    holder is still the one the caller read (to record what it knows of that holder)."""
    now = now or timezone.now()
    queryset = rows if isinstance(rows, QuerySet) else rows._default_manager.all()
    if was_held_by is not None:
        queryset = queryset.filter(held_by=was_held_by)
    token, until = new_holder(), now + lease
    if not queryset.filter(free(now), pk=pk).update(held_by=token, held_until=until, **fields):
        return None
    row = queryset.model._default_manager.get(pk=pk)
    return Claim(row=row, token=token, lease=lease, until=until)


def let_go(rows: QuerySet, **outcome: Any) -> int:
    """Free every row of `rows` whoever holds it, writing `outcome`: for a caller that decided
    their holders stopped (filter `rows` on `free(now)` or `lapsed(now)` so that the UPDATE
    spares a row claimed meanwhile). Their late holders then learn they lost. How many."""
    return rows.update(held_by="", held_until=None, **outcome)


def held_rows(limit: int = 50) -> list[Claimable]:
    """Rows of every claimable model marked held (lapsed ones too), soonest lease end first:
    the admin's list of what is held. One query per claimable model."""
    rows: list[tuple[datetime, Claimable]] = []
    for model in apps.get_models():
        if issubclass(model, Claimable):
            held = model._default_manager.filter(held_until__isnull=False)[:limit]
            rows += [(row.held_until, row) for row in held if row.held_until is not None]
    return [row for _, row in sorted(rows, key=lambda pair: pair[0])[:limit]]
