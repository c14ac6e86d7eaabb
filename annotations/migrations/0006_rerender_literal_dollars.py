"""Notes and comments with math delimiters are rendered again: a dollar Markdown leaves as text
is now marked (annotations.markdown._render_text) so that the page does not typeset "$5 and
$10", and \\(...\\) and \\[...\\] are math (annotations.markdown._latex_math)."""

from django.db import migrations
from django.db.models import Q


def render_bodies_with_dollars(apps, schema_editor):
    # Historical models have no custom save(): render here with the same renderer, and for
    # comments the same mention lookup (a mention already rendered stays one).
    from annotations.markdown import render_markdown
    from annotations.models import members_named

    for model_name, mentions in (("Note", False), ("Comment", True)):
        model = apps.get_model("annotations", model_name)
        batch = []
        delimiters = Q(body__contains="$") | Q(body__contains="\\(") | Q(body__contains="\\[")
        rows = model.objects.filter(delimiters).only("pk", "body")
        for row in rows.iterator(chunk_size=500):
            lookup = (lambda names: set(members_named(names))) if mentions else None
            row.body_html = render_markdown(row.body, mentionable=lookup)
            batch.append(row)
            if len(batch) == 500:
                model.objects.bulk_update(batch, ["body_html"])
                batch = []
        model.objects.bulk_update(batch, ["body_html"])


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0005_comment_anchors"),
    ]

    operations = [
        migrations.RunPython(render_bodies_with_dollars, migrations.RunPython.noop),
    ]
