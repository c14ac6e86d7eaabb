"""Forms for every annotation POST; they normalise input and own the validation messages."""

from __future__ import annotations

import html
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm
from django.contrib.auth.models import AnonymousUser, User
from django.urls import reverse_lazy

from annotations.anchors import Anchor, anchor_problem, context_of, locate, plain_text
from annotations.models import Comment, Note, Priority, ReadingList, ReadingStatus
from papers.models import Paper
from papers.numbers import bounded_int, parse_id
from papers.sources.single import LookupFailed, identifier_in
from papers.suggest import identifier_lookups, papers_titled
from papers.tags.identity import normalize_tag_name, tag_name_problem
from papers.text import MAX_TITLE, has_visible_character, paper_text_problem

TAG_NAME_MAX_LENGTH = 50
# Past any abstract: a larger quote start is no hint where the quote is.
MAX_QUOTE_START = 999_999_999


def _focus_body_when_editing(form: forms.ModelForm) -> None:
    """Editing a saved note or comment (its own page, or swapped in place by htmx, which
    focuses [autofocus]): the keyboard lands in its text, not back at the top of the page."""
    if form.instance.pk is not None:
        form.fields["body"].widget.attrs["autofocus"] = True


def _refuse_reordering(what: str, text: str) -> None:
    """Member text, held to the rule of paper titles: a right-to-left override (U+202E) before
    "gnp.exe" shows it as "exe.png". Refused with an error, never stripped: what a member
    typed is theirs to correct."""
    if problem := paper_text_problem(what, text):
        raise forms.ValidationError(f"{problem}.")


def _clean_visible_body(form: forms.ModelForm, what: str) -> str:
    """A note or comment of zero-width spaces or blank fillers would be saved and shown as an
    empty box; Django's required check only strips ordinary whitespace. Markdown turns
    character references into characters ("&#8203;" shows nothing either, "&#8238;" is an
    override): read as shown."""
    body = form.cleaned_data["body"]
    shown = html.unescape(body)
    if not has_visible_character(shown):
        raise forms.ValidationError(f"{what} needs at least one visible character.")
    _refuse_reordering(what, shown)
    return body


class NoteForm(forms.ModelForm):
    class Meta:
        model = Note
        fields = ["body"]
        widgets = {"body": forms.Textarea(attrs={"rows": 4})}
        labels = {"body": "Note"}
        help_texts = {"body": "Plain text or Markdown (links, emphasis, lists, code)."}

    def __init__(self, *args, **kwargs):
        # The paper page shows the note and comment forms together: keep their ids apart.
        kwargs.setdefault("auto_id", "note_%s")
        super().__init__(*args, **kwargs)
        _focus_body_when_editing(self)

    def clean_body(self) -> str:
        return _clean_visible_body(self, "A note")


class CommentForm(forms.ModelForm):
    """A comment's text. Given the paper (when posting), the POST's `parent` (the comment
    replied to, sent by a hidden input the template writes) is checked into `self.parent`, and
    its `quote`, `quote_prefix`, `quote_suffix` and `quote_start` (filled in by
    static/js/anchors.js when the member comments on a selection of the abstract) into
    `self.anchor`: the quote must occur in the abstract's plain text; the prefix, suffix and
    start stored are the server's own, taken around the occurrence found. An edit (no paper)
    never reads or changes an anchor."""

    class Meta:
        model = Comment
        fields = ["body"]
        widgets = {"body": forms.Textarea(attrs={"rows": 3})}
        labels = {"body": "Comment"}
        help_texts = {"body": "Markdown; @username lets that member know."}

    def __init__(self, *args, paper: Paper | None = None, **kwargs):
        kwargs.setdefault("auto_id", "comment_%s")
        super().__init__(*args, **kwargs)
        _focus_body_when_editing(self)
        self.paper = paper
        self.parent: Comment | None = None
        self.anchor: Anchor | None = None

    def clean_body(self) -> str:
        return _clean_visible_body(self, "A comment")

    def clean(self):
        cleaned = super().clean()
        if self.paper is not None:
            self._clean_parent()
            self._clean_anchor()
        return cleaned

    def _clean_parent(self) -> None:
        raw = (self.data.get("parent") or "").strip()
        if self.paper is not None and raw:
            parent: Comment | None = None
            if (pk := parse_id(raw)) is not None:
                parent = Comment.objects.filter(paper=self.paper, pk=pk).first()
            if parent is None:
                raise forms.ValidationError("The comment you replied to is not on this paper.")
            if parent.is_removed:
                raise forms.ValidationError("That comment was removed; it takes no more replies.")
            self.parent = parent

    def _clean_anchor(self) -> None:
        def posted(name: str) -> str:
            # Form submission may turn line breaks into CRLF; the plain text has "\n" only.
            return (self.data.get(name) or "").replace("\r\n", "\n").replace("\r", "\n")

        quote = posted("quote")
        if not quote or self.paper is None:
            return
        if self.parent is not None or (self.data.get("parent") or "").strip():
            raise forms.ValidationError(
                "A reply cannot quote the abstract: quote it in a new comment instead."
            )
        raw_start = (self.data.get("quote_start") or "").strip()
        hint = bounded_int(raw_start, low=0, high=MAX_QUOTE_START)
        anchor = Anchor(quote, posted("quote_prefix"), posted("quote_suffix"), hint)
        problem = anchor_problem(anchor)
        if problem:
            raise forms.ValidationError(problem)
        text = plain_text(self.paper.abstract)
        start = locate(text, anchor)
        if start is None:
            raise forms.ValidationError(
                "The quoted text is not in this paper's abstract (it may just have been "
                "edited): select it again, or remove the quote."
            )
        prefix, suffix = context_of(text, start, quote)
        self.anchor = Anchor(quote, prefix, suffix, start)


