"""Forms of shared lists and suggestions: an item's note, a suggestion, its acceptance."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model

from annotations.models import (
    ITEM_NOTE_MAX_LENGTH,
    SUGGESTION_REASON_MAX_LENGTH,
    ReadingList,
    ReadingStatus,
)
from annotations.selectors import editable_lists


class ItemNoteForm(forms.Form):
    note = forms.CharField(
        required=False,
        max_length=ITEM_NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 2}),
        strip=True,
    )


class MemberStatusForm(forms.Form):
    """A member's own status on an item of a list they do not own (the owner's form also sets
    a priority: ItemStatusForm)."""

    status = forms.ChoiceField(choices=ReadingStatus.choices)


class SuggestForm(forms.Form):
    """Suggest a paper to one colleague: any other active member, named by username."""

    recipient = forms.ModelChoiceField(
        queryset=get_user_model().objects.none(),
        to_field_name="username",
        label="Suggest to",
        error_messages={"invalid_choice": "Choose a member of the lab."},
    )
    reason = forms.CharField(
        required=False,
        max_length=SUGGESTION_REASON_MAX_LENGTH,
        label="Why",
        widget=forms.Textarea(attrs={"rows": 2}),
    )

    def __init__(self, *args, sender, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["recipient"].queryset = (  # type: ignore[attr-defined]
            get_user_model()
            .objects.filter(is_active=True)
            .exclude(pk=sender.pk)
            .order_by("username")
        )


class AcceptSuggestionForm(forms.Form):
    """Into one of the lists the recipient may edit: theirs, or one the lab or they edit."""

    reading_list: forms.ModelChoiceField = forms.ModelChoiceField(
        queryset=ReadingList.objects.none(), label="Into"
    )

    def __init__(self, *args, member, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["reading_list"].queryset = (  # type: ignore[attr-defined]
            editable_lists(member).select_related("owner").order_by("name", "pk")
        )
