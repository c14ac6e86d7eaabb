"""Template helpers for annotations: the paper-page panel and safe Markdown."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from annotations.markdown import render_markdown
from annotations.panel import panel_context

register = template.Library()


@register.inclusion_tag("annotations/_panel.html", takes_context=True)
def paper_panel(context, paper):
    return panel_context(context["request"], paper)


@register.filter(name="markdown")
def markdown_filter(text: str) -> SafeString:
    return render_markdown(text)
