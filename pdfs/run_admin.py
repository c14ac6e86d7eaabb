"""Admin of the feeds' bulk PDF runs (pdfs.bulk): their progress and status, Stop and Resume,
and the page that starts one for a feed (linked from the feed's admin) after showing how many
PDFs it would fetch and about how large they are. Starting is a POST from that page."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from papers.admin.guards import GuardedAdmin
from papers.models import Feed
from pdfs import bulk
from pdfs.content import size_text
from pdfs.models import PdfRun

SHOWN = (
    "feed",
    "status",
    "stop_requested",
    "progress",
    "papers_total",
    "papers_done",
    "papers_failed",
    "papers_skipped",
    "fetched_size",
    "started_by",
    "error",
    "holding",
    "created_at",
    "started_at",
    "finished_at",
)


def runs_url(feed: Feed) -> str:
    return f"{reverse('admin:pdfs_pdfrun_changelist')}?feed__id__exact={feed.pk}"


@admin.register(PdfRun)
class PdfRunAdmin(GuardedAdmin, admin.ModelAdmin):
    """Runs are started from a feed (the start page) and written by their batches: here they
    are read, stopped and resumed, never edited (a save would write over a batch's progress)."""

    list_display = [
        "__str__",
        "status_label",
        "progress",
        "fetched_size",
        "started_by",
        "created_at",
    ]
    list_filter = ["status", "feed"]
    list_select_related = ["feed", "started_by"]
    fields = SHOWN
    readonly_fields = SHOWN
    actions = ["stop", "resume"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # the start page, from a feed

    def has_change_permission(self, request: HttpRequest, obj: PdfRun | None = None) -> bool:
        return False

    def has_start_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("pdfs.add_pdfrun")

    def has_stop_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("pdfs.change_pdfrun")

    @admin.display(description="status", ordering="status")
    def status_label(self, run: PdfRun) -> str:
        if run.stop_requested and run.status in bulk.ACTIVE:
            return "stopping"
        if run.status == PdfRun.Status.FAILED:
            return "failed (resumable)"
        return run.status  # the value: "queued", "running", ...

    @admin.display(description="progress")
    def progress(self, run: PdfRun) -> str:
        return (
            f"{run.papers_handled} of {run.papers_total}: {run.papers_done} fetched, "
            f"{run.papers_failed} failed, {run.papers_skipped} skipped"
        )

    @admin.display(description="downloaded", ordering="bytes_fetched")
    def fetched_size(self, run: PdfRun) -> str:
        return size_text(run.bytes_fetched)

    @admin.display(description="held by a batch")
    def holding(self, run: PdfRun) -> str:
        return run.holding()

    @admin.action(description="Stop (after the batch under way)", permissions=["stop"])
    def stop(self, request: HttpRequest, queryset: QuerySet[PdfRun]) -> None:
        count = bulk.request_stop(queryset)
        self.message_user(request, f"Stopping {count} run(s): each ends with its batch under way.")

    @admin.action(description="Resume (from the next batch)", permissions=["stop"])
    def resume(self, request: HttpRequest, queryset: QuerySet[PdfRun]) -> None:
        resumed = [run for run in queryset.select_related("feed") if bulk.resume(run)]
        level = messages.SUCCESS if resumed else messages.WARNING
        self.message_user(
            request,
            f"Resumed {len(resumed)} run(s); a run resumes only when stopped or failed, and "
            "while its feed has no other run in progress.",
            level,
        )

    def get_urls(self):
        start = self.admin_site.admin_view(self.start_view)
        return [
            path("start/<int:feed_id>/", start, name="pdfs_pdfrun_start"),
            *super().get_urls(),
        ]

    def start_view(self, request: HttpRequest, feed_id: int) -> HttpResponse:
        """GET: what a run of the feed would fetch; POST: start it."""
        if not self.has_start_permission(request):
            raise PermissionDenied
        feed = get_object_or_404(Feed, pk=feed_id)
        active = bulk.active_run(feed)
        if request.method == "POST":
            return self._start(request, feed, active)
        plan = bulk.plan(feed)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Download the PDFs of {feed}",
            "feed": feed,
            "plan": plan,
            "estimated_size": size_text(plan.estimated_bytes),
            "pdf_size": size_text(plan.pdf_bytes),
            "active": active,
            "runs_url": runs_url(feed),
        }
        return TemplateResponse(request, "admin/pdfs/pdfrun/start.html", context)

    def _start(self, request: HttpRequest, feed: Feed, active: PdfRun | None) -> HttpResponse:
        if active is not None:
            self.message_user(request, f"{active} is in progress: stop it first.", messages.WARNING)
        elif (run := bulk.start_run(feed, user=request.user)) is None:
            self.message_user(request, f"{feed}: no PDF to fetch.", messages.WARNING)
        else:
            self.message_user(
                request,
                format_html(
                    "Started {}: {} PDFs, in batches of {} on the bulk queue. Reload to follow it.",
                    run,
                    run.papers_total,
                    bulk.BATCH_SIZE,
                ),
                messages.SUCCESS,
            )
        return HttpResponseRedirect(runs_url(feed))
