"""Member input for highlights, checked strictly: bounded whole numbers, lengths counted in
code points, no bidirectional reordering characters (as for comments). The reader posts these
forms as `application/x-www-form-urlencoded`; their errors go back as JSON (views)."""

from __future__ import annotations

import html

from django import forms

from highlights.models import (
    CONTEXT_MAX_LENGTH,
    EXACT_MAX_LENGTH,
    NOTE_MAX_LENGTH,
    PAGE_MAX,
    POSITION_MAX,
    HighlightVisibility,
)
from papers.numbers import bounded_int
from papers.text import has_visible_character, paper_text_problem
from pdfs.pages import StoredPages

# The reader counts positions in PDF.js's text of a page; the stored text is pypdf's. They differ
# in spaces and line breaks, not in the words, so a position up to twice the stored page's
# length, and a line more, may be the reader's; one past that is on no page of this file.
POSITION_ROOM_FACTOR = 2
POSITION_ROOM_EXTRA = 200


class BoundedIntField(forms.CharField):
    """A whole number from `low` to `high` in ASCII digits only (papers.numbers.bounded_int):
    Django's IntegerField would also read "+3", " 3" or other scripts' digits."""

    def __init__(self, *, low: int, high: int, **kwargs):
        super().__init__(**kwargs)
        self.low, self.high = low, high

    def clean(self, value):
        raw = super().clean(value)
        if raw == "" and not self.required:
            return None
        number = bounded_int(raw, low=self.low, high=self.high)
        if number is None:
            raise forms.ValidationError(
                f"Give a whole number from {self.low:,} to {self.high:,}.", code="bounds"
            )
        return number


def _refuse_reordering(label: str, text: str) -> None:
    if problem := paper_text_problem(label, text):
        raise forms.ValidationError(f"{problem}.")


class _Selectors(forms.Form):
    """Where a quote is: its page, its place in the page's text and the text either side.
    `pages`, the stored PDF's (pdfs.pages) when known, bounds the page and the positions."""

    def __init__(self, *args, pages: StoredPages | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.pages = pages

    page = BoundedIntField(low=1, high=PAGE_MAX)
    start = BoundedIntField(low=0, high=POSITION_MAX)
    end = BoundedIntField(low=1, high=POSITION_MAX)
    # The contract's field name: the form class holds no `prefix` attribute of its own once
    # Django's metaclass has taken the fields out (form.prefix stays None).
    prefix = forms.CharField(  # type: ignore[assignment]
        max_length=CONTEXT_MAX_LENGTH, required=False, strip=False
    )
    suffix = forms.CharField(max_length=CONTEXT_MAX_LENGTH, required=False, strip=False)

    def clean_prefix(self) -> str:
        _refuse_reordering("The text before the quote", self.cleaned_data["prefix"])
        return self.cleaned_data["prefix"]

    def clean_suffix(self) -> str:
        _refuse_reordering("The text after the quote", self.cleaned_data["suffix"])
        return self.cleaned_data["suffix"]

    def clean_page(self) -> int:
        page = self.cleaned_data["page"]
        count = self.pages.count if self.pages else None
        if count is not None and page is not None and page > count:
            raise forms.ValidationError(
                f"This PDF has {count:,} pages: give a page from 1 to {count:,}.", code="page"
            )
        return page

    def check_place(self) -> None:
        """The positions must fit in the stored page's text (loosely: POSITION_ROOM_FACTOR)."""
        page, end = self.cleaned_data.get("page"), self.cleaned_data.get("end")
        if self.pages is None or page is None or end is None:
            return
        length = self.pages.text_length(page)
        if not length:  # not read whole, or no text pypdf could read: nothing to compare
            return
        room = POSITION_ROOM_FACTOR * length + POSITION_ROOM_EXTRA
        if end > room:
            self.add_error(
                "end",
                f"Page {page:,} of this PDF holds about {length:,} characters: a quote ending "
                f"at {end:,} is not on it.",
            )

    def check_span(self, exact: str) -> None:
        """`start`..`end` must hold `exact`: as many code points as the quote has."""
        start, end = self.cleaned_data.get("start"), self.cleaned_data.get("end")
        if start is None or end is None or not exact:
            return
        if end <= start:
            self.add_error("end", "The end must come after the start.")
        elif end - start != len(exact):
            self.add_error(
                "end",
                f"From start to end there are {end - start:,} characters but the quote has "
                f"{len(exact):,}: both count code points of the page's text.",
            )


def _clean_note(note: str) -> str:
    # Markdown turns character references into characters: read the note as it will show.
    _refuse_reordering("The note", html.unescape(note))
    return note


class HighlightForm(_Selectors):
    """A new highlight. `visibility` left out means the member's remembered default."""

    exact = forms.CharField(max_length=EXACT_MAX_LENGTH, strip=False)
    note = forms.CharField(max_length=NOTE_MAX_LENGTH, required=False)
    visibility = forms.ChoiceField(choices=HighlightVisibility.choices, required=False)

    def clean_exact(self) -> str:
        exact = self.cleaned_data["exact"]
        if not has_visible_character(exact):
            raise forms.ValidationError("Select some text: the quote shows nothing.")
        _refuse_reordering("The quote", exact)
        return exact

    def clean_note(self) -> str:
        return _clean_note(self.cleaned_data["note"])

    def clean(self):
        cleaned = super().clean()
        self.check_span(self.cleaned_data.get("exact", ""))
        self.check_place()
        return cleaned


class HighlightEditForm(forms.Form):
    """A highlight's note and visibility; a field not posted stays as it is."""

    note = forms.CharField(max_length=NOTE_MAX_LENGTH, required=False)
    visibility = forms.ChoiceField(choices=HighlightVisibility.choices, required=False)

    def clean_note(self) -> str:
        return _clean_note(self.cleaned_data["note"])

    def changes(self) -> dict[str, str]:
        return {
            name: self.cleaned_data[name] for name in ("note", "visibility") if name in self.data
        }


class AnchorForm(_Selectors):
    """Where the reader found a highlight again, or `orphaned=1` when it could not."""

    def __init__(self, *args, exact: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.exact = exact
        self.orphaned = self.data.get("orphaned") == "1"
        if self.orphaned:
            for field in self.fields.values():
                field.required = False

    def clean(self):
        cleaned = super().clean()
        if not self.orphaned:
            self.check_span(self.exact)
            self.check_place()
        return cleaned


def errors_of(form: forms.Form) -> dict[str, list[str]]:
    return {
        field: [str(message) for message in messages] for field, messages in form.errors.items()
    }
