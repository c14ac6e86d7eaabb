"""Delete confirmation pages that do not show other members' private things.

Deleting a paper (or a user) cascades to notes, private reading lists, saved searches and the
like. Django's confirmation page names every object it will delete by its ``__str__`` ("Note by
ann on …", a private list's name), which would show a curator what another member keeps to
themselves. Here such an object is listed by its kind only; the counts stay, so the curator
still sees how much the deletion takes with it.

A model opts in by defining ``is_private_from(user) -> bool``; papers needs no import of the
apps that hold private data.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.models import LogEntry
from django.contrib.admin.utils import NestedObjects, quote
from django.contrib.contenttypes.models import ContentType
from django.db import router
from django.db.models import Model
from django.http import HttpRequest
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.text import capfirst

PRIVATE_LABEL = "(private to another member)"


def is_private_from(obj: Model, user: Any) -> bool:
    if isinstance(obj, LogEntry):
        return _log_entry_is_private_from(obj, user)
    check = getattr(obj, "is_private_from", None)
    return bool(check and check(user))


def _log_entry_is_private_from(entry: LogEntry, user: Any) -> bool:
    """Deleting a member takes their admin history along, and each entry names what they
    changed ('Changed “Secret job-talk papers”', the items added): their own private reading
    list, edited in the admin, would be named to whoever deletes them. Another member's entry
    about a kind of object that can be private is listed by kind only; the object itself may
    be gone (the entry keeps its name), so its present visibility cannot decide."""
    if entry.user_id == user.pk:
        return False
    if entry.content_type_id is None:
        return True
    model = ContentType.objects.get_for_id(entry.content_type_id).model_class()
    return model is None or hasattr(model, "is_private_from")


def deleted_objects(
    objs: Any, request: HttpRequest, admin_site: admin.AdminSite
) -> tuple[list[Any], dict[str, int], set[str], list[Any]]:
    """Django's ``get_deleted_objects`` contract, with private objects named by kind only."""
    if not objs:
        return [], {}, set(), []
    collector = NestedObjects(using=router.db_for_write(objs[0]._meta.model), origin=objs)
    collector.collect(objs)
    perms_needed: set[str] = set()

    def describe(obj: Model) -> str:
        opts = obj._meta
        kind = capfirst(opts.verbose_name)
        registered = admin_site.is_registered(type(obj))
        if registered:
            model_admin = admin_site.get_model_admin(type(obj))
            if not model_admin.has_delete_permission(request, obj):
                perms_needed.add(str(opts.verbose_name))
        if is_private_from(obj, request.user):
            return f"{kind}: {PRIVATE_LABEL}"
        if not registered:
            return f"{kind}: {obj}"
        try:
            url = reverse(
                f"{admin_site.name}:{opts.app_label}_{opts.model_name}_change",
                args=[quote(obj.pk)],
            )
        except NoReverseMatch:
            return f"{kind}: {obj}"
        return format_html('{}: <a href="{}">{}</a>', kind, url, obj)

    to_delete = collector.nested(describe)
    protected = [describe(obj) for obj in collector.protected]
    model_count = {
        str(model._meta.verbose_name_plural): len(instances)  # type: ignore[attr-defined]
        for model, instances in collector.model_objs.items()
    }
    return to_delete, model_count, perms_needed, protected


class HidesPrivateObjectsOnDelete:
    """ModelAdmin mixin: the delete confirmation (and the "delete selected" action) lists other
    members' private objects without their names."""

    admin_site: admin.AdminSite

    def get_deleted_objects(self, objs, request):
        return deleted_objects(objs, request, self.admin_site)
