from __future__ import annotations

from django.contrib import admin

from operations.models import ScheduledJob
from papers.admin_numbers import GuardsNumbers


@admin.register(ScheduledJob)
class ScheduledJobAdmin(GuardsNumbers, admin.ModelAdmin):
    """Read-only: the scheduled commands write these rows; a curator or operator looks."""

    list_display = ["name", "outcome", "succeeded_at", "failed_at", "started_at", "error_line"]
    readonly_fields = ["name", "started_at", "succeeded_at", "failed_at", "held_until", "error"]

    @admin.display(description="last run")
    def outcome(self, job: ScheduledJob) -> str:
        if job.held_until is not None:
            return "running"
        return "failed" if job.failing else ("succeeded" if job.succeeded_at else "never run")

    @admin.display(description="last error")
    def error_line(self, job: ScheduledJob) -> str:
        return job.error.splitlines()[0][:120] if job.failing and job.error else ""

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False
