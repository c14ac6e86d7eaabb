"""What the scheduled commands did last: when each last succeeded and failed, and why."""

from __future__ import annotations

from django.db import models

from operations.claims import Claimable


class ScheduledJob(Claimable):
    """One scheduled command (send_digests, fetch_feeds, ...): its last run's outcome, and the
    run holding it now (held_by, held_until: operations.claims), so that two servers'
    crontabs never run it at once."""

    name = models.CharField(max_length=100, unique=True)
    started_at = models.DateTimeField(null=True, blank=True)
    succeeded_at = models.DateTimeField(null=True, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)
    # The last failure's exception, as its message says it (the traceback is in the log).
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def claim_label(self) -> str:
        return f"scheduled job {self.name}"

    @property
    def failing(self) -> bool:
        """Whether its last run failed (no success since its last failure)."""
        return self.failed_at is not None and (
            self.succeeded_at is None or self.succeeded_at < self.failed_at
        )
