"""Safe Markdown for notes and comments: a small CommonMark subset, never raw HTML.

Raw HTML is disabled (it is shown as text), images are off (no tracking pixels), links keep
only http, https and mailto targets and get rel="nofollow noopener".
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

ALLOWED_LINK_SCHEMES = frozenset({"http", "https", "mailto"})


def _is_allowed_link(url: str) -> bool:
    try:
        scheme = urlsplit(url.strip()).scheme.lower()
    except ValueError:
        return False
    return scheme in ALLOWED_LINK_SCHEMES


def _render_link_open(renderer, tokens, idx, options, env):
    tokens[idx].attrSet("rel", "nofollow noopener")
    return renderer.renderToken(tokens, idx, options, env)


class _SafeMarkdownIt(MarkdownIt):
    def validateLink(self, url: str) -> bool:
        """Links whose target fails this check are left as literal text."""
        return _is_allowed_link(url)


def _build_parser() -> MarkdownIt:
    md = _SafeMarkdownIt("commonmark", {"html": False, "breaks": True, "linkify": False})
    md.disable(["image", "heading", "lheading", "html_block", "html_inline"])
    md.add_render_rule("link_open", _render_link_open)
    return md


_PARSER = _build_parser()


def render_markdown(text: str) -> SafeString:
    # The renderer escapes all text and attribute values itself and emits no raw HTML
    # (html=False), so its output is safe by construction; this is not user input marked safe.
    return mark_safe(_PARSER.render(text or ""))  # noqa: S308
