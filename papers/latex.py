"""Server-side pass over LaTeX-flavoured abstracts: text-mode commands become HTML, math stays.

Abstracts arrive with LaTeX in them. Math ($..$, $$..$$, \\(..\\), \\[..\\]) is left exactly as
written (HTML-escaped) for KaTeX to typeset in the browser; the text-mode commands KaTeX does
not handle (\\emph{}, \\%, \\citep{}, ``quotes'', ~) are turned into HTML here.

The order matters for safety: math segments and literal characters are set aside first, the rest
is HTML-escaped, and only then are commands rewritten, so no input can produce markup of its own.
"""

from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

# A character that cannot survive in the input (it is stripped first) marks set-aside fragments.
_MARK = "\x00"
_TOKEN_RE = re.compile(_MARK + r"(\d+)" + _MARK)

_MATH_RE = re.compile(
    r"""
      \\\$                                  # an escaped dollar: text, not a delimiter
    | \$\$ .+? \$\$                         # display math
    | \\\[ .+? \\\]
    | \\\( .+? \\\)
    | \$ (?:\\\$|[^$])+? \$                 # inline math; may contain \$
    """,
    re.VERBOSE | re.DOTALL,
)
# Escaped characters, read after HTML escaping (so \& arrives as \&amp;).
_LITERALS = {
    "\\%": "%",
    "\\&amp;": "&amp;",
    "\\_": "_",
    "\\#": "#",
    "\\{": "{",
    "\\}": "}",
}
_LITERAL_RE = re.compile("|".join(re.escape(key) for key in _LITERALS))
_URL_RE = re.compile(r"\\url\{([^{}]*)\}")
# Innermost commands first: an argument holds no braces, so nesting resolves one level per pass.
_COMMAND_RE = re.compile(
    r"\\(textit|emph|textbf|texttt|textsc|textrm|textsf|textup|mbox|underline"
    r"|citep|citet|citealp|citeauthor|cite)\*?\{([^{}]*)\}"
)
_WRAPPERS = {
    "textit": ("<em>", "</em>"),
    "emph": ("<em>", "</em>"),
    "textbf": ("<strong>", "</strong>"),
    "texttt": ("<code>", "</code>"),
    "underline": ("<u>", "</u>"),
}
_PARAGRAPH_RE = re.compile(r"\n[ \t]*\n\s*")


class _Fragments:
    """Finished HTML fragments, held as tokens until the end so later rules cannot touch them."""

    def __init__(self) -> None:
        self.items: list[str] = []

    def token(self, html: str) -> str:
        self.items.append(html)
        return f"{_MARK}{len(self.items) - 1}{_MARK}"

    def restore(self, text: str) -> str:
        # Fragments can contain tokens of their own (a command wrapping math), so repeat.
        while _MARK in text:
            text = _TOKEN_RE.sub(lambda m: self.items[int(m.group(1))], text)
        return text


def _citation(keys: str) -> str:
    names = [key.strip() for key in keys.split(",") if key.strip()]
    return f'<span class="citation" title="citation">[{"; ".join(names)}]</span>'


def render_latex_text(source: str) -> SafeString:
    """Return `source` as safe HTML paragraphs with text-mode LaTeX rendered and math kept."""
    fragments = _Fragments()
    text = source.replace(_MARK, "").replace("\r\n", "\n").replace("\r", "\n").strip()

    def set_aside_math(match: re.Match[str]) -> str:
        if match.group(0) == "\\$":
            # Wrapped so KaTeX's auto-render never pairs it with another dollar sign.
            return fragments.token('<span class="tex-literal">$</span>')
        return fragments.token(escape(match.group(0)))

    text = _MATH_RE.sub(set_aside_math, text)
    # A dollar sign left over is not a delimiter (it was never closed): keep it away from KaTeX.
    text = text.replace("$", fragments.token('<span class="tex-literal">$</span>'))
    text = escape(text)
    text = _URL_RE.sub(lambda m: fragments.token(f'<span class="url">{m.group(1)}</span>'), text)
    text = _LITERAL_RE.sub(lambda m: fragments.token(_LITERALS[m.group(0)]), text)

    def rewrite_command(match: re.Match[str]) -> str:
        name, argument = match.group(1), match.group(2)
        if name.startswith("cite"):
            return fragments.token(_citation(argument))
        opening, closing = _WRAPPERS.get(name, ("", ""))
        return fragments.token(f"{opening}{argument}{closing}")

    while True:
        text, replaced = _COMMAND_RE.subn(rewrite_command, text)
        if not replaced:
            break

    text = text.replace("``", "\u201c").replace("&#x27;&#x27;", "\u201d").replace("~", " ")
    paragraphs = [p for p in _PARAGRAPH_RE.split(text) if p.strip()]
    html = "\n".join(f"<p>{p.strip().replace(chr(10), '<br>' + chr(10))}</p>" for p in paragraphs)
    # Every character of `source` was escaped above; only our own tags were added since.
    return mark_safe(fragments.restore(html))  # noqa: S308