def _clean_list_name(name: str, *, owner, exclude_pk: int | None = None) -> str:
    name = " ".join(name.split())
    # Zero-width spaces or blank fillers alone: a name the lab would see as nothing, a link
    # with no text to click.
    if not has_visible_character(name):
        raise forms.ValidationError("The name needs at least one visible character.")
    # A shared list's name is shown inline to the lab, as a paper's title is.
    _refuse_reordering("The name", name)
    duplicates = ReadingList.objects.filter(owner=owner, name__iexact=name)
    if exclude_pk is not None:
        duplicates = duplicates.exclude(pk=exclude_pk)
    if duplicates.exists():
        raise forms.ValidationError(f"You already have a list called “{name}”.")
    return name


class MemberChoices(forms.ModelMultipleChoiceField):
    """Members by id; an id no row can have (past bigint, not a number) is a form error, not a
    lookup that fails in the database."""

    def clean(self, value):
        if value and any(parse_id(str(each)) is None for each in value):
            raise forms.ValidationError("Choose members of the lab.", code="invalid_choice")
        return super().clean(value)


class ReadingListForm(forms.ModelForm):
    class Meta:
        model = ReadingList
        fields = ["name", "description", "visibility", "editors", "is_default"]
        widgets = {
            "description": forms.Textarea(attrs={"rows": 3}),
            "visibility": forms.RadioSelect,
            "editors": forms.CheckboxSelectMultiple,
        }
        field_classes = {"editors": MemberChoices}
        labels = {"visibility": "Sharing"}
        # Notes and comments are Markdown; a description is shown as typed.
        help_texts = {"description": "Plain text, shown as typed (line breaks kept)."}

    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, **kwargs)
        self.owner = owner
        editors = self.fields["editors"]
        editors.queryset = (  # type: ignore[attr-defined]
            get_user_model()
            .objects.filter(is_active=True)
            .exclude(pk=owner.pk)
            .order_by("username")
        )
        editors.help_text = "Who may edit the list when its sharing is “Named editors”."

    def clean_name(self) -> str:
        return _clean_list_name(
            self.cleaned_data["name"], owner=self.owner, exclude_pk=self.instance.pk
        )

    def clean_description(self) -> str:
        # A shared list's description is shown to the lab, as its name is.
        description = self.cleaned_data["description"]
        _refuse_reordering("The description", description)
        return description


class AddToListForm(forms.Form):
    """From the paper page: pick one of your lists, or name a new one."""

    reading_list = forms.IntegerField(required=False)
    new_list_name = forms.CharField(required=False, max_length=100)

    def __init__(self, *args, owner, **kwargs):
        super().__init__(*args, **kwargs)
        self.owner = owner

    def clean_reading_list(self) -> ReadingList | None:
        pk = self.cleaned_data["reading_list"]
        if pk is None:
            return None
        reading_list = ReadingList.objects.filter(owner=self.owner, pk=pk).first()
        if reading_list is None:
            raise forms.ValidationError("That reading list does not exist.")
        return reading_list

    def clean_new_list_name(self) -> str:
        name = self.cleaned_data["new_list_name"]
        return _clean_list_name(name, owner=self.owner) if name.strip() else ""

    def clean(self):
        cleaned = super().clean() or self.cleaned_data
        if not self.errors and not cleaned.get("reading_list") and not cleaned.get("new_list_name"):
            raise forms.ValidationError("Choose a reading list or name a new one.")
        return cleaned


