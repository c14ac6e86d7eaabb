"""Threads of lab highlights made private or deleted before closing withdrew them: their
comments were only removed, keeping the quote and note that a curator's restore put back on the
paper page (issue 43, finding 1). Each is now withdrawn as highlights.threads.close_thread does:
deleted when nothing replies to it, else its body and quote blanked (the replies keep their
thread). Such a comment is top-level, removed, linked to no highlight, and starts as
highlights.threads.comment_body writes it."""

import re

from django.db import migrations
from django.db.models.functions import Coalesce, Now

THREAD_START = re.compile(r"Highlighted on page \d+ of the PDF:\n\n>")
CHUNK = 500


def chunks(pks):
    pks = sorted(pks)
    for i in range(0, len(pks), CHUNK):
        yield pks[i : i + CHUNK]


def withdraw_closed_threads(apps, schema_editor):
    Comment = apps.get_model("annotations", "Comment")
    Highlight = apps.get_model("highlights", "Highlight")
    # None should exist (closing a thread always unlinked it), but a private highlight's
    # comment is its private text whatever happened.
    linked_to_private = Highlight.objects.filter(visibility="private", comment__isnull=False)
    withdrawn = set(linked_to_private.values_list("comment_id", flat=True))
    linked_to_private.update(comment=None)
    closed = Comment.objects.filter(
        parent__isnull=True,
        removed_at__isnull=False,
        highlight__isnull=True,
        body__startswith="Highlighted on page ",
    )
    for pk, body in closed.values_list("pk", "body").iterator(chunk_size=CHUNK):
        if THREAD_START.match(body):
            withdrawn.add(pk)
    replied = set()
    for pks in chunks(withdrawn):
        replied |= set(Comment.objects.filter(parent_id__in=pks).values_list("parent_id", flat=True))
    for pks in chunks(withdrawn - replied):
        Comment.objects.filter(pk__in=pks).delete()
    for pks in chunks(replied):
        Comment.objects.filter(pk__in=pks).update(
            body="",
            body_html="",
            quote="",
            quote_prefix="",
            quote_suffix="",
            quote_start=None,
            anchor_state="",
            removed_at=Coalesce("removed_at", Now()),
        )


class Migration(migrations.Migration):
    dependencies = [
        ("highlights", "0001_initial"),
        ("annotations", "0008_export_jobs"),
    ]

    operations = [
        migrations.RunPython(withdraw_closed_threads, migrations.RunPython.noop),
    ]
