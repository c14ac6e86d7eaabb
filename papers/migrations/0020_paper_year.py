from django.db import migrations, models


def forget_imported_files(apps, schema_editor):
    # A file imported before years were kept would be skipped as unchanged at its next import
    # (papers.importing.unchanged_files), and its papers would never get their year. The
    # hashes are only a shortcut: without them the next import reads each file once more.
    apps.get_model("papers", "SourceFile").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0019_tag_search_key"),
    ]

    operations = [
        migrations.AddField(
            model_name="paper",
            name="year",
            field=models.PositiveSmallIntegerField(
                blank=True, help_text="Publication year, when a source gives one.", null=True
            ),
        ),
        migrations.RunPython(forget_imported_files, migrations.RunPython.noop),
    ]
