"""Changelist lookups that do not reach into other members' private things.

Django's admin lets a changelist's query string filter through any one relation, list filter
or not: `/admin/papers/paper/?reading_lists=7` lists the papers on a member's private reading
list, `?notes=3` the paper a private note is on (and the user changelist whose note it is).
A lookup that passes through a model that can be private (one that defines
``is_private_from``, as in papers.admin.deletion) is refused (400) here, whoever asks.
"""

from __future__ import annotations

from django.core.exceptions import FieldDoesNotExist
from django.db.models import Model
from django.db.models.constants import LOOKUP_SEP


def reaches_private_model(model: type[Model], lookup: str) -> bool:
    """Whether `lookup` (from `model`) follows a relation to a model that can be private."""
    for part in lookup.split(LOOKUP_SEP):
        try:
            field = model._meta.get_field(part)
        except FieldDoesNotExist:
            return False  # a transform or a lookup: the path ends here
        if not field.is_relation or field.related_model is None:
            return False
        model = field.related_model
        if hasattr(model, "is_private_from"):
            return True
    return False


class RefusesLookupsIntoPrivateData:
    """ModelAdmin mixin: no changelist filter through another member's private things."""

    model: type[Model]

    def lookup_allowed(self, lookup, value, request=None):
        if reaches_private_model(self.model, lookup):
            return False
        return super().lookup_allowed(lookup, value, request)  # type: ignore[misc]
