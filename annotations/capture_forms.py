"""The forms of the one-click capture (annotations.views.capture)."""

from __future__ import annotations

from django import forms

from annotations import capture
from annotations.models import ReadingList
from papers.models import Paper


class OwnListField(forms.ModelChoiceField):
    def label_from_instance(self, obj) -> str:
        return obj.name


def limit_to_own_lists(form: forms.Form, owner) -> None:
    field = form.fields["reading_list"]
    assert isinstance(field, OwnListField)
    field.queryset = ReadingList.objects.filter(owner=owner)


class CaptureForm(forms.Form):
    """The capture page's form: the paper (its identifier as the page named it, or a title-only
    page's match by number), the member's list, and the bookmarklet's key when it auto-submits."""

    link = forms.CharField(required=False, max_length=capture.MAX_SENT, widget=forms.HiddenInput)
    paper = forms.IntegerField(required=False, widget=forms.HiddenInput)
    reading_list = OwnListField(
        queryset=ReadingList.objects.none(), label="Add to", empty_label=None
    )
    key = forms.CharField(required=False, max_length=100, widget=forms.HiddenInput)

    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, **kwargs)
        limit_to_own_lists(self, owner)

    def clean_link(self) -> str:
        link = self.cleaned_data["link"]
        if not link:
            return ""
        asked = capture.asked_in({"url": link})
        if asked.problem or asked.identifier is None:
            raise forms.ValidationError(
                asked.problem or "That is no arXiv, OpenReview or DOI link."
            )
        return link

    def clean_paper(self) -> Paper | None:
        pk = self.cleaned_data["paper"]
        if pk is None:
            return None
        paper = Paper.objects.filter(pk=pk).first() if 0 < pk < 2**63 else None
        if paper is None:
            raise forms.ValidationError("That paper is not in the catalogue.")
        return paper

    def clean(self):
        cleaned = super().clean() or self.cleaned_data
        if not self.errors and not cleaned.get("link") and not cleaned.get("paper"):
            raise forms.ValidationError("Which paper? The capture names none.")
        return cleaned


class CaptureTargetForm(forms.Form):
    """The member's capture page: the list captured papers go to."""

    reading_list = OwnListField(
        queryset=ReadingList.objects.none(), label="Captured papers go to", empty_label=None
    )

    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, **kwargs)
        limit_to_own_lists(self, owner)
