"""A listed paper's authors and tags as HTML, built in Python.

A page of 25 results names up to 250 authors and 75 tags: as template loops that is thousands
of nodes, a third of a listing's time under load (py-spy over `make load`). Each tag below
renders the same markup as the loop did, every value escaped by format_html.
"""

from __future__ import annotations

from django import template
from django.template.defaultfilters import pluralize
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.simple_tag
def listed_authors(paper) -> SafeString:
    """`<p class="authors">` with the paper's first authors (papers.listing), then "… and K
    more" linking to its page; nothing when it has no author."""
    authors = getattr(paper, "listed_authors", None)
    if not authors:
        return mark_safe("")  # noqa: S308 (empty)
    links = format_html_join(", ", '<a href="{}">{}</a>', ((a.url, a.name) for a in authors))
    more = getattr(paper, "more_authors", None)
    if not more:
        return format_html('<p class="authors">{}</p>', links)
    return format_html(
        '<p class="authors">{} <a class="more-authors" href="{}">… and {} more'
        '<span class="visually-hidden"> author{}</span></a></p>',
        links,
        paper.get_absolute_url(),
        more,
        pluralize(more),
    )


@register.simple_tag
def listed_tags(paper) -> SafeString:
    """`<ul class="tags">` with the paper's venue, track, area and lab tags (papers.listing);
    nothing when it has none."""
    tags = getattr(paper, "listed_tags", None)
    if not tags:
        return mark_safe("")  # noqa: S308 (empty)
    items = format_html_join(
        "",
        '<li class="tag tag-{}"><a href="{}">{}</a></li>',
        ((tag.kind, tag.url, tag.name) for tag in tags),
    )
    return format_html('<ul class="tags">{}</ul>', items)
