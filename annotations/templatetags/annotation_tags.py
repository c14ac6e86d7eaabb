"""Template helpers for annotations: the paper-page panel.

Notes and comments are shown through their stored `body_rendered` (rendered once on save).
"""

from __future__ import annotations

from django import template
from django.utils.html import format_html_join

from annotations.panel import panel_context
from annotations.previews import markdown_preview
from papers.navigation import results_context

register = template.Library()


@register.inclusion_tag("annotations/_panel.html", takes_context=True)
def paper_panel(context, paper):
    return panel_context(context["request"], paper)


@register.filter
def as_preview(markdown: str, length: int = 200):
    """A comment's Markdown as one line of text (annotations.previews)."""
    return markdown_preview(markdown, int(length))


@register.simple_tag(takes_context=True)
def results_context_fields(context) -> str:
    """Hidden `from` and `at` inputs for a paper-page form: the page's own (a GET), or those
    the form posted when its section is re-rendered (htmx). Without JavaScript the view's
    redirect puts them back on the paper page (views.common.finish), keeping "Back to
    results" and previous/next."""
    request = context["request"]
    params = results_context(request.POST if request.method == "POST" else request.GET)
    return format_html_join("", '<input type="hidden" name="{}" value="{}">', params.items())
