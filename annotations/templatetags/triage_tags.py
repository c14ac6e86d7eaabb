"""The logged-in member's triage state for a page of papers (see annotations/triage.py).

Templates of the catalogue (papers/) load this library: `papers` never imports `annotations`,
so the member's lists and items reach a page of results through the template, not the view.
"""

from __future__ import annotations

from django import template

from annotations import triage

register = template.Library()


@register.simple_tag(takes_context=True)
def triage_state(context, papers) -> triage.TriageState | None:
    """`{% triage_state papers as triage %}`: two queries for the whole page (the member's
    lists, their items for these papers), none for an anonymous visitor.

    Each paper gets its own state as `paper.triage`, which annotations/_triage.html reads:
    the result templates include it per paper, and an include cannot see variables set
    elsewhere, but it sees the paper it is given.
    """
    user = context["request"].user
    if not user.is_authenticated:
        return None
    return triage.attach_triage_state(user, papers)


@register.simple_tag
def triage_paper(paper, reading_lists) -> triage.TriageState:
    """`{% triage_paper paper reading_lists as triage %}` on the paper page: its state from the
    member's lists the panel already read (selectors.lists_with_paper), as `paper.triage`."""
    state = triage.paper_state(reading_lists, paper.pk)
    paper.triage = state.for_paper(paper.pk)
    return state
