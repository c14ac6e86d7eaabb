"""Server-side pass over LaTeX-flavoured abstracts: text-mode commands become HTML, math stays.

Abstracts arrive with LaTeX in them. Math ($..$, $$..$$, \\(..\\), \\[..\\]) is left exactly as
written (HTML-escaped) for KaTeX to typeset in the browser; the text-mode commands KaTeX does
not handle (\\emph{}, \\%, \\citep{}, ``quotes'', ~) are turned into HTML here.

How: one left-to-right scan that appends finished HTML pieces to a list. Every piece taken from
the input is HTML-escaped as it is appended; the only markup is our own fixed tags, so no input
can produce markup of its own.

Why the work is linear in the input (abstracts are user-supplied, and the earlier regex version
took 30 to 50 s on 160,000 characters of openers):

- Each step of the scan consumes at least one character, and nothing is scanned twice except a
  failed \\url{ or \\cite{ argument, which is read once to its first brace and then once more as
  text.
- A math closer is found with a forward search from its opener. Searches for one kind of closer
  are remembered (`_Closers`): a search that found nothing proves there is none further on, so
  80,000 unclosed \\( cost one search, not 80,000 searches to the end of the text.
- Nested commands use a stack of open groups instead of one regex pass per nesting level. An
  opener is appended as its own escaped source text (`\\textit{`); only if its `}` arrives is
  that piece swapped for the tag, so a command never closed stays visible as text. Nesting is
  capped (`_MAX_OPEN`): deeper openers are plain text, which keeps the output's depth small
  for the browser too.
- Paragraph breaks are decided once, at the end: a blank line inside a command that closes
  cannot end the paragraph (the tags would no longer nest), so it becomes two line breaks.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from django.utils.safestring import SafeString, mark_safe
from pylatexenc.latex2text import LatexNodes2Text

# Open groups beyond this depth are shown as text (with their closing brace) instead.
_MAX_OPEN = 100

_WRAPPERS = {
    "textit": ("<em>", "</em>"),
    "emph": ("<em>", "</em>"),
    "textbf": ("<strong>", "</strong>"),
    "texttt": ("<code>", "</code>"),
    "underline": ("<u>", "</u>"),
    # Contents only.
    "textsc": ("", ""),
    "textrm": ("", ""),
    "textsf": ("", ""),
    "textup": ("", ""),
    "mbox": ("", ""),
}
_CITATIONS = {"cite", "citep", "citet", "citealp", "citeauthor"}
# \x -> HTML for the escaped characters.
_LITERALS = {"%": "%", "&": "&amp;", "_": "_", "#": "#", "{": "{", "}": "}"}
# Wrapped so KaTeX's auto-render (which ignores this class) never pairs it with another dollar.
_LITERAL_DOLLAR = '<span class="tex-literal">$</span>'

_COMMAND_NAME_RE = re.compile(r"[A-Za-z]+")
# A run of characters with no meaning of their own (quotes and backticks only mean something
# in pairs, so they are looked at one by one).
_PLAIN_TEXT_RE = re.compile(r"[^\\${}\n~`']+")
# A line holding only spaces or ties (~) is blank, as it always was here.
_PARAGRAPH_BREAK_RE = re.compile(r"\n[ \t~]*\n[\s~]*")
_BRACE_RE = re.compile(r"[{}]")


class _Closers:
    """Forward searches for closers, each kind remembered so no stretch of text is searched twice.

    The scan only moves forward, so a search for a kind starts either inside the stretch the
    previous search of that kind covered (and the answer is the same) or after it.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.last: dict[str, tuple[int, int]] = {}  # kind -> (searched from, found or -1)
        self.searched = 0  # characters covered by real searches (for the tests' work count)

    def find(self, kind: str, start: int) -> int:
        if kind in self.last:
            searched_from, found = self.last[kind]
            if searched_from <= start and (found == -1 or found >= start):
                return found
        if kind == "$":
            found = self._unescaped_dollar(start)
        elif kind == "brace":
            match = _BRACE_RE.search(self.text, start)
            found = match.start() if match else -1
        else:
            found = self.text.find(kind, start)
        self.last[kind] = (start, found)
        self.searched += (len(self.text) if found == -1 else found) - start
        return found

    def _unescaped_dollar(self, start: int) -> int:
        """The next `$` after an even run of backslashes: `\\$` is a dollar, `\\\\$` a closer."""
        text = self.text
        found = text.find("$", start)
        while found != -1:
            backslashes = 0
            while found - backslashes > 0 and text[found - backslashes - 1] == "\\":
                backslashes += 1
            if backslashes % 2 == 0:
                return found
            found = text.find("$", found + 1)
        return -1


