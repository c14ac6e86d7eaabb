"""Safe Markdown for notes and comments: a small CommonMark subset, never raw HTML.

Raw HTML is disabled (it is shown as text), images are off (no tracking pixels), links keep
only http, https and mailto targets and get rel="nofollow noopener". In comments an
@username of an existing active member becomes <span class="mention">@username</span>.
Math ($...$, $$...$$) is kept out of Markdown's hands (mdit-py-plugins' dollarmath: `*`, `_`
and backslashes inside it stay as written) and written back escaped between its dollars, for
KaTeX to typeset in the page (static/js/math.js, on elements marked data-math).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlsplit

from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin

from papers.latex import LITERAL_DOLLAR

ALLOWED_LINK_SCHEMES = frozenset({"http", "https", "mailto"})


def _is_allowed_link(url: str) -> bool:
    try:
        scheme = urlsplit(url.strip()).scheme.lower()
    except ValueError:
        return False
    return scheme in ALLOWED_LINK_SCHEMES


# An @ that does not continue a word or an e-mail address, then a username (Django's own
# characters) that ends on a letter or digit, so "thanks @bob." mentions bob.
MENTION = re.compile(r"(?<![\w@.+-])@([\w.@+-]*\w)")


def _render_mention(renderer, tokens, idx, options, env):
    return f'<span class="mention">@{escapeHtml(tokens[idx].content)}</span>'


def _plain_text_tokens(tokens: list[Token]):
    """Text tokens outside links and code, where a mention may be."""
    for block in tokens:
        if block.type != "inline" or not block.children:
            continue
        in_link = 0
        for token in block.children:
            in_link += {"link_open": 1, "link_close": -1}.get(token.type, 0)
            if token.type == "text" and not in_link:
                yield token


def _split_mentions(token: Token, known: set[str]) -> list[Token]:
    pieces: list[Token] = []
    start = 0
    for match in MENTION.finditer(token.content):
        if match.group(1) not in known:
            continue
        pieces.append(Token("text", "", 0, content=token.content[start : match.start()]))
        pieces.append(Token("mention", "", 0, content=match.group(1)))
        start = match.end()
    pieces.append(Token("text", "", 0, content=token.content[start:]))
    return [piece for piece in pieces if piece.type == "mention" or piece.content]


def _link_mentions(tokens: list[Token], mentionable: Callable[[set[str]], set[str]]) -> None:
    texts = list(_plain_text_tokens(tokens))
    names = {name for token in texts for name in MENTION.findall(token.content)}
    known = mentionable(names) if names else set()
    if not known:
        return
    outside_links = {id(token) for token in texts}  # Tokens compare equal by content.
    for block in tokens:
        if block.type == "inline" and block.children:
            children: list[Token] = []
            for token in block.children:
                if id(token) in outside_links:
                    children.extend(_split_mentions(token, known))
                else:
                    children.append(token)
            block.children = children


_LATEX_DELIMITERS = {"(": ("\\)", "math_inline"), "[": ("\\]", "math_inline_double")}


def _latex_math(state, silent: bool) -> bool:
    """\\(...\\) and \\[...\\], as LaTeX writes math, are math like $...$ and $$...$$, not
    Markdown escapes of the brackets. An opener without its closer stays an escape. Linear: a
    search for a closer that found none is remembered (a thousand unclosed \\( cost one)."""
    src, pos = state.src, state.pos
    if src[pos : pos + 1] != "\\" or src[pos + 1 : pos + 2] not in _LATEX_DELIMITERS:
        return False
    closer, kind = _LATEX_DELIMITERS[src[pos + 1]]
    # Per paragraph (each is parsed on its own, the env is the document's).
    missing = state.env.setdefault("latex_closers_missing_after", {}).setdefault(src, {})
    if missing.get(closer, len(src)) <= pos:
        return False
    end = src.find(closer, pos + 2)
    if end == -1:
        missing[closer] = pos
        return False
    if not silent:
        token = state.push(kind, "math", 0)
        token.content = src[pos + 2 : end]
        token.markup = src[pos : pos + 2]
    state.pos = end + 2
    return True


def _render_text(renderer, tokens, idx, options, env):
    # A dollar the parser left as text ("$5 and $10", an escaped \$) is marked so that the page's
    # math.js, which pairs any two dollars in a text node, leaves it as a dollar.
    return escapeHtml(tokens[idx].content).replace("$", LITERAL_DOLLAR)


def _render_inline_math(renderer, tokens, idx, options, env):
    return escapeHtml(f"${tokens[idx].content}$")


def _render_display_math(renderer, tokens, idx, options, env):
    return f'<div class="math-display">{escapeHtml(f"$${tokens[idx].content}$$")}</div>\n'


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
    # "$5 and $10" is money, not math: a closing dollar followed by a digit does not close,
    # nor one after a space ("$10, or $3 each; $n$": Pandoc's rule), nor an opening one before.
    md.use(
        dollarmath_plugin,
        allow_labels=False,
        allow_space=False,
        allow_digits=False,
        allow_blank_lines=False,
        double_inline=True,
    )
    md.inline.ruler.before("escape", "latex_math", _latex_math)
    md.add_render_rule("text", _render_text)
    md.add_render_rule("math_inline", _render_inline_math)
    md.add_render_rule("math_inline_double", _render_display_math)
    md.add_render_rule("math_block", _render_display_math)
    md.add_render_rule("link_open", _render_link_open)
    md.add_render_rule("mention", _render_mention)
    return md


_PARSER = _build_parser()


def parse_markdown(text: str) -> list[Token]:
    """The tokens render_markdown renders (annotations.previews reads them as text)."""
    return _PARSER.parse(text or "", {})


def render_markdown(
    text: str, *, mentionable: Callable[[set[str]], set[str]] | None = None
) -> SafeString:
    """`mentionable` gets the @names written in the text and returns those that are members;
    only those become mentions (without it, or for unknown names, the text stays as written)."""
    env: dict = {}
    tokens = _PARSER.parse(text or "", env)
    if mentionable is not None:
        _link_mentions(tokens, mentionable)
    # The renderer escapes all text and attribute values itself (mentions included) and emits
    # no raw HTML (html=False), so its output is safe by construction; this is not user input
    # marked safe.
    return mark_safe(_PARSER.renderer.render(tokens, _PARSER.options, env))  # noqa: S308
