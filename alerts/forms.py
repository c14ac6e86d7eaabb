from __future__ import annotations

from django import forms

from alerts.models import MAX_NAME, SavedSearch
from alerts.queries import QueryError, normalise_query
from papers.text import has_visible_character, paper_text_problem


def _clean_name(form: forms.Form, owner, exclude_pk: int | None = None) -> str:
    name = " ".join(form.cleaned_data["name"].split())
    # Zero-width spaces alone would make a row on /searches/ with no name to click.
    if not has_visible_character(name):
        raise forms.ValidationError("Give the search a name.")
    # Shown in the digest e-mail and on /searches/: no override reorders it there.
    if problem := paper_text_problem("The name", name):
        raise forms.ValidationError(f"{problem}.")
    taken = SavedSearch.objects.filter(owner=owner, name__iexact=name)
    if exclude_pk is not None:
        taken = taken.exclude(pk=exclude_pk)
    if taken.exists():
        raise forms.ValidationError(f"You already have a saved search called “{name}”.")
    return name


class SaveSearchForm(forms.Form):
    name = forms.CharField(max_length=MAX_NAME, strip=True)
    # The list page's query string as the page had it; normalised in clean_query.
    query = forms.CharField(required=False, strip=False)

    def __init__(self, *args, owner, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.owner = owner
        self.ignored: list[str] = []

    def clean_name(self) -> str:
        return _clean_name(self, self.owner)

    def clean_query(self) -> str:
        try:
            normalised = normalise_query(self.cleaned_data.get("query", ""), self.owner)
        except QueryError as error:
            raise forms.ValidationError(str(error)) from error
        self.ignored = normalised.ignored
        return normalised.query


class RenameForm(forms.Form):
    name = forms.CharField(max_length=MAX_NAME, strip=True)

    def __init__(self, *args, search: SavedSearch, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.search = search

    def clean_name(self) -> str:
        return _clean_name(self, self.search.owner, exclude_pk=self.search.pk)
