"""Forms of every POST of the reading groups' pages."""

from __future__ import annotations

import re
from datetime import datetime

from django import forms
from django.utils import timezone

from groups.models import AGENDA_MAX_LENGTH, NOTES_MAX_LENGTH, ReadingGroup, Rsvp, Session
from papers.identity import paper_merged_into
from papers.models import Paper

PAPERS_MAX = 10
# A paper named by its number or its page's address on this site (/papers/42/ or a full URL).
_PAPER_REF = re.compile(r"^(?:\S*/papers/)?(\d{1,12})/?(?:[?#]\S*)?$")


class GroupForm(forms.ModelForm):
    video_link = forms.URLField(
        required=False,
        assume_scheme="https",
        max_length=200,
        help_text="A video call's address, or blank.",
    )

    class Meta:
        model = ReadingGroup
        fields = [
            "name",
            "description",
            "usual_time",
            "place",
            "video_link",
            "time_zone",
            "session_minutes",
        ]
        labels = {"session_minutes": "Length of a session (minutes)"}


class ZonedDateTimeField(forms.DateTimeField):
    """A date and time entered in the group's zone (the `datetime-local` control's format)."""

    widget = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")

    def __init__(self, *args, zone=None, **kwargs) -> None:
        kwargs.setdefault("input_formats", ["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"])
        super().__init__(*args, **kwargs)
        self.zone = zone

    def to_python(self, value):
        with timezone.override(self.zone):  # made aware in the group's zone, not the site's
            return super().to_python(value)

    def prepare_value(self, value):
        if isinstance(value, datetime) and timezone.is_aware(value):
            return timezone.localtime(value, self.zone).strftime("%Y-%m-%dT%H:%M")
        return value


def _papers_from(text: str) -> list[Paper]:
    refs = text.replace(",", " ").split()
    if len(refs) > PAPERS_MAX:
        raise forms.ValidationError(f"At most {PAPERS_MAX} papers a session.")
    ids: list[int] = []
    for ref in refs:
        match = _PAPER_REF.match(ref)
        if match is None:
            raise forms.ValidationError(f"“{ref[:80]}” is not a paper number or address.")
        ids.append(int(match.group(1)))
    found = Paper.objects.defer("abstract").in_bulk(ids)
    papers: list[Paper] = []
    for pk in ids:
        paper = found.get(pk)
        if paper is None and (into := paper_merged_into(pk)) is not None:
            paper = Paper.objects.defer("abstract").filter(pk=into).first()
        if paper is None:
            raise forms.ValidationError(f"No paper number {pk} in the catalogue.")
        if paper not in papers:
            papers.append(paper)
    return papers


class SessionForm(forms.Form):
    starts_at = ZonedDateTimeField(label="Date and time")
    papers = forms.CharField(
        required=False,
        max_length=2_000,
        widget=forms.TextInput(attrs={"placeholder": "e.g. 42 or /papers/42/"}),
        help_text="Paper numbers or the papers' addresses on this site, separated by spaces.",
    )
    agenda = forms.CharField(
        required=False, max_length=AGENDA_MAX_LENGTH, widget=forms.Textarea(attrs={"rows": 3})
    )

    def __init__(self, *args, group: ReadingGroup, session: Session | None = None, **kwargs):
        if session is not None:
            kwargs.setdefault(
                "initial",
                {
                    "starts_at": session.starts_at,
                    "papers": " ".join(str(i.paper_id) for i in session.session_papers.all()),
                    "agenda": session.agenda,
                },
            )
        super().__init__(*args, **kwargs)
        starts_at = self.fields["starts_at"]
        assert isinstance(starts_at, ZonedDateTimeField)
        starts_at.zone = group.zone
        self.fields["starts_at"].help_text = f"In {group.time_zone}."
        if session is not None:  # editing: the presenter too (a new session's is the queue's)
            presenter: forms.ModelChoiceField = forms.ModelChoiceField(
                queryset=group.members.order_by("username"),
                required=False,
                empty_label="Nobody yet",
                initial=session.presenter_id,
            )
            presenter.label_from_instance = lambda user: user.get_username()  # type: ignore[method-assign,assignment]
            self.fields["presenter"] = presenter

    def clean_papers(self) -> list[Paper]:
        return _papers_from(self.cleaned_data["papers"])


class NotesForm(forms.Form):
    notes = forms.CharField(
        max_length=NOTES_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text="Markdown, with $math$ in LaTeX. Posted to each paper's discussion too.",
    )


class RsvpForm(forms.Form):
    answer = forms.ChoiceField(choices=Rsvp.Answer.choices)


class SwapForm(forms.Form):
    other: forms.ModelChoiceField = forms.ModelChoiceField(
        queryset=Session.objects.none(), label="Swap presenters with"
    )

    def __init__(self, *args, choices: list[Session], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["other"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = Session.objects.filter(pk__in=[s.pk for s in choices])
        presenters = {s.pk: s for s in choices}

        def label(session: Session) -> str:
            s = presenters.get(session.pk, session)
            who = s.presenter.get_username() if s.presenter else "nobody yet"
            return f"{s.local_start:%a %-d %b %H:%M} ({who})"

        field.label_from_instance = label  # type: ignore[method-assign,assignment]
