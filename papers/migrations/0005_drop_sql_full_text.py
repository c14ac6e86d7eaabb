"""The database's own full-text indexes go: the search index (papers/search/) replaces them.

PostgreSQL loses the generated search_vector column and the two GIN indexes, SQLite the FTS5
table and its triggers (migration 0002). Reversing restores them, from 0002's statements.
"""

import importlib

from django.db import migrations

_created = importlib.import_module("papers.migrations.0002_search_index")


def forwards(apps, schema_editor):
    _created.backwards(apps, schema_editor)


def backwards(apps, schema_editor):
    _created.forwards(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0004_search_changes"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards, elidable=False),
    ]
