"""Template helpers for annotations: the paper-page panel.

Notes and comments are shown through their stored `body_rendered` (rendered once on save).
"""

from __future__ import annotations

from django import template

from annotations.panel import panel_context

register = template.Library()


@register.inclusion_tag("annotations/_panel.html", takes_context=True)
def paper_panel(context, paper):
    return panel_context(context["request"], paper)