class AddPaperForm(forms.Form):
    """From the list page: a paper number, OpenReview forum id or URL, arXiv id or link or DOI,
    or the title of exactly one paper (typed in full, case aside). With JavaScript the box
    suggests papers as one types (static/js/suggest.js) and picking one fills in its number.

    Given the `member` adding it, a link or identifier of a paper not yet in the catalogue is
    accepted as it was typed (a str in cleaned_data["paper"], not a Paper): the view queues its
    fetch with the list addition (services.add_to_list_by_link). Nothing is fetched here."""

    paper = forms.CharField(
        max_length=MAX_TITLE,
        label="Paper",
        help_text=(
            "Its title or paper number, or a link or id from arXiv, OpenReview or a DOI: a "
            "paper not yet here is fetched and added."
        ),
        widget=forms.TextInput(
            attrs={
                "autocomplete": "off",
                "data-suggest-url": reverse_lazy("papers:suggest"),
                "data-suggest-action": "fill",
            }
        ),
    )

    def __init__(self, *args, member: User | AnonymousUser | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.member = member

    def clean_paper(self) -> Paper | str:
        raw = self.cleaned_data["paper"].strip()
        for lookup in identifier_lookups(raw):
            paper = Paper.objects.filter(lookup).first()
            if paper is not None:
                return paper
        titled = papers_titled(raw, limit=2)  # two are enough to know it is ambiguous
        if len(titled) == 1:
            return titled[0]
        if titled:
            raise forms.ValidationError(
                f"Several papers are titled “{raw}”. Pick one from the suggestions."
            )
        if self.member is not None:
            try:
                if identifier_in(raw) is not None:
                    return raw
            except LookupFailed as error:
                raise forms.ValidationError(error.message) from None
        raise forms.ValidationError(f"No paper matches “{raw}”. Pick one from the suggestions.")


class ItemStatusForm(forms.Form):
    # Also the list page's menus (annotations.views.lists).
    PRIORITY_CHOICES = [("", "No priority"), *Priority.choices]

    status = forms.ChoiceField(choices=ReadingStatus.choices)
    priority = forms.TypedChoiceField(
        choices=PRIORITY_CHOICES,
        coerce=int,
        required=False,
        empty_value=None,
    )


class MoveItemForm(forms.Form):
    """Up or down one place (the keyboard's buttons), or to a position counted from 0 (a drop
    after a drag, static/js/list_drag.js)."""

    direction = forms.ChoiceField(choices=[("up", "Up"), ("down", "Down")], required=False)
    position = forms.IntegerField(min_value=0, max_value=100_000, required=False)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not cleaned.get("direction") and cleaned.get("position") is None:
            raise forms.ValidationError("Unknown direction: use up or down.")
        return cleaned


class LabTagForm(forms.Form):
    name = forms.CharField(max_length=TAG_NAME_MAX_LENGTH, label="Lab tag")

    def clean_name(self) -> str:
        problem = tag_name_problem(self.cleaned_data["name"])
        if problem:
            raise forms.ValidationError(problem)
        return normalize_tag_name(self.cleaned_data["name"])


class SignupForm(UserCreationForm):
    email = forms.EmailField(required=True, help_text="Used only for password resets.")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def clean_username(self) -> str:
        username = super().clean_username()  # None when taken (the error is already added)
        # Django's validator takes any letter, and a Hangul filler (U+3164) is one: a member
        # shown to the lab by a blank name, on every comment, whom no @mention can reach.
        if username is not None and not has_visible_character(username):
            raise forms.ValidationError("A username needs at least one visible character.")
        return username


class SitePasswordResetForm(PasswordResetForm):
    """Reset links point at settings.SITE_URL, never at the Host header of the request.

    Django's form builds the link from the request's host and scheme: anyone can send a reset
    request with a Host of their choosing (within ALLOWED_HOSTS, or a port of their choosing),
    and the member's mail would carry a link to it.
    """

    def save(self, *args: Any, **kwargs: Any) -> None:
        # Django's PasswordResetView passes every argument by keyword.
        site = urlsplit(settings.SITE_URL)
        kwargs["domain_override"] = site.netloc
        kwargs["use_https"] = site.scheme == "https"
        kwargs["extra_email_context"] = {
            **(kwargs.get("extra_email_context") or {}),
            "site_name": settings.SITE_NAME,
        }
        super().save(*args, **kwargs)
