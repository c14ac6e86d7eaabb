"""Merging papers, authors or tags: the confirmation page, its form and its limits."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

if TYPE_CHECKING:
    pass


class KeptObjectField(forms.ModelChoiceField):
    """A merge's choice of the object to keep: a radio button for each selected object,
    labelled by `describe`."""

    def __init__(self, *, label: str, describe: Callable[[Any], str]) -> None:
        super().__init__(queryset=None, widget=forms.RadioSelect, label=label, empty_label=None)
        self.describe = describe

    def label_from_instance(self, obj) -> str:
        return self.describe(obj)


class MergeForm(forms.Form):
    """The confirmation form of a merge action: which of the `selected` objects to keep."""

    target: KeptObjectField

    def __init__(self, *args, selected: QuerySet, **kwargs):
        super().__init__(*args, **kwargs)
        target = self.fields["target"]
        assert isinstance(target, KeptObjectField)
        target.queryset = selected


def confirmed_merge(
    model_admin, request: HttpRequest, form_class: type[MergeForm], selected: QuerySet, merge
) -> tuple[MergeForm, bool]:
    """The merge action's form over `selected`, the first preselected, and whether the merge
    was done: on a valid confirmation, `merge(target=..., others=...)` (a services function
    whose result has a summary) is done, logged on the kept object and reported."""
    if "confirm" not in request.POST:
        return form_class(selected=selected, initial={"target": selected.first()}), False
    form = form_class(request.POST, selected=selected)
    if not form.is_valid():
        return form, False
    target = form.cleaned_data["target"]
    result = merge(target=target, others=[obj for obj in selected if obj.pk != target.pk])
    model_admin.log_change(request, target, result.summary())
    model_admin.message_user(request, result.summary(), messages.SUCCESS)
    return form, True


def merge_size_refused(model_admin, request: HttpRequest, selected: int, maximum: int) -> bool:
    """Whether a merge action refuses this many selected objects (fewer than two, more than
    `maximum`), telling the curator why."""
    plural = model_admin.opts.verbose_name_plural
    if selected < 2:
        model_admin.message_user(
            request, f"Select at least two {plural} to merge.", messages.WARNING
        )
        return True
    if selected > maximum:
        model_admin.message_user(
            request,
            f"Merge at most {maximum} {plural} at a time ({selected} selected).",
            messages.WARNING,
        )
        return True
    return False


def merge_page(model_admin, request: HttpRequest, form, selected: list, **extra) -> HttpResponse:
    """The confirmation page of a merge action (admin/papers/merge_base.html and the model's
    merge.html): `form` chooses the object to keep among `selected`, posted back to the
    action named merge_<model>s."""
    opts = model_admin.opts
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"Merge {opts.verbose_name_plural}",
        "opts": opts,
        "form": form,
        "selected_ids": [obj.pk for obj in selected],
        "action": f"merge_{opts.model_name}s",
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "media": model_admin.media,
        **extra,
    }
    return render(request, f"admin/papers/{opts.model_name}/merge.html", context)
