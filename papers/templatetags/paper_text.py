"""Template filters for showing catalogue text: LaTeX-flavoured abstracts and outside links."""

from __future__ import annotations

from urllib.parse import urlsplit

from django import template
from django.utils.safestring import SafeString

from papers.latex import latex_to_plain_text, render_latex_inline, render_latex_text

register = template.Library()


@register.filter
def latex(text: str) -> SafeString:
    """Abstract as HTML paragraphs: text-mode LaTeX rendered, math left for KaTeX."""
    return render_latex_text(text or "")


@register.filter
def latex_inline(text: str) -> SafeString:
    """A title as one line of HTML: text-mode LaTeX rendered, math left for KaTeX (put it in an
    element marked data-math)."""
    return render_latex_inline(text or "")


@register.filter
def latex_plain(text: str) -> str:
    """A title as plain text, math as Unicode where it has one (else its source without the
    dollars): for the tab title and meta tags, where nothing is typeset. Not marked safe, so the
    template escapes it once."""
    return latex_to_plain_text(text or "")


_WEB_SCHEMES = ("https://", "http://")


def _is_plain_web_url(url: str) -> bool:
    """Whether urlsplit would find an http(s) scheme and a host in `url` without a doubt: a
    printable ASCII address (urlsplit drops tabs and line breaks, and refuses some brackets
    and non-ASCII hosts) starting with the lower-case scheme and a host character. An export
    asks this of every paper; urlsplit took a tenth of its time."""
    if not url.startswith(_WEB_SCHEMES) or not (url.isascii() and url.isprintable()):
        return False
    if "[" in url or "]" in url:
        return False
    host_start = url.index("//") + 2
    return url[host_start : host_start + 1] not in ("", "/", "?", "#")


@register.filter
def web_url(url: str) -> str:
    """The URL if it is an http(s) address, else "" (a `javascript:` link is never rendered)."""
    url = (url or "").strip()
    if _is_plain_web_url(url):  # nearly every link, seen without taking it apart
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return ""
    if parts.scheme.lower() in {"http", "https"} and parts.netloc:
        return url
    return ""


@register.filter
def forum_label(url: str) -> str:
    """What a paper's page link (`forum_url`) is, for its button: "OpenReview forum" on
    openreview.net, "arXiv page" on arxiv.org (the arXiv reader's abstract page), else "Paper
    page" (a proceedings page given as a CSV or JSON lines `url`)."""
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:
        return "Paper page"
    if host == "openreview.net" or host.endswith(".openreview.net"):
        return "OpenReview forum"
    if host == "arxiv.org" or host.endswith(".arxiv.org"):
        return "arXiv page"
    return "Paper page"
