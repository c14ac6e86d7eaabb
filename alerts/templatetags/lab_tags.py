"""{% lab_readers paper %}: who in the lab has the paper in a shared reading list."""

from django import template

from accounts.roles import is_member
from alerts.lab import lab_readers as readers_of

register = template.Library()


@register.inclusion_tag("alerts/_lab_readers.html", takes_context=True)
def lab_readers(context, paper) -> dict:
    """Members only (shared lists are the lab's, not the public's nor a guest's); one query."""
    if not is_member(context.get("user")):
        return {"readers": []}
    return {"readers": readers_of(paper)}
