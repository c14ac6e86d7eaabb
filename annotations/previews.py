"""A comment's Markdown as one line of text, for the short previews of notifications and recent
activity: what the thread shows, without its formatting (no "**", "> " or "[text](url)";
a link is its text). Math stays between its dollars for the page's KaTeX, as in the thread; a
dollar that is not math is marked so KaTeX leaves it (as render_markdown marks it)."""

from __future__ import annotations

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator
from markdown_it.token import Token

from annotations.markdown import parse_markdown
from papers.latex import LITERAL_DOLLAR

_MATH = {
    "math_inline": "${}$",
    "math_inline_double": "$${}$$",
    "math_block": "$${}$$",
}
_VERBATIM = {"text", "code_inline", "code_block", "fence"}
# A dollar that is not math, until the text is cut and escaped (a private-use character, which
# a member's text loses in a preview).
_LITERAL = "\ue000"


def _pieces(tokens: list[Token]):
    """(text, is_math) in reading order, a space between blocks and lines."""
    for token in tokens:
        if token.children:
            yield from _pieces(token.children)
        elif token.type in _MATH:
            yield _MATH[token.type].format(token.content), True
        elif token.type in _VERBATIM:
            yield token.content, False
        elif token.type in {"softbreak", "hardbreak"} or (token.block and token.nesting == -1):
            yield " ", False


def markdown_preview(markdown: str, length: int) -> SafeString:
    """The text of `markdown` on one line, cut to `length` characters with "…", escaped."""
    text = "".join(
        piece if math else piece.replace(_LITERAL, "").replace("$", _LITERAL)
        for piece, math in _pieces(parse_markdown(markdown))
    )
    cut = Truncator(" ".join(text.split())).chars(length)
    # escape() leaves the private-use stand-in alone; LITERAL_DOLLAR is our own markup.
    return mark_safe(escape(cut).replace(_LITERAL, LITERAL_DOLLAR))  # noqa: S308
