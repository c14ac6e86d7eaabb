"""Delete confirmation pages that tell nothing of what members keep to themselves.

Deleting a paper (or a member) cascades to notes, private reading lists, recommendations,
saved searches and the like. Django's confirmation page names every object it will delete by its
``__str__`` ("Note by ann on …", a private list's name) and counts each kind in its summary;
either would show a curator what other members keep, and how much. Here such rows are neither
listed (a line per row, even nameless, would count them) nor counted: the page says once, in
words that do not depend on whether there are any, that members' private annotations of the
kinds the deletion reaches go too. The curator's own rows and shared ones (a shared reading
list) are listed as before; the kinds that can hold private rows are never counted, since a
total less the rows listed would count the private ones.

A model opts in by defining ``is_private_from(user) -> bool`` (``services.can_be_private``);
papers needs no import of the apps that hold private data.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.contrib.admin.utils import NestedObjects, quote
from django.contrib.contenttypes.models import ContentType
from django.db import models, router
from django.db.models import Model
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.text import capfirst

from papers.services import can_be_private

PRIVATE_LABEL = "(private to another member)"

# Said once on the confirmation page of any deletion that can reach private rows, whether or
# not there are any: "if any" and the kinds are all it tells.
PRIVATE_ANNOTATIONS_DELETED = (
    "Members' private annotations (%(kinds)s), if any, will be deleted too; "
    "they are neither counted nor listed here."
)


def is_private_from(obj: Model, user: Any) -> bool:
    if isinstance(obj, LogEntry):
        return _log_entry_is_private_from(obj, user)
    check = getattr(obj, "is_private_from", None)
    return bool(check and check(user))


def _log_entry_is_private_from(entry: LogEntry, user: Any) -> bool:
    """Deleting a member takes their admin history along, and each entry names what they
    changed ('Changed “Secret job-talk papers”', the items added): their own private reading
    list, edited in the admin, would be named to whoever deletes them. Another member's entry
    about a kind of object that can be private is not listed (nor are log entries counted);
    the object itself may be gone (the entry keeps its name), so its present visibility
    cannot decide."""
    if entry.user_id == user.pk:
        return False
    if entry.content_type_id is None:
        return True
    model = ContentType.objects.get_for_id(entry.content_type_id).model_class()
    return model is None or hasattr(model, "is_private_from")


def hides_rows_of(model: type[Model]) -> bool:
    """Whether rows of `model` can be private from a curator on a delete page: the models that
    can be private, and the admin history (see _log_entry_is_private_from). Such a kind is
    never counted there."""
    return model is LogEntry or can_be_private(model)


def private_kinds_deleted_with(model: type[Model]) -> list[str]:
    """The plural names of the kinds with rows that can be private which deleting a `model`
    row deletes too, following the cascades in the model metadata: the same for every row,
    whatever it holds."""
    return sorted(str(m._meta.verbose_name_plural) for m in _hiding_models_deleted_with(model))


@cache
def _hiding_models_deleted_with(model: type[Model]) -> frozenset[type[Model]]:
    found: set[type[Model]] = set()
    seen = {model}
    queue = [model]
    while queue:
        current = queue.pop()
        for relation in current._meta.get_fields(include_hidden=True):
            # Reverse foreign keys (hidden ones too: many-to-many rows); a many-to-many
            # relation itself deletes only the rows of its through model, reached that way.
            if not isinstance(relation, models.ForeignObjectRel) or relation.many_to_many:
                continue
            related = relation.related_model
            if relation.on_delete is not models.CASCADE or not isinstance(related, type):
                continue
            if hides_rows_of(related):
                found.add(related)
            if related not in seen:
                seen.add(related)
                queue.append(related)
    return frozenset(found)


class _Hidden:
    """Stands in, in the nested list, for a row the page does not list."""


_HIDDEN = _Hidden()


def _without_hidden(nested: list[Any]) -> list[Any]:
    """The nested list of NestedObjects.nested, less the hidden rows and what hangs under them
    (a private reading list's items)."""
    kept: list[Any] = []
    after_hidden = False
    for item in nested:
        if isinstance(item, list):
            if not after_hidden:
                children = _without_hidden(item)
                if children:
                    kept.append(children)
            after_hidden = False
        elif item is _HIDDEN:
            after_hidden = True
        else:
            kept.append(item)
            after_hidden = False
    return kept


def deleted_objects(
    objs: Any, request: HttpRequest, admin_site: admin.AdminSite
) -> tuple[list[Any], dict[str, int], set[str], list[Any]]:
    """Django's ``get_deleted_objects`` contract, less the rows private from the curator: not
    listed, their kinds not counted, and no permission asked of the curator to delete them
    (asking would block the deletion and name the kind: "notes" tells that there are some)."""
    if not objs:
        return [], {}, set(), []
    model = objs[0]._meta.model
    collector = NestedObjects(using=router.db_for_write(model), origin=objs)
    collector.collect(objs)
    perms_needed: set[str] = set()

    def label(obj: Model) -> str:
        opts = obj._meta
        kind = capfirst(opts.verbose_name)
        if is_private_from(obj, request.user):
            return f"{kind}: {PRIVATE_LABEL}"
        if not admin_site.is_registered(type(obj)):
            return f"{kind}: {obj}"
        try:
            url = reverse(
                f"{admin_site.name}:{opts.app_label}_{opts.model_name}_change",
                args=[quote(obj.pk)],
            )
        except NoReverseMatch:
            return f"{kind}: {obj}"
        return format_html('{}: <a href="{}">{}</a>', kind, url, obj)

    def describe(obj: Model) -> str | _Hidden:
        if is_private_from(obj, request.user):
            return _HIDDEN
        if admin_site.is_registered(type(obj)):
            model_admin = admin_site.get_model_admin(type(obj))
            if not model_admin.has_delete_permission(request, obj):
                perms_needed.add(str(obj._meta.verbose_name))
        return label(obj)

    to_delete = _without_hidden(collector.nested(describe))
    kinds = private_kinds_deleted_with(model)
    if kinds:
        to_delete.append(PRIVATE_ANNOTATIONS_DELETED % {"kinds": ", ".join(kinds)})
    # A row that blocks the deletion cannot be left out without hiding why it fails; no model
    # that can be private protects what it points at today.
    protected = [label(obj) for obj in collector.protected]
    # The stubs type model_objs's keys as str; they are model classes.
    model_count = {
        str(m._meta.verbose_name_plural): len(instances)  # type: ignore[attr-defined]
        for m, instances in collector.model_objs.items()
        if not hides_rows_of(m)  # type: ignore[arg-type]
    }
    return to_delete, model_count, perms_needed, protected


class HidesPrivateObjectsOnDelete:
    """ModelAdmin mixin: the delete confirmation (and the "delete selected" action) neither
    lists nor counts other members' private objects, and says once that they go too."""

    admin_site: admin.AdminSite

    def get_deleted_objects(self, objs, request):
        return deleted_objects(objs, request, self.admin_site)
