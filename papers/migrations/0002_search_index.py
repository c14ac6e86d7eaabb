"""Full-text search index for papers, built for whichever database runs the migration.

PostgreSQL: a STORED generated tsvector column (title A, author names B, abstract C) and a GIN
index; it is not a model field, papers.search reads it by name. SQLite: an external-content FTS5
table over papers_paper kept in sync by triggers, which also covers bulk_create / bulk_update
and upserts. Neither exists on the other vendor. `manage.py rebuild_search_index` reuses the
SQLite statements below to restore triggers a later table rebuild might have dropped.
"""

from django.db import migrations

POSTGRESQL_FORWARDS = [
    """
    ALTER TABLE papers_paper ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
        || setweight(to_tsvector('english'::regconfig, coalesce(author_names, '')), 'B')
        || setweight(to_tsvector('english'::regconfig, coalesce(abstract, '')), 'C')
    ) STORED
    """,
    # Keep the vector in the row (compressed) and let the abstract move to TOAST instead:
    # ranking reads every matching row's vector, a TOAST lookup each would double the cost.
    "ALTER TABLE papers_paper ALTER COLUMN search_vector SET STORAGE MAIN",
    "CREATE INDEX papers_paper_search ON papers_paper USING GIN (search_vector)",
    # similar_papers looks for shared title words and authors only (papers.search).
    """
    CREATE INDEX papers_paper_title_author ON papers_paper USING GIN (to_tsvector(
        'english'::regconfig, COALESCE(title, '') || ' ' || COALESCE(author_names, '')
    ))
    """,
]
POSTGRESQL_BACKWARDS = [
    "DROP INDEX IF EXISTS papers_paper_title_author",
    "DROP INDEX IF EXISTS papers_paper_search",
    "ALTER TABLE papers_paper DROP COLUMN IF EXISTS search_vector",
]

SQLITE_TABLE = """
    CREATE VIRTUAL TABLE IF NOT EXISTS papers_fts USING fts5(
        title, author_names, abstract,
        content='papers_paper', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2'
    )
"""
SQLITE_TRIGGERS = [
    """
    CREATE TRIGGER IF NOT EXISTS papers_paper_fts_insert AFTER INSERT ON papers_paper BEGIN
        INSERT INTO papers_fts(rowid, title, author_names, abstract)
        VALUES (new.id, new.title, new.author_names, new.abstract);
    END
    """,
    """
    CREATE TRIGGER IF NOT EXISTS papers_paper_fts_delete AFTER DELETE ON papers_paper BEGIN
        INSERT INTO papers_fts(papers_fts, rowid, title, author_names, abstract)
        VALUES ('delete', old.id, old.title, old.author_names, old.abstract);
    END
    """,
    # Saves that rewrite unchanged text (re-imports, admin) leave the index alone.
    """
    CREATE TRIGGER IF NOT EXISTS papers_paper_fts_update
    AFTER UPDATE OF title, author_names, abstract ON papers_paper
    WHEN old.title IS NOT new.title OR old.author_names IS NOT new.author_names
        OR old.abstract IS NOT new.abstract
    BEGIN
        INSERT INTO papers_fts(papers_fts, rowid, title, author_names, abstract)
        VALUES ('delete', old.id, old.title, old.author_names, old.abstract);
        INSERT INTO papers_fts(rowid, title, author_names, abstract)
        VALUES (new.id, new.title, new.author_names, new.abstract);
    END
    """,
]
SQLITE_FORWARDS = [
    SQLITE_TABLE,
    *SQLITE_TRIGGERS,
    "INSERT INTO papers_fts(papers_fts) VALUES ('rebuild')",
]
SQLITE_BACKWARDS = [
    "DROP TRIGGER IF EXISTS papers_paper_fts_insert",
    "DROP TRIGGER IF EXISTS papers_paper_fts_delete",
    "DROP TRIGGER IF EXISTS papers_paper_fts_update",
    "DROP TABLE IF EXISTS papers_fts",
]


def _run(schema_editor, statements_by_vendor):
    for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
        schema_editor.execute(statement)


def forwards(apps, schema_editor):
    _run(schema_editor, {"postgresql": POSTGRESQL_FORWARDS, "sqlite": SQLITE_FORWARDS})


def backwards(apps, schema_editor):
    _run(schema_editor, {"postgresql": POSTGRESQL_BACKWARDS, "sqlite": SQLITE_BACKWARDS})


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(forwards, backwards, elidable=False),
    ]