@dataclass
class _Group:
    """An open `{`: a command's argument or a bare brace group."""

    piece: int  # index in the output of the opener's text, swapped for the tag on closing
    tags: tuple[str, str] | None  # None: shown as text, braces and all
    scope: _Group | None  # innermost open group, this one included, whose tags are markup
    closed: bool = False


@dataclass
class _Break:
    """A blank line: a new paragraph, unless it sits inside markup that gets closed."""

    scope: _Group | None


class _Scanner:
    """One pass over the text, appending escaped pieces and our tags to `out`."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out: list[str | _Break] = []
        self.open: list[_Group] = []
        self.overflow = 0  # open groups past _MAX_OPEN, shown as text
        self.closers = _Closers(text)
        self.steps = 0

    @property
    def work(self) -> int:
        """Scan steps plus characters searched: stays proportional to the input's length."""
        return self.steps + self.closers.searched

    def render(self) -> str:
        """The text as HTML paragraphs (an abstract)."""
        self._scan()
        return self._paragraphs()

    def _scan(self) -> None:
        text, out = self.text, self.out
        pos = 0
        while pos < len(text):
            self.steps += 1
            char = text[pos]
            if char == "\\":
                pos = self._backslash(pos)
            elif char == "$":
                pos = self._dollar(pos)
            elif char == "{":
                self._push("{", None)
                pos += 1
            elif char == "}":
                self._close()
                pos += 1
            elif char == "\n":
                pos = self._newline(pos)
            elif char == "~":
                out.append(" ")
                pos += 1
            elif text.startswith("``", pos):
                out.append("\u201c")
                pos += 2
            elif text.startswith("''", pos):
                out.append("\u201d")
                pos += 2
            else:
                match = _PLAIN_TEXT_RE.match(text, pos)
                end = match.end() if match else pos + 1
                out.append(html.escape(text[pos:end]))
                pos = end

    def _math(self, start: int, end: int) -> int:
        self.out.append(html.escape(self.text[start:end]))
        return end

    def _dollar(self, pos: int) -> int:
        if self.text.startswith("$$", pos):
            # Display math holds at least one character; no closer: the first $ is a literal.
            closer = self.closers.find("$$", pos + 3)
            if closer != -1:
                return self._math(pos, closer + 2)
        else:
            closer = self.closers.find("$", pos + 1)
            if closer != -1:
                return self._math(pos, closer + 1)
        # Never closed, so not a delimiter: keep it away from KaTeX.
        self.out.append(_LITERAL_DOLLAR)
        return pos + 1

    def _backslash(self, pos: int) -> int:
        text, out = self.text, self.out
        following = text[pos + 1 : pos + 2]
        name = _COMMAND_NAME_RE.match(text, pos + 1)
        if name:
            return self._command(pos, name.group())
        if following in ("(", "["):
            closer = self.closers.find("\\)" if following == "(" else "\\]", pos + 3)
            if closer != -1:
                return self._math(pos, closer + 2)
            out.append(html.escape(text[pos : pos + 2]))
            return pos + 2
        if following == "$":
            out.append(_LITERAL_DOLLAR)
            return pos + 2
        if following in _LITERALS:
            out.append(_LITERALS[following])
            return pos + 2
        if following == "\\":
            # A pair, so the second backslash cannot escape what follows (`\\$` opens math).
            out.append("\\\\")
            return pos + 2
        out.append("\\")
        return pos + 1

    def _command(self, pos: int, name: str) -> int:
        text = self.text
        after = pos + 1 + len(name)
        brace = after
        if name != "url" and text.startswith("*", brace):
            brace += 1
        known = name in _WRAPPERS or name in _CITATIONS or name == "url"
        if not known or not text.startswith("{", brace):
            self.out.append(html.escape(text[pos:after]))
            return after
        opener = text[pos : brace + 1]
        body = brace + 1
        if name in _WRAPPERS:
            self._push(opener, _WRAPPERS[name])
            return body
        # \url and \cite take their argument as written, up to the closing brace.
        closer = self.closers.find("brace", body)
        if closer == -1 or text[closer] == "{":
            # Not an argument we can read: show it as text, braces matched like any group.
            self._push(opener, None)
            return body
        argument = text[body:closer]
        if name == "url":
            self.out.append(f'<span class="url">{html.escape(argument)}</span>')
        else:
            keys = "; ".join(html.escape(k.strip()) for k in argument.split(",") if k.strip())
            self.out.append(f'<span class="citation" title="citation">[{keys}]</span>')
        return closer + 1

    def _push(self, opener: str, tags: tuple[str, str] | None) -> None:
        self.out.append(html.escape(opener))
        if len(self.open) >= _MAX_OPEN:
            self.overflow += 1
            return
        outer = self.open[-1].scope if self.open else None
        group = _Group(len(self.out) - 1, tags, None)
        group.scope = group if tags and tags[0] else outer
        self.open.append(group)

    def _close(self) -> None:
        if self.overflow:
            self.overflow -= 1
            self.out.append("}")
            return
        if not self.open:
            self.out.append("}")
            return
        group = self.open.pop()
        group.closed = True
        if group.tags is None:
            self.out.append("}")
        else:
            self.out[group.piece] = group.tags[0]
            self.out.append(group.tags[1])

    def _newline(self, pos: int) -> int:
        blank = _PARAGRAPH_BREAK_RE.match(self.text, pos)
        if blank:
            self.out.append(_Break(self.open[-1].scope if self.open else None))
            return blank.end()
        self.out.append("<br>\n")
        return pos + 1

    def inline(self) -> str:
        """The text as one line of HTML (a title): no paragraphs, breaks become spaces."""
        self._scan()
        pieces = [" " if isinstance(p, _Break) or p == "<br>\n" else p for p in self.out]
        return _trimmed(pieces)

    def _paragraphs(self) -> str:
        paragraphs: list[list[str]] = [[]]
        for piece in self.out:
            if not isinstance(piece, _Break):
                paragraphs[-1].append(piece)
            elif piece.scope is not None and piece.scope.closed:
                # Inside markup that closes: a paragraph end here would cut through its tags.
                # (If the innermost open markup never closed, no markup open here did.)
                paragraphs[-1].append("<br>\n<br>\n")
            else:
                paragraphs.append([])
        html_paragraphs = (_trimmed(pieces) for pieces in paragraphs)
        return "\n".join(f"<p>{p}</p>" for p in html_paragraphs if p)


