from django.db import migrations, models


def render_existing_bodies(apps, schema_editor):
    # Historical models have no custom save(): render here, in batches, with the same renderer.
    from annotations.markdown import render_markdown

    for model_name in ("Note", "Comment"):
        model = apps.get_model("annotations", model_name)
        batch = []
        for row in model.objects.only("pk", "body").iterator(chunk_size=500):
            row.body_html = render_markdown(row.body)
            batch.append(row)
            if len(batch) == 500:
                model.objects.bulk_update(batch, ["body_html"])
                batch = []
        model.objects.bulk_update(batch, ["body_html"])


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="comment",
            name="body_html",
            field=models.TextField(blank=True, editable=False),
        ),
        migrations.AddField(
            model_name="note",
            name="body_html",
            field=models.TextField(blank=True, editable=False),
        ),
        migrations.RunPython(render_existing_bodies, migrations.RunPython.noop),
    ]
