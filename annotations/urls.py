from django.urls import path, register_converter

from annotations.views import (
    activity,
    capture,
    cite,
    comments,
    exports,
    lists,
    notes,
    notifications,
    suggestions,
    tags,
)
from annotations.views import triage as triage_views

app_name = "annotations"
register_converter(exports.FormatConverter, "export_format")

urlpatterns = [
    # Notes
    path("notes/", notes.my_notes, name="notes"),
    path("papers/<int:paper_pk>/notes/add/", notes.note_add, name="note-add"),
    path("notes/<int:pk>/edit/", notes.note_edit, name="note-edit"),
    path("notes/<int:pk>/delete/", notes.note_delete, name="note-delete"),
    # Reading lists
    path("lists/", lists.my_lists, name="lists"),
    path("lists/new/", lists.list_create, name="list-create"),
    path("lists/shared/", lists.shared_lists, name="lists-shared"),
    path("lists/<int:pk>/", lists.list_detail, name="list-detail"),
    path("lists/<int:pk>/edit/", lists.list_edit, name="list-edit"),
    path("lists/<int:pk>/delete/", lists.list_delete, name="list-delete"),
    path(
        "lists/<int:pk>/export.bib",
        lists.list_export,
        {"extension": "bib"},
        name="list-export-bibtex",
    ),
    path(
        "lists/<int:pk>/export.ris", lists.list_export, {"extension": "ris"}, name="list-export-ris"
    ),
    path(
        "lists/<int:pk>/export.json",
        lists.list_export,
        {"extension": "json"},
        name="list-export-csl",
    ),
    path(
        "lists/<int:pk>/export.csv", lists.list_export, {"extension": "csv"}, name="list-export-csv"
    ),
    path("lists/<int:pk>/items/add/", lists.list_item_add, name="list-item-add"),
    path(
        "lists/<int:pk>/items/<int:item_pk>/remove/",
        lists.list_item_remove,
        name="list-item-remove",
    ),
    path("lists/<int:pk>/items/<int:item_pk>/move/", lists.list_item_move, name="list-item-move"),
    path(
        "lists/<int:pk>/items/<int:item_pk>/status/",
        lists.list_item_status,
        name="list-item-status",
    ),
    path("lists/<int:pk>/items/<int:item_pk>/note/", lists.list_item_note, name="list-item-note"),
    path("papers/<int:paper_pk>/lists/add/", lists.paper_list_add, name="paper-list-add"),
    # Suggestions: a paper suggested to a colleague, their "suggested to me" page
    path("papers/<int:paper_pk>/suggest/", suggestions.paper_suggest, name="paper-suggest"),
    path("suggestions/", suggestions.suggested_to_me, name="suggestions"),
    path("suggestions/<int:pk>/accept/", suggestions.suggestion_accept, name="suggestion-accept"),
    path(
        "suggestions/<int:pk>/dismiss/", suggestions.suggestion_dismiss, name="suggestion-dismiss"
    ),
    # Comments
    path("papers/<int:paper_pk>/comments/add/", comments.comment_add, name="comment-add"),
    path("comments/<int:pk>/edit/", comments.comment_edit, name="comment-edit"),
    path("comments/<int:pk>/delete/", comments.comment_delete, name="comment-delete"),
    # Citing a paper (its page loads this section when it comes into view)
    path("papers/<int:paper_pk>/cite/", cite.paper_cite, name="paper-cite"),
    # Notifications (always the logged-in member's own)
    path("notifications/", notifications.notification_list, name="notifications"),
    path(
        "notifications/read/",
        notifications.notifications_mark_all_read,
        name="notifications-mark-all-read",
    ),
    path("notifications/<int:pk>/open/", notifications.notification_open, name="notification-open"),
    # Lab tags
    path("papers/<int:paper_pk>/tags/add/", tags.tag_add, name="tag-add"),
    path("lab-tags/<int:pk>/remove/", tags.tag_remove, name="tag-remove"),
    # Exports of the browsing pages: every paper they list, as .bib, .ris, .json or .csv
    path(
        "export/papers.<export_format:extension>", exports.paper_list_export, name="papers-export"
    ),
    path(
        "authors/<int:pk>/export.<export_format:extension>",
        exports.author_export,
        name="author-export",
    ),
    path(
        "tags/<str:kind>/<str:slug>/export.<export_format:extension>",
        exports.tag_export,
        name="tag-export",
    ),
    # Exports too large for one request, prepared in the background for a member
    path("exports/", exports.export_list, name="export-list"),
    path("exports/prepare/", exports.export_prepare, name="export-prepare"),
    path("exports/<int:pk>/download/", exports.export_download, name="export-download"),
    path("exports/<int:pk>/delete/", exports.export_delete, name="export-delete"),
    # Triage from lists of papers (search results, author and tag pages)
    path("papers/<int:paper_pk>/triage/save/", triage_views.triage_save, name="triage-save"),
    path("papers/<int:paper_pk>/triage/unsave/", triage_views.triage_unsave, name="triage-unsave"),
    path("papers/<int:paper_pk>/triage/list/", triage_views.triage_add_to_list, name="triage-list"),
    path("papers/<int:paper_pk>/triage/status/", triage_views.triage_status, name="triage-status"),
    path("papers/<int:paper_pk>/triage/tag/", triage_views.triage_tag, name="triage-tag"),
    path(
        "papers/<int:paper_pk>/triage/suggest/",
        triage_views.triage_suggest,
        name="triage-suggest",
    ),
    path("triage/", triage_views.triage_bulk, name="triage-bulk"),
    path("triage/link/", triage_views.triage_link_add, name="triage-link"),
    # One-click capture from another site (the bookmarklet, its page, its confirmation)
    path("capture/", capture.capture_page, name="capture"),
    path("capture/add/", capture.capture_add, name="capture-add"),
    path("capture/<int:pk>/", capture.capture_result, name="capture-result"),
    path("capture/<int:pk>/undo/", capture.capture_undo, name="capture-undo"),
    path("capture/settings/", capture.capture_settings, name="capture-settings"),
    path("capture/settings/key/", capture.capture_key, name="capture-key"),
    path("capture/settings/key/revoke/", capture.capture_key_revoke, name="capture-key-revoke"),
    # Activity
    path("activity/", activity.recent_activity, name="activity"),
]
