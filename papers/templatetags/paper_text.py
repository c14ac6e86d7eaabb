"""Template filters for showing catalogue text: LaTeX-flavoured abstracts and outside links."""

from __future__ import annotations

from urllib.parse import urlsplit

from django import template
from django.utils.safestring import SafeString

from papers.latex import render_latex_text

register = template.Library()


@register.filter
def latex(text: str) -> SafeString:
    """Abstract as HTML paragraphs: text-mode LaTeX rendered, math left for KaTeX."""
    return render_latex_text(text or "")


@register.filter
def web_url(url: str) -> str:
    """The URL if it is an http(s) address, else "" (a `javascript:` link is never rendered)."""
    url = (url or "").strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if parts.scheme.lower() in {"http", "https"} and parts.netloc:
        return url
    return ""
