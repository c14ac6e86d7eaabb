from django.db import migrations, models

from papers.text import fold_author_name


def fill_search_names(apps, schema_editor):
    """Every existing author's folded name, in batches (a catalogue has 100,000s)."""
    Author = apps.get_model("papers", "Author")
    batch = []
    for author in Author.objects.only("pk", "name").iterator(chunk_size=2000):
        author.search_name = fold_author_name(author.name)
        batch.append(author)
        if len(batch) == 2000:
            Author.objects.bulk_update(batch, ["search_name"])
            batch = []
    Author.objects.bulk_update(batch, ["search_name"])


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0015_paper_text_validators"),
    ]

    operations = [
        migrations.AddField(
            model_name="author",
            name="search_name",
            field=models.TextField(default="", editable=False),
        ),
        migrations.RunPython(fill_search_names, migrations.RunPython.noop, elidable=True),
    ]
