"""Items older than shared editing were all added by their list's owner; "shared" lists keep
their stored value, which now means "the lab can read" (nothing to map)."""

from django.db import migrations
from django.db.models import OuterRef, Subquery


def added_by_owner(apps, schema_editor):
    ReadingList = apps.get_model("annotations", "ReadingList")
    ReadingListItem = apps.get_model("annotations", "ReadingListItem")
    owner = ReadingList.objects.filter(pk=OuterRef("reading_list_id")).values("owner_id")[:1]
    ReadingListItem.objects.filter(added_by__isnull=True).update(added_by_id=Subquery(owner))


class Migration(migrations.Migration):
    dependencies = [("annotations", "0013_shared_editing")]

    operations = [migrations.RunPython(added_by_owner, migrations.RunPython.noop)]
