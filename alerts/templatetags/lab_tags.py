"""{% lab_readers paper %}: who in the lab has the paper in a shared reading list."""

from django import template

from alerts.lab import lab_readers as readers_of

register = template.Library()


@register.inclusion_tag("alerts/_lab_readers.html", takes_context=True)
def lab_readers(context, paper) -> dict:
    """Members only (shared lists are the lab's, not the public's); one query."""
    user = context.get("user")
    if user is None or not user.is_authenticated:
        return {"readers": []}
    return {"readers": readers_of(paper)}
