"""The change log of the search index: a one-row counter and one row per changed paper."""

import uuid

import django.db.models.functions.datetime
from django.db import migrations, models


def create_counter(apps, schema_editor):
    # Every index built from this database remembers this id: an index built from another
    # database (another server, a restored copy) is rebuilt rather than caught up.
    SearchSequence = apps.get_model("papers", "SearchSequence")
    SearchSequence.objects.using(schema_editor.connection.alias).create(
        id=1, value=0, token=0, database_id=uuid.uuid4(), pruned_through=0
    )


class Migration(migrations.Migration):

    dependencies = [
        ('papers', '0003_abstract_max_length'),
    ]

    operations = [
        migrations.CreateModel(
            name='SearchChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('seq', models.BigIntegerField()),
                ('paper_id', models.BigIntegerField()),
                ('token', models.BigIntegerField()),
                ('recorded_at', models.DateTimeField(db_default=django.db.models.functions.datetime.Now())),
            ],
            options={
                'ordering': ['seq', 'id'],
                'indexes': [models.Index(fields=['seq'], name='papers_searchchange_seq')],
            },
        ),
        migrations.CreateModel(
            name='SearchSequence',
            fields=[
                ('id', models.PositiveSmallIntegerField(default=1, primary_key=True, serialize=False)),
                ('value', models.BigIntegerField(default=0)),
                ('token', models.BigIntegerField(default=0)),
                ('database_id', models.UUIDField(default=uuid.uuid4)),
                ('pruned_through', models.BigIntegerField(default=0)),
            ],
            options={
                'constraints': [models.CheckConstraint(condition=models.Q(('id', 1)), name='papers_searchsequence_single_row')],
            },
        ),
        migrations.RunPython(create_counter, migrations.RunPython.noop),
    ]
