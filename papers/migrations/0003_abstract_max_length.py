from django.db import migrations, models


class Migration(migrations.Migration):
    """The abstract's length limit lives in forms (the admin) and the importer, not the schema.

    State only: on SQLite a real AlterField would rebuild papers_paper and drop the full-text
    triggers that migration 0002 put on it.
    """

    dependencies = [
        ("papers", "0002_search_index"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="paper",
                    name="abstract",
                    field=models.TextField(blank=True, max_length=10000),
                ),
            ],
        ),
    ]
