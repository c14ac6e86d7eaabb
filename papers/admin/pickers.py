"""Autocomplete pickers that label a row's saved choice from what its form already holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django import forms
from django.contrib.admin.options import BaseModelAdmin
from django.contrib.admin.widgets import AutocompleteSelect
from django.db import models

from papers.numbers import fits_field

if TYPE_CHECKING:
    pass


class PreloadedAutocompleteSelect(AutocompleteSelect):
    """The admin's autocomplete picker, but a row's saved choice is labelled from the object
    its form already holds (an inline loads it with the rows) instead of a query per row: a
    paper with 2,000 authors opened 2,000 queries."""

    preloaded: models.Model | None = None  # set per form by PreloadedPickersForm

    def optgroups(self, name, value, attr=None):
        chosen = self.preloaded
        selected = [str(v) for v in value if str(v) not in self.choices.field.empty_values]
        if chosen is None or selected != [str(chosen.pk)]:  # a new row, or a new choice
            # A forged choice ("abc") comes back with its error; Django's own lookup of the
            # value to show would fail on it with a server error.
            key_field = self.field.target_field
            keys = [v for v in value if fits_field(key_field, v)]
            return super().optgroups(name, keys, attr)
        options = []
        if not self.is_required:
            options.append(self.create_option(name, "", "", False, 0))
        label = self.choices.field.label_from_instance(chosen)
        options.append(self.create_option(name, chosen.pk, label, True, len(options)))
        return [(None, options, 0)]


class PreloadedPickersForm(forms.ModelForm):
    """A form whose autocomplete pickers show the saved object its instance holds."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is None:
            return
        for name, field in self.fields.items():
            widget = getattr(field.widget, "widget", field.widget)  # inside the admin's wrapper
            if isinstance(widget, PreloadedAutocompleteSelect):
                widget.preloaded = getattr(self.instance, name)


class PreloadedPickersAdmin(BaseModelAdmin):
    """Autocomplete pickers as PreloadedAutocompleteSelect. With PreloadedPickersForm as the
    form (and an inline's get_queryset selecting the picked objects with the rows), a saved
    choice is labelled without a query."""

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name in self.get_autocomplete_fields(request):
            kwargs["widget"] = PreloadedAutocompleteSelect(
                db_field, self.admin_site, using=kwargs.get("using")
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)
