"""The import history: each run, what it created and changed, read only."""

from __future__ import annotations

from pathlib import PurePath
from typing import TYPE_CHECKING

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from papers.admin.guards import ReadOnlyAdmin
from papers.admin.list_filters import ChangedByImportFilter, CreatedByImportFilter, ImportRunFilter
from papers.models import ImportRun

if TYPE_CHECKING:
    pass


def imported_papers_url(run: ImportRun, by: type[ImportRunFilter]) -> str:
    return f"{reverse('admin:papers_paper_changelist')}?{by.parameter_name}={run.pk}"


@admin.register(ImportRun)
class ImportRunAdmin(ReadOnlyAdmin):
    # The history is what the imports did. Nobody adds or edits it by hand; nor deletes it:
    # deleting a run would not undo its import, only cut its papers' links to it (and what
    # later features count as new since a visit).

    list_display = [
        "__str__",
        "started_at",
        "who",
        "short_files",
        "created",
        "updated",
        "unchanged",
        "conflicts",
        "duration_shown",
        "paper_links",
    ]
    list_select_related = ["user"]
    date_hierarchy = "started_at"
    search_fields = ["invoked_by", "user__username"]
    fields = [
        "started_at",
        "finished_at",
        "duration_shown",
        "invoked_by",
        "user",
        "file_table",
        ("created", "updated", "unchanged", "conflicts"),
        "paper_links",
    ]
    readonly_fields = ["duration_shown", "file_table", "paper_links"]

    @admin.display(description="who")
    def who(self, run: ImportRun) -> str:
        who = [run.user.get_username()] if run.user else []
        if run.invoked_by:
            who.append(run.invoked_by)
        return " via ".join(who) or "-"

    @admin.display(description="files")
    def short_files(self, run: ImportRun) -> str:
        paths = [entry["path"] for entry in run.files]
        if not paths:
            return "-"
        first = PurePath(paths[0]).name
        return first if len(paths) == 1 else f"{first} and {len(paths) - 1} more"

    @admin.display(description="duration")
    def duration_shown(self, run: ImportRun) -> str:
        duration = run.duration
        return "-" if duration is None else f"{duration.total_seconds():.1f} s"

    @admin.display(description="files and their counts")
    def file_table(self, run: ImportRun) -> str:
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (e["path"], e["created"], e["updated"], e["unchanged"], e["conflicts"])
                for e in run.files
            ),
        )
        table = format_html(
            "<table><thead><tr><th>file</th><th>created</th><th>updated</th>"
            "<th>unchanged</th><th>conflicts</th></tr></thead><tbody>{}</tbody></table>",
            rows,
        )
        # A fetch's notes or entries it left out (papers.importing.report.Counts.warnings).
        warnings = [(e["path"], text) for e in run.files for text in e.get("warnings", [])]
        if warnings:
            table = format_html(
                "{}<p>Warnings (left out; the rest was imported):</p><ul>{}</ul>",
                table,
                format_html_join("", "<li>{}: {}</li>", warnings),
            )
        # What was cleaned rather than refused, each "file:line: note" (Counts.cleaned).
        cleaned = [(text,) for e in run.files for text in e.get("cleaned", [])]
        if cleaned:
            counted = sum(e.get("cleanings", 0) for e in run.files)
            table = format_html(
                "{}<p>Cleaned ({} in all; the first of each file listed):</p><ul>{}</ul>",
                table,
                counted,
                format_html_join("", "<li>{}</li>", cleaned),
            )
        return table

    @admin.display(description="papers")
    def paper_links(self, run: ImportRun) -> str:
        # "Changed" lists the papers this run changed last: a later import that changes one
        # again takes it over.
        return format_html(
            '<a href="{}">created</a> · <a href="{}">last changed</a>',
            imported_papers_url(run, CreatedByImportFilter),
            imported_papers_url(run, ChangedByImportFilter),
        )
