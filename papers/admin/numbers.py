"""Numbers in hand-made admin requests: refused with a message, never a server error.

The admin trusts the numbers a request carries in three places where a hand-made one breaks it:

- Changelist date lookups. A query string may filter any local date field by a part of it
  (`?created_at__year=2024`, `__month`, `__day`, `__week`, `__quarter`, `__hour`...), and the
  date hierarchy reads `__year`, `__month` and `__day` to make its range. Python's datetime
  stops at the year 9999: `?created_at__year=99999999999` (or year 9999 with month 12, whose
  range ends in the year 10000) fails with an OverflowError the admin does not catch. A part
  out of its range is refused before the admin reads it, as the admin refuses any other bad
  lookup: the changelist reloads with no filter, saying why.
- Action selections: the rows are filtered by the posted keys ("abc", or a number past the
  database's integers, is a server error there).
- Many-to-many choices (a group's permissions, a member's groups): checked with a `pk__in`
  query, which a number past 64 bits breaks on SQLite.
"""

from __future__ import annotations

from datetime import MAXYEAR, MINYEAR
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.admin import helpers
from django.contrib.admin.options import IncorrectLookupParameters
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import QuerySet
from django.db.models.constants import LOOKUP_SEP
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect

from papers.numbers import bounded_int, fits_field

# Each date part's values. Years stop one short of datetime's ends: a year's range is made as
# [1 January of it, 1 January of the next), and a time zone can move either end by a day.
_YEARS = (MINYEAR + 1, MAXYEAR - 1)
DATE_PART_RANGES: dict[str, tuple[int, int]] = {
    "year": _YEARS,
    "iso_year": _YEARS,
    "quarter": (1, 4),
    "month": (1, 12),
    "week": (1, 53),
    "day": (1, 31),
    "week_day": (1, 7),
    "iso_week_day": (1, 7),
    "hour": (0, 23),
    "minute": (0, 59),
    "second": (0, 59),
}
# Lookups that take several values in one parameter, comma-separated.
_LISTS = {"in", "range"}


def date_lookup_problem(params: Any) -> str:
    """Why a changelist's query string `params` (a QueryDict) cannot be applied, or "" when
    every date part it names is within its range."""
    for key, values in params.lists():
        parts = key.split(LOOKUP_SEP)
        for index, part in enumerate(parts[1:], start=1):
            if part not in DATE_PART_RANGES:
                continue
            low, high = DATE_PART_RANGES[part]
            if len(parts) > index + 1 and parts[index + 1] in _LISTS:
                values = [piece for value in values for piece in value.split(",")]
            if any(bounded_int(value, low=low, high=high) is None for value in values):
                return f"A date filter's {part.replace('_', ' ')} must be from {low} to {high}"
    return ""


class BoundsDateLookups:
    """ModelAdmin mixin: a changelist filtered by a date part out of its range is shown
    unfiltered with a message."""

    def get_changelist_instance(self, request: HttpRequest) -> Any:
        if problem := date_lookup_problem(request.GET):
            self.message_user(  # type: ignore[attr-defined]
                request, f"{problem}: the filter was ignored.", messages.WARNING
            )
            # The admin's answer to any bad lookup: the changelist again, without filters.
            raise IncorrectLookupParameters(problem)
        return super().get_changelist_instance(request)  # type: ignore[misc]


class ChecksActionSelection:
    """ModelAdmin mixin: an action posted with a selection that names no row is refused with
    a message."""

    model: type[models.Model]

    def response_action(
        self, request: HttpRequest, queryset: QuerySet[Any], *args: Any, **kwargs: Any
    ) -> HttpResponse | None:
        key_field = self.model._meta.pk
        assert key_field is not None
        selection = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
        if not all(fits_field(key_field, value) for value in selection):
            self.message_user(  # type: ignore[attr-defined]
                request, "The selection names no such rows: nothing was done.", messages.ERROR
            )
            return HttpResponseRedirect(request.get_full_path())
        return super().response_action(request, queryset, *args, **kwargs)  # type: ignore[misc]


class KeyCheckedMultipleChoiceField(forms.ModelMultipleChoiceField):
    """Each chosen key is one the key field can hold, or the choice is a form error."""

    def _check_values(self, value):
        assert self.queryset is not None
        model = self.queryset.model
        key_field = model._meta.get_field(self.to_field_name) if self.to_field_name else None
        key_field = key_field or model._meta.pk
        for key in value:
            if not fits_field(key_field, key):
                raise ValidationError(
                    self.error_messages["invalid_pk_value"],
                    code="invalid_pk_value",
                    params={"pk": str(key)[:20]},
                )
        return super()._check_values(value)  # type: ignore[misc]


class ChecksManyToManyKeys:
    """ModelAdmin mixin: many-to-many pickers as KeyCheckedMultipleChoiceField."""

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        kwargs.setdefault("form_class", KeyCheckedMultipleChoiceField)
        return super().formfield_for_manytomany(db_field, request, **kwargs)  # type: ignore[misc]


class GuardsNumbers(BoundsDateLookups, ChecksActionSelection, ChecksManyToManyKeys):
    """ModelAdmin mixin: every bound above."""
