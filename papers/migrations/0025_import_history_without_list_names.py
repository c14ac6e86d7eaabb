"""Import history rows written by a reading list's "Add paper" box named the list
(`Add paper to “<list name>” (<member>)`), private lists too, and every curator reads and
searches that text in admin. They now say only that a member added a paper to a reading list."""

import re

from django.db import migrations

# The list name may hold anything, “ and ” included; the member's username cannot hold a
# parenthesis (Django's username characters), so the last "(...)" is the member.
OLD_TEXT = re.compile(r"^Add paper to “.*\((?P<member>[^()]*)\)$", re.DOTALL)
PREFIX = "Add paper to “"


def new_text(old: str) -> str:
    match = OLD_TEXT.match(old)
    if match is None:
        return "Add paper to a reading list"
    return f"Add paper to a reading list ({match['member']})"


def forget_list_names(apps, schema_editor):
    ImportRun = apps.get_model("papers", "ImportRun")
    for run in ImportRun.objects.filter(invoked_by__startswith=PREFIX).only("invoked_by"):
        run.invoked_by = new_text(run.invoked_by)
        run.save(update_fields=["invoked_by"])


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0024_conflict_structured_values"),
    ]

    # Nothing to undo: the names are gone for good, which is the point.
    operations = [migrations.RunPython(forget_list_names, migrations.RunPython.noop)]
