from __future__ import annotations

from django.contrib import admin
from django.utils import timezone

from operations import claims
from operations.models import ScheduledJob
from papers.admin.numbers import GuardsNumbers


@admin.register(ScheduledJob)
class ScheduledJobAdmin(GuardsNumbers, admin.ModelAdmin):
    """Read-only: the scheduled commands write these rows; a curator or operator looks. Above
    the list, every row held now by a claim (operations.claims): scheduled jobs, feeds,
    export jobs, digests; by which host and process, until when."""

    list_display = ["name", "outcome", "succeeded_at", "failed_at", "started_at", "error_line"]
    readonly_fields = [
        "name",
        "started_at",
        "succeeded_at",
        "failed_at",
        "holding",
        "error",
    ]
    change_list_template = "admin/operations/scheduledjob/change_list.html"

    @admin.display(description="last run")
    def outcome(self, job: ScheduledJob) -> str:
        if job.held_until is not None:
            return "running" if job.is_held() else "stopped (claim lapsed)"
        return "failed" if job.failing else ("succeeded" if job.succeeded_at else "never run")

    @admin.display(description="held")
    def holding(self, job: ScheduledJob) -> str:
        return job.holding()

    @admin.display(description="last error")
    def error_line(self, job: ScheduledJob) -> str:
        return job.error.splitlines()[0][:120] if job.failing and job.error else ""

    def changelist_view(self, request, extra_context=None):
        now = timezone.now()
        held = [
            {
                "what": row.claim_label(),
                "by": row.held_by,
                "until": row.held_until,
                "lapsed": not row.is_held(now),
            }
            for row in claims.held_rows()
        ]
        return super().changelist_view(request, {**(extra_context or {}), "held": held})

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
