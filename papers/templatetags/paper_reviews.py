"""The paper page's reviews section: `{% paper_reviews paper %}` (papers.reviews selects what
the reader may see)."""

from __future__ import annotations

from django import template

from papers.reviews import reviews_shown

register = template.Library()


@register.inclusion_tag("papers/_reviews.html", takes_context=True)
def paper_reviews(context, paper) -> dict:
    request = context.get("request")
    return {"reviews": reviews_shown(paper.pk, getattr(request, "user", None))}


@register.filter
def review_field(name: str) -> str:
    """A review form's field name as a heading: "justification_for_why_not_higher_score" ->
    "Justification for why not higher score"."""
    words = " ".join(str(name).replace("_", " ").split())
    return words[:1].upper() + words[1:]