def _trimmed(pieces: list[str]) -> str:
    """The paragraph without blank space or line breaks at either end (e.g. from a `~`)."""
    start, end = 0, len(pieces)
    while start < end and (pieces[start] == "<br>\n" or not pieces[start].strip()):
        start += 1
    while end > start and (pieces[end - 1] == "<br>\n" or not pieces[end - 1].strip()):
        end -= 1
    return "".join(pieces[start:end]).strip()


def render_latex_text(source: str) -> SafeString:
    """Return `source` as safe HTML paragraphs with text-mode LaTeX rendered and math kept."""
    text = source.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n").strip()
    # Every character of `source` was escaped on its way into a piece; only our tags were added.
    return mark_safe(_Scanner(text).render())  # noqa: S308


def render_latex_inline(source: str) -> SafeString:
    """Return one line of text (a title) as safe HTML with text-mode LaTeX rendered and math
    kept for KaTeX, without paragraph tags."""
    text = " ".join(source.replace("\x00", "").split())
    # As render_latex_text: every character of `source` is escaped in its piece.
    return mark_safe(_Scanner(text).inline())  # noqa: S308


_PLAIN_TEXT = LatexNodes2Text(math_mode="text", strict_latex_spaces=True)


def latex_to_plain_text(source: str) -> str:
    """`source` with LaTeX turned into plain Unicode text ($\\alpha$ -> α), for places where
    nothing is typeset (the browser tab's title, meta tags). Text pylatexenc cannot parse is
    returned as written."""
    try:
        text = _PLAIN_TEXT.latex_to_text(source)
    except Exception:  # pylatexenc raises its own errors on malformed input; keep the source
        return " ".join(source.split())
    return " ".join(text.split())
