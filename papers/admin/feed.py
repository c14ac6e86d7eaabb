"""Admin of the feeds a lab follows (papers.models_feeds.Feed): their last outcome at a glance,
and "Fetch now", which only queues the feed for the task worker (a venue can take minutes to
fetch, far longer than a request may). The change list shows each feed's progress as its
status (queued, running, ok, failed); reloading it shows where the worker is.

A feed's PDFs are the pdfs app's: its bulk runs are linked here by their admin's URL names
("Download PDFs…" opens the page that counts them before a run starts), so papers imports
nothing of pdfs."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html
from django.utils.text import Truncator

from papers.admin.common import clipped
from papers.admin.guards import GuardedAdmin
from papers.models import Feed
from papers.tasks import enqueue_fetch

ERROR_EXCERPT = 300  # cut again on screen (clipped); the whole in its title


@admin.register(Feed)
class FeedAdmin(GuardedAdmin, admin.ModelAdmin):
    # Status first, then what a curator watches, each on one line, all within 1280 px: the
    # kind and target are in the name (a feed without one is named by its target) and on the
    # feed's page; the three counts share a column.
    list_display = [
        "last_status",
        "name_link",
        "last_run_at",
        "last_counts",
        "schedule",
        "error_excerpt",
        "pdf_links",
    ]
    list_display_links = ["name_link"]
    list_filter = ["kind", "enabled", "last_status", "download_pdfs"]
    search_fields = ["name", "target"]
    actions = ["fetch_now", "download_pdfs_now"]
    fields = [
        "name",
        "kind",
        "target",
        "arxiv_sort",
        "enabled",
        "every_hours",
        ("download_pdfs", "pdf_run_cap"),
        "pdf_links",
        "last_run_at",
        "last_status",
        ("last_created", "last_updated", "last_unchanged"),
        "last_error",
        "arxiv_resume_start",
        "import_link",
        "holding",
        "created_at",
    ]
    readonly_fields = [
        "last_run_at",
        "last_status",
        "last_created",
        "last_updated",
        "last_unchanged",
        "last_error",
        "arxiv_resume_start",
        "import_link",
        "holding",
        "created_at",
        "pdf_links",
    ]

    def save_model(self, request: HttpRequest, obj: Feed, form, change: bool) -> None:
        # Where the last run broke off is a place in that query's results, not another's.
        if change and {"target", "arxiv_sort"}.intersection(form.changed_data):
            obj.arxiv_resume_start = None
        super().save_model(request, obj, form, change)

    @admin.display(description="feed", ordering="name")
    def name_link(self, feed: Feed) -> str:
        return clipped(str(feed))

    @admin.display(description="new · updated · same")
    def last_counts(self, feed: Feed) -> str:
        counts = (feed.last_created, feed.last_updated, feed.last_unchanged)
        return clipped(" · ".join(f"{count:,}" for count in counts))

    @admin.display(description="every", ordering="every_hours")
    def schedule(self, feed: Feed) -> str:
        return f"{feed.every_hours} h" if feed.enabled else "off"

    @admin.display(description="last error")
    def error_excerpt(self, feed: Feed) -> str:
        error = Truncator(" ".join(feed.last_error.split())).chars(ERROR_EXCERPT)
        return clipped(error) if error else "-"

    @admin.display(description="held by a run")
    def holding(self, feed: Feed) -> str:
        return feed.holding()

    @admin.display(description="last import")
    def import_link(self, feed: Feed) -> str:
        if feed.last_import_id is None:
            return "-"
        url = reverse("admin:papers_importrun_change", args=[feed.last_import_id])
        return format_html('<a href="{}">Import #{}</a>', url, feed.last_import_id)

    @admin.display(description="PDFs")
    def pdf_links(self, feed: Feed) -> str:
        if feed.pk is None:
            return "-"
        runs = reverse("admin:pdfs_pdfrun_changelist") + f"?feed__id__exact={feed.pk}"
        start = reverse("admin:pdfs_pdfrun_start", args=[feed.pk])
        return format_html('<a href="{}">Download PDFs…</a> · <a href="{}">runs</a>', start, runs)

    @admin.action(description="Download PDFs… (counted first)", permissions=["view"])
    def download_pdfs_now(
        self, request: HttpRequest, queryset: QuerySet[Feed]
    ) -> HttpResponse | None:
        """The page that counts one feed's PDFs and starts a run (pdfs' admin)."""
        feeds = list(queryset[:2])
        if len(feeds) != 1:
            self.message_user(request, "Choose one feed.", messages.WARNING)
            return None
        return HttpResponseRedirect(reverse("admin:pdfs_pdfrun_start", args=[feeds[0].pk]))

    @admin.action(description="Fetch now (in the background)", permissions=["change"])
    def fetch_now(self, request: HttpRequest, queryset: QuerySet[Feed]) -> None:
        queued: list[str] = []
        busy: list[str] = []
        for feed in queryset:
            (queued if enqueue_fetch(feed, user_id=request.user.pk) else busy).append(str(feed))
        if queued:
            self.message_user(
                request,
                f"Queued: {', '.join(queued)}. Reload this page to follow their status.",
                messages.SUCCESS,
            )
        if busy:
            self.message_user(
                request, f"Already queued or running: {', '.join(busy)}.", messages.WARNING
            )
