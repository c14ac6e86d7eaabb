"""`{{ text|markdown }}`: text from a source (an OpenReview review) rendered when shown, with
the rules of members' notes and comments (annotations.markdown: the safe subset, math kept for
KaTeX). Members' own texts are rendered once, when saved (their models' body_html)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from annotations.markdown import render_markdown

register = template.Library()


@register.filter
def markdown(text: str) -> SafeString:
    return render_markdown(str(text))
