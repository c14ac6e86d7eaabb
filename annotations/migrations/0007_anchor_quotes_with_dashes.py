"""Quotes anchored in abstracts are counted in the abstract as the page shows it
(annotations.anchors.plain_text), which now shows LaTeX's `---` and `--` as the em and en
dashes they typeset (papers.latex._dashes). A quote taken before holds the hyphens: it is
rewritten the same way, so that its comment stays anchored rather than orphaned."""

from django.db import migrations
from django.db.models import Q

ANCHOR_FIELDS = ("quote", "quote_prefix", "quote_suffix")


def _dashes(text):
    return text.replace("---", "\u2014").replace("--", "\u2013")


def rewrite_dashes(apps, schema_editor):
    comment_model = apps.get_model("annotations", "Comment")
    hyphens = Q()
    for name in ANCHOR_FIELDS:
        hyphens |= Q(**{f"{name}__contains": "--"})
    batch = []
    for row in comment_model.objects.filter(hyphens).only("pk", *ANCHOR_FIELDS).iterator():
        for name in ANCHOR_FIELDS:
            setattr(row, name, _dashes(getattr(row, name)))
        batch.append(row)
    comment_model.objects.bulk_update(batch, ANCHOR_FIELDS, batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("annotations", "0006_rerender_literal_dollars"),
    ]

    operations = [
        migrations.RunPython(rewrite_dashes, migrations.RunPython.noop),
    ]
