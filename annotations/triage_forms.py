"""Forms of the triage controls on lists of papers.

Every result's controls belong to one shared form on the page (HTML forbids a form inside the
list page's search form), so each result's fields carry the paper in their prefix: `p12-status`.
"""

from __future__ import annotations

from django import forms

from annotations.forms import TAG_NAME_MAX_LENGTH, AddPaperForm, LabTagForm
from annotations.models import ReadingList, ReadingStatus
from papers.models import DISPLAY_TITLE_FIELDS, Paper
from papers.numbers import parse_id
from papers.text import is_number

# A page shows at most 100 results; a forged request naming more is refused, not read.
MAX_BULK_PAPERS = 100


def _shown(value: str) -> str:
    return value if len(value) <= 20 else f"{value[:20]}…"


def paper_prefix(paper_id: int) -> str:
    return f"p{paper_id}"


class OwnListField(forms.ModelChoiceField):
    """One of the owner's lists; any other id (another member's list, a shared one, none) is
    refused with the same message, so nothing says whether it exists."""

    default_error_messages = {"invalid_choice": "That reading list is not one of yours."}


def own_list_field(owner, *, required: bool = True) -> OwnListField:
    return OwnListField(
        queryset=ReadingList.objects.filter(owner=owner),
        required=required,
        error_messages={"required": "Choose one of your reading lists."},
    )


class TriageListForm(forms.Form):
    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["reading_list"] = own_list_field(owner)


class TriageStatusForm(forms.Form):
    status = forms.ChoiceField(choices=ReadingStatus.choices)


class TriageTagForm(LabTagForm):
    """The paper page's lab tag form (its validation), under a per-result prefix."""


ACTIONS = {
    "save": "Save",
    "list": "Add to list",
    "status": "Set status",
    "tag": "Add lab tag",
}


class BulkTriageForm(forms.Form):
    """Selected papers (`paper` checkboxes, or every paper of the page with `select_all`) and
    the action the pressed button names, with the one field that action needs."""

    action = forms.ChoiceField(choices=list(ACTIONS.items()))
    status = forms.ChoiceField(choices=ReadingStatus.choices, required=False)
    tag = forms.CharField(required=False, max_length=TAG_NAME_MAX_LENGTH)

    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, **kwargs)
        self.owner = owner
        self.fields["reading_list"] = own_list_field(owner, required=False)

    def selected_ids(self) -> list[str]:
        raw = list(self.data.getlist("paper")) if hasattr(self.data, "getlist") else []
        if self.data.get("select_all"):
            raw += (self.data.get("page_papers") or "").split(",")
        return [value.strip() for value in raw if value.strip()]

    def _clean_papers(self) -> list[Paper]:
        raw = self.selected_ids()
        if not raw:
            raise forms.ValidationError("Select at least one paper.")
        if len(set(raw)) > MAX_BULK_PAPERS:
            raise forms.ValidationError(f"Select at most {MAX_BULK_PAPERS} papers at a time.")
        not_numbers = [value for value in raw if not is_number(value)]
        if not_numbers:
            shown = ", ".join(f"“{_shown(value)}”" for value in not_numbers[:5])
            raise forms.ValidationError(f"These are not paper numbers: {shown}.")
        # A number no id column holds (0, past bigint, past int()'s digits) names no paper.
        keys = {value: parse_id(value) for value in raw}
        found = Paper.objects.only(*DISPLAY_TITLE_FIELDS).in_bulk(
            [key for key in keys.values() if key is not None]
        )
        missing = list(
            dict.fromkeys(_shown(value) for value, key in keys.items() if key not in found)
        )
        if missing:
            raise forms.ValidationError(f"No paper has the number {', '.join(missing[:5])}.")
        return [found[pk] for pk in dict.fromkeys(keys.values()) if pk is not None]

    def clean(self):
        cleaned = super().clean() or self.cleaned_data
        action = cleaned.get("action")
        try:
            cleaned["papers"] = self._clean_papers()
        except forms.ValidationError as error:
            self.add_error(None, error)
        if (
            action == "list"
            and not cleaned.get("reading_list")
            and "reading_list" not in self.errors
        ):
            self.add_error("reading_list", "Choose one of your reading lists.")
        if action == "status" and not cleaned.get("status") and "status" not in self.errors:
            self.add_error("status", "Choose a reading status.")
        if action == "tag":
            tag_form = LabTagForm({"name": cleaned.get("tag", "")})
            if tag_form.is_valid():
                cleaned["tag"] = tag_form.cleaned_data["name"]
            else:
                self.add_error("tag", tag_form.errors["name"])
        return cleaned


class LinkToListForm(AddPaperForm):
    """The results' "Add by link" box: one paper, by its link (or anything a reading list's
    "Add paper" box takes), put on one of the owner's lists; the selected results play no
    part. A paper not yet here comes back as the link typed (AddPaperForm), to be fetched."""

    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, member=owner, **kwargs)
        self.fields["reading_list"] = own_list_field(owner)
