"""Server-side pass over LaTeX-flavoured abstracts: text-mode commands become HTML, math stays.

Abstracts arrive with LaTeX in them. Math ($..$, $$..$$, \\(..\\), \\[..\\]) is left exactly as
written (HTML-escaped) for KaTeX to typeset in the browser; the text-mode commands KaTeX does
not handle (\\emph{}, \\%, \\citep{}, ``quotes'', ~) are turned into HTML here. Outside math,
nothing is left as backslash source: accents and letters (\\'e, \\L) become the characters,
symbols pylatexenc knows (\\dots, \\alpha) their Unicode, old font switches ({\\em ..}) markup,
and authors' own macros (\\method) their name.

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

Over 600 lines on purpose: the command tables, the scanner that reads them and the three ways
out of it (HTML, marked HTML, plain text) are one grammar; split, a command added to a table
would have to be taught to modules that each hold part of the scanner's state.
"""

from __future__ import annotations

import bisect
import html
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from django.utils.safestring import SafeString, mark_safe
from pylatexenc import latex2text, latexwalker

# Open groups beyond this depth are shown as text (with their closing brace) instead.
_MAX_OPEN = 100

_WRAPPERS = {
    "textit": ("<em>", "</em>"),
    "emph": ("<em>", "</em>"),
    "textsl": ("<em>", "</em>"),
    "textbf": ("<strong>", "</strong>"),
    "texttt": ("<code>", "</code>"),
    "underline": ("<u>", "</u>"),
    "textsuperscript": ("<sup>", "</sup>"),
    "textsubscript": ("<sub>", "</sub>"),
    # A footnote is read where it stands, in parentheses.
    "footnote": (' <span class="footnote">(', ")</span>"),
    # Contents only.
    "textsc": ("", ""),
    "textrm": ("", ""),
    "textsf": ("", ""),
    "textup": ("", ""),
    "textmd": ("", ""),
    "textnormal": ("", ""),
    "text": ("", ""),
    "mbox": ("", ""),
    "hbox": ("", ""),
    "smash": ("", ""),
}
# Old-style font switches: `{\em words}` is `\emph{words}`; elsewhere they are dropped.
_SWITCHES = {
    "em": _WRAPPERS["emph"],
    "it": _WRAPPERS["textit"],
    "itshape": _WRAPPERS["textit"],
    "sl": _WRAPPERS["textit"],
    "bf": _WRAPPERS["textbf"],
    "bfseries": _WRAPPERS["textbf"],
    "tt": _WRAPPERS["texttt"],
    "ttfamily": _WRAPPERS["texttt"],
    "sc": ("", ""),
    "scshape": ("", ""),
    "rm": ("", ""),
    "sf": ("", ""),
    "normalfont": ("", ""),
    "upshape": ("", ""),
}
_CITATIONS = {"cite", "citep", "citet", "citealp", "citeauthor"}
# Commands whose one argument is not text to read (a label, a length).
_DISCARDED_WITH_ARGUMENT = {"label", "vspace", "hspace", "phantom"}
# Arguments read as written up to the first brace (addresses, keys), not scanned as text.
_READ_AS_WRITTEN = {"url", "href", *_CITATIONS, *_DISCARDED_WITH_ARGUMENT}
# Commands that only steer TeX's typesetting.
_DISCARDED = {"noindent", "xspace", "relax", "protect", "centering", "newpage", "maketitle"}
# \x -> HTML for the escaped characters.
_LITERALS = {"%": "%", "&": "&amp;", "_": "_", "#": "#", "{": "{", "}": "}"}
# Spacing and hyphenation commands written with a symbol: \, is a thin space that never breaks.
_SYMBOL_SPACES = {
    ",": "\u202f", ";": " ", ":": " ", ">": " ", " ": " ", "\t": " ", "\n": " ", "!": "", "-": "",
    "/": "", "@": "",
}  # fmt: skip
# Wrapped so KaTeX's auto-render (which ignores this class) never pairs it with another dollar.
LITERAL_DOLLAR = '<span class="tex-literal">$</span>'

# Letters written as commands; a space after one only ends the name (Polyak-\L ojasiewicz).
_LETTERS = {
    "L": "Ł", "l": "ł", "o": "ø", "O": "Ø", "ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ",
    "OE": "Œ", "aa": "å", "AA": "Å", "i": "ı", "j": "ȷ", "dh": "ð", "DH": "Ð", "th": "þ",
    "TH": "Þ",
}  # fmt: skip
# Words authors define as macros, and the logos; pylatexenc's symbols fill in the rest.
_WORDS = {
    "eg": "e.g.", "Eg": "E.g.", "ie": "i.e.", "Ie": "I.e.", "etal": "et al.", "wrt": "w.r.t.",
    "cf": "cf.", "Cf": "Cf.", "vs": "vs.", "etc": "etc.", "iid": "i.i.d.", "aka": "a.k.a.",
    "LaTeX": "LaTeX", "LaTeXe": "LaTeX2e", "TeX": "TeX", "BibTeX": "BibTeX",
    "textasciitilde": "~", "textasciicircum": "^", "textbackslash": "\\", "textbar": "|",
    "textless": "<", "textgreater": ">", "dots": "…", "ldots": "…", "textellipsis": "…",
    "S": "§", "P": "¶", "copyright": "©", "ddag": "‡", "pounds": "£", "quad": "\u2003",
    "qquad": "\u2003\u2003", "enspace": "\u2002", "thinspace": "\u2009",
}  # fmt: skip


def _text_symbols() -> dict[str, str]:
    """pylatexenc's argument-free commands with a plain replacement (\\textdegree -> °, \\alpha
    -> α), which authors also write outside math."""
    walker = latexwalker.get_default_latex_context_db()
    symbols = {}
    for spec in latex2text.get_default_latex_context_db().iter_macro_specs():
        name, replacement = spec.macroname, spec.simplify_repl
        if (
            name.isalpha()
            and isinstance(replacement, str)
            and not re.search(r"[%<\n]", replacement)
            and walker.get_macro_spec(name) is None
        ):
            symbols[name] = replacement
    return symbols


_REPLACEMENTS = {**_text_symbols(), **_WORDS}

# Commands that only typeset (symbols, fonts, accents, fractions, delimiters): what math copied
# into a .bib file may contain. A title reaches a reader's LaTeX run through the export, so math
# using any other command (\input, \write18, \def, \catcode, ...) is exported as plain text.
TYPESETTING_MATH_COMMANDS = frozenset(_text_symbols()) | {
    # fonts and text inside math
    "mathcal", "mathbb", "mathbf", "mathrm", "mathit", "mathsf", "mathtt", "mathfrak",
    "mathscr", "mathds", "mathbbm", "boldsymbol", "bm", "text", "textrm", "textit", "textbf",
    "textsf", "texttt", "operatorname", "mathop",
    # structure
    "frac", "dfrac", "tfrac", "sqrt", "binom", "overset", "underset", "stackrel", "substack",
    "left", "right", "middle", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr",
    "not", "limits", "nolimits", "displaystyle", "textstyle", "scriptstyle",
    # accents
    "hat", "widehat", "tilde", "widetilde", "bar", "overline", "underline", "vec", "dot",
    "ddot", "check", "breve", "acute", "grave", "overrightarrow", "overbrace", "underbrace",
    # operators and spacing pylatexenc spells differently or not at all
    "log", "ln", "exp", "sin", "cos", "tan", "min", "max", "arg", "argmin", "argmax", "sup",
    "inf", "lim", "liminf", "limsup", "det", "dim", "ker", "Pr", "deg", "gcd", "mod", "bmod",
    "pmod", "quad", "qquad", "colon", "cdotp", "lvert", "rvert", "lVert", "rVert", "vert",
    "Vert", "langle", "rangle", "lfloor", "rfloor", "lceil", "rceil", "top", "bot", "ell",
    "hbar", "mid", "emptyset", "varnothing", "infty", "partial", "nabla", "prime",
}  # fmt: skip

# Accents as combining marks: \'e -> é, \c{c} -> ç, \"{\i} -> ï.
_ACCENTS = {
    "'": "\u0301", "`": "\u0300", "^": "\u0302", '"': "\u0308", "~": "\u0303", "=": "\u0304",
    ".": "\u0307", "c": "\u0327", "v": "\u030c", "u": "\u0306", "H": "\u030b", "k": "\u0328",
    "r": "\u030a", "d": "\u0323", "b": "\u0331",
}  # fmt: skip
_ACCENT_BASE = r"(?:\\[ij](?![A-Za-z])|[A-Za-z])"  # a letter, or \i and \j (dotless)
_ACCENT_RE = re.compile(
    r"""\\(?:(?P<symbol>['`^"~=.])|(?P<letter>[cvuHkrdb])(?![A-Za-z]))[ \t]*"""
    rf"(?:\{{[ \t]*(?P<braced>{_ACCENT_BASE})[ \t]*\}}|(?P<bare>{_ACCENT_BASE}))"
)
# `{\"a}`, the form BibTeX habits bring, is the accented letter with no braces.
_BRACED_ACCENT_RE = re.compile(r"\{(?P<accent>" + _ACCENT_RE.pattern + r")\}")
_SWITCH_RE = re.compile(r"\{\\(?P<name>[A-Za-z]+)(?![A-Za-z])[ \t]*")

_COMMAND_NAME_RE = re.compile(r"[A-Za-z]+")
_SPACES_RE = re.compile(r"[ \t]*")
# Not \s: the thin and em spaces of \, and \quad stay.
_SPACES_AND_LINES_RE = re.compile(r"[ \t\n]+")
# A run of characters with no meaning of their own (quotes and backticks only mean something
# in pairs, so they are looked at one by one).
_PLAIN_TEXT_RE = re.compile(r"[^\\${}\n~`']+")
# An http(s) address as written in running text, and what may end a sentence after one.
_BARE_URL_RE = re.compile(r"https?://[^\s<>\"'()\[\]{}\\`^|]+", re.IGNORECASE)
_URL_TRAILING_PUNCTUATION = ".,;:!?"
# What a link's address may be: an http(s) URL with a host, no spaces, quotes or angle brackets.
_WEB_URL_RE = re.compile(r"https?://[^\s<>\"'`\\/][^\s<>\"'`\\]*", re.IGNORECASE)
# A line holding only spaces or ties (~) is blank, as it always was here.
_PARAGRAPH_BREAK_RE = re.compile(r"\n[ \t~]*\n[\s~]*")
_BRACE_RE = re.compile(r"[{}]")


def _dashes(text: str) -> str:
    """LaTeX's dash ligatures, as the typeset paper shows them: `---` an em dash, `--` an en
    dash ("updates---the score functions---are learned", "pages 1--10")."""
    if "--" not in text:  # most text: one quick test
        return text
    return text.replace("---", "\u2014").replace("--", "\u2013")


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

    def __init__(
        self, text: str, math: Callable[[str], str] | None = None, *, links: bool = False
    ) -> None:
        self.text = text
        # Web addresses as links: in an abstract, never in a title (itself inside a link).
        self.links = links
        self.math_text = math  # math as text instead of its source (for plain text)
        self.out: list[str | _Break] = []
        self.open: list[_Group] = []
        self.overflow = 0  # open groups past _MAX_OPEN, shown as text
        self.closers = _Closers(text)
        self.steps = 0
        self.math_spans: list[tuple[int, int]] = []  # (start, end) of each math expression

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
                pos = self._brace(pos)
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
                out.append(self._plain(text[pos:end]))
                pos = end

    def _plain(self, piece: str) -> str:
        """Plain text, escaped; with links on, its bare web addresses linked."""
        if not self.links or "://" not in piece:
            return _dashes(html.escape(piece))
        pieces, position = [], 0
        for match in _BARE_URL_RE.finditer(piece):
            address = match.group().rstrip(_URL_TRAILING_PUNCTUATION)
            before = _dashes(html.escape(piece[position : match.start()]))
            pieces += [before, self._address(address)]
            position = match.start() + len(address)
        pieces.append(_dashes(html.escape(piece[position:])))
        return "".join(pieces)

    def _address(self, address: str) -> str:
        """A web address: a link that leaves no referrer and earns no rank, when links are on
        and it is an http(s) one; otherwise text marked as an address."""
        shown = html.escape(address)
        if self.links and _WEB_URL_RE.fullmatch(address):
            return f'<a class="url" href="{shown}" rel="nofollow noopener noreferrer">{shown}</a>'
        return f'<span class="url">{shown}</span>'

    def _math(self, start: int, end: int) -> int:
        math = self.text[start:end]
        self.math_spans.append((start, end))
        self.out.append(html.escape(self.math_text(math) if self.math_text else math))
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
        self.out.append(LITERAL_DOLLAR)
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
            out.append(LITERAL_DOLLAR)
            return pos + 2
        if following in _LITERALS:
            out.append(_LITERALS[following])
            return pos + 2
        if following == "\\":
            # `\\$300` is a price escaped once too often, not a line break before math.
            if text.startswith("$", pos + 2) and text[pos + 3 : pos + 4].isdigit():
                out.append(LITERAL_DOLLAR)
                return pos + 3
            # A pair, so the second backslash cannot escape what follows.
            out.append("<br>\n")
            return pos + 2
        if following in _SYMBOL_SPACES:
            out.append(_SYMBOL_SPACES[following])
            return pos + 2
        if following in _ACCENTS:
            accented = self._accent(pos)
            if accented is not None:
                return accented
        out.append("\\")
        return pos + 1

    def _accent(self, pos: int, pattern: re.Pattern[str] = _ACCENT_RE) -> int | None:
        """Appends the accented letter at `pos` (\\'e, \\c{c}, {\\"a}); None if there is none."""
        match = pattern.match(self.text, pos)
        if not match:
            return None
        self.out.append(html.escape(_accented_letter(match)))
        return match.end()

    def _command(self, pos: int, name: str) -> int:
        text = self.text
        after = pos + 1 + len(name)
        brace = after
        if name != "url" and text.startswith("*", brace):
            brace += 1
        has_argument = text.startswith("{", brace)
        if name in _ACCENTS:
            accented = self._accent(pos)
            if accented is not None:
                return accented
        opener = text[pos : brace + 1]
        body = brace + 1
        tags = _WRAPPERS.get(name) or _SWITCHES.get(name)
        if has_argument and tags is not None:
            self._push(opener, tags)  # \bf{x} is written too, for \textbf{x}
            return body
        if not has_argument or name not in _READ_AS_WRITTEN:
            return self._bare_command(name, after)
        # \url, \href and \cite take their argument as written, up to the closing brace.
        closer = self.closers.find("brace", body)
        if closer == -1 or text[closer] == "{":
            # Not an argument we can read: show it as text, braces matched like any group.
            self._push(opener, None)
            return body
        argument = text[body:closer]
        url = self._address(argument)
        if name == "href" and text.startswith("{", closer + 1):
            label_end = self.closers.find("brace", closer + 2)
            label = text[closer + 2 : label_end] if label_end != -1 else None
            if label == argument and text[label_end] == "}":  # \href{address}{address}
                self.out.append(url)
                return label_end + 1
            # The link text, then the address (a link in an abstract, text in a title).
            self._push(text[pos : closer + 2], ("", f" ({url})"))
            return closer + 2
        if name in ("url", "href"):
            self.out.append(url)
        elif name in _DISCARDED_WITH_ARGUMENT:
            pass
        else:
            keys = "; ".join(html.escape(k.strip()) for k in argument.split(",") if k.strip())
            self.out.append(f'<span class="citation" title="citation">[{keys}]</span>')
        return closer + 1

    def _bare_command(self, name: str, after: int) -> int:
        """A command outside math that is not a known one with its argument: its text."""
        text, out = self.text, self.out
        if name in _LETTERS:
            out.append(_LETTERS[name])
            spaces = _SPACES_RE.match(text, after).end()  # type: ignore[union-attr]
            return spaces if text[spaces : spaces + 1].isalpha() else after
        if name in ("newline", "linebreak", "par"):
            out.append("<br>\n")
            return after
        if name in _SWITCHES or name in _DISCARDED:
            # Outside `{\em ..}` a switch's reach is unclear: the words stay, plain.
            return _SPACES_RE.match(text, after).end()  # type: ignore[union-attr]
        if name in _REPLACEMENTS:
            out.append(html.escape(_REPLACEMENTS[name]))
        else:
            # An author's own macro (\method, \ours): its name is the best reading we have.
            out.append(html.escape(name))
            if text.startswith("/", after):  # the `\method/` idiom that ends the name
                return after + 1
            if text.startswith("{", after) and not text.startswith("{}", after):
                # Its argument, if it takes one, is read as text after the name.
                out.append(" ")
                self._push("{", ("", ""))
                return after + 1
        if text.startswith("{}", after):
            return after + 2
        return after

    def _brace(self, pos: int) -> int:
        """A bare group: `{\\em words}` and `{\\"a}` have meanings; other braces show as text."""
        if self.text.startswith("\\", pos + 1):
            accented = self._accent(pos, _BRACED_ACCENT_RE)
            if accented is not None:
                return accented
            switch = _SWITCH_RE.match(self.text, pos)
            if switch and switch["name"] in _SWITCHES:
                self._push(switch.group(), _SWITCHES[switch["name"]])
                return switch.end()
        self._push("{", None)
        return pos + 1

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
        return _SPACES_AND_LINES_RE.sub(" ", _trimmed(pieces))

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


# OpenReview renders its abstracts as Markdown, and authors use it there: **bold**, *italics*
# and [label](https://...) links. Each is rewritten as the LaTeX the scanner reads (\textbf,
# \textit, \href), so they nest and escape like everything else. None may span a line or a `$`
# (math is left alone), and nothing in them is a brace, so a rewrite cannot unbalance a group.
# Each pattern's repeated part stops at its first `*` or `]`: the scan stays linear.
_MARKDOWN_BOLD_RE = re.compile(r"\*\*(?=[^\s*])([^*\n${}]+?)(?<=\S)\*\*")
_MARKDOWN_LINK_RE = re.compile(r"\[([^\[\]\n${}]+)\]\((https?://[^\s(){}$]+)\)")
# *emphasis* (OpenReview shows it in italics), read after **bold** so no `**` is left to take
# apart. A word before the first star or after the last (`A* and B*`, `2*3*4`) or an escaped
# star (`\*`) makes it no emphasis.
_MARKDOWN_ITALIC_RE = re.compile(r"(?<![*\w\\])\*(?=[^\s*])([^*\n${}]+?)(?<=\S)\*(?![*\w])")


# What opens or closes math: $, $$, \( \) \[ \]; any other escape (\$) is skipped whole.
_MATH_TOGGLE_RE = re.compile(r"(?P<toggle>\$\$|\$|\\[()\[\]])|\\.", re.S)


def _markdown_as_latex(text: str) -> str:
    text = _rewrite_outside_math(_MARKDOWN_LINK_RE, r"\\href{\2}{\1}", text)
    text = _rewrite_outside_math(_MARKDOWN_BOLD_RE, r"\\textbf{\1}", text)
    return _rewrite_outside_math(_MARKDOWN_ITALIC_RE, r"\\textit{\1}", text)


def _rewrite_outside_math(pattern: re.Pattern[str], replacement: str, text: str) -> str:
    """`pattern` replaced where it stands outside math: `$a**b**$` is math, not bold. Math
    delimiters are found in one pass; a match is in math after an odd number of them."""
    if not pattern.search(text):
        return text
    toggles = [m.start() for m in _MATH_TOGGLE_RE.finditer(text) if m["toggle"]]

    def rewrite(match: re.Match[str]) -> str:
        in_math = bisect.bisect(toggles, match.start()) % 2 == 1
        return match.group() if in_math else match.expand(replacement)

    return pattern.sub(rewrite, text)


def render_latex_text(source: str) -> SafeString:
    """Return `source` as safe HTML paragraphs with text-mode LaTeX rendered and math kept."""
    text = source.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n").strip()
    text = _markdown_as_latex(text)
    # Every character of `source` was escaped on its way into a piece; only our tags were added.
    return mark_safe(_Scanner(text, links=True).render())  # noqa: S308


def render_latex_inline(source: str) -> SafeString:
    """Return one line of text (a title) as safe HTML with text-mode LaTeX rendered and math
    kept for KaTeX, without paragraph tags. Display math is kept as inline math: typeset as a
    display it would be a centred block of its own, out of the line."""
    text = _markdown_as_latex(" ".join(source.replace("\x00", "").split()))
    # As render_latex_text: every character of `source` is escaped in its piece.
    return mark_safe(_Scanner(text, math=_as_inline_math).inline())  # noqa: S308


def _as_inline_math(math: str) -> str:
    """`$$x$$` and `\\[x\\]` as `\\(x\\)`; inline math as it is."""
    if math.startswith("$$") or math.startswith("\\["):
        return f"\\({math[2:-2]}\\)"
    return math


def math_spans(source: str) -> list[tuple[int, int]]:
    """Where the math expressions of `source` are, as (start, end) offsets in order, by the rules
    the rendering follows: a piece cut out of an abstract (a search snippet) must not cut one."""
    scanner = _Scanner(source)
    scanner._scan()
    return scanner.math_spans


# Stand-ins for <mark> and </mark> while the text goes through the scanner: private-use
# characters, which the scanner passes through as plain text.
_MARK_OPEN, _MARK_CLOSE = "\ue000", "\ue001"
# A pair with no tag of ours between them: a mark never straddles markup, so it nests.
_MARKED_RE = re.compile(f"{_MARK_OPEN}([^{_MARK_OPEN}{_MARK_CLOSE}<]*){_MARK_CLOSE}")


def render_latex_inline_marked(source: str, marks: list[tuple[int, int]]) -> SafeString:
    """As render_latex_inline, with the (start, end) ranges of `source` in <mark> tags.

    The ranges are taken in one pass with the rest of the text (rendering the marked and
    unmarked pieces apart would show `\\emph{<mark>word</mark>}` as source). Each range must be
    a word, or hold whole math expressions, so that its two ends stay together through the
    scanner; a pair that does not (a word inside a dropped \\label{}) is left out, not
    half-made."""
    text = source.replace(_MARK_OPEN, "\ufffd").replace(_MARK_CLOSE, "\ufffd")
    pieces, position = [], 0
    for start, end in sorted(marks):
        pieces += [text[position:start], _MARK_OPEN, text[start:end], _MARK_CLOSE]
        position = end
    pieces.append(text[position:])
    html_text = render_latex_inline("".join(pieces))
    marked = _MARKED_RE.sub(r"<mark>\1</mark>", html_text)
    # The input's own stand-ins were replaced above: these are the pairs that did not survive.
    return mark_safe(marked.replace(_MARK_OPEN, "").replace(_MARK_CLOSE, ""))  # noqa: S308


# Strict about spaces, except the one after a command: "$O(n \log n)$" reads "O(n log n)", not
# "O(n logn)" (TeX's own rule eats it, but TeX typesets \log as an operator with its space).
_MATH_TO_TEXT = latex2text.LatexNodes2Text(
    math_mode="text",
    strict_latex_spaces={
        "between-macro-and-chars": False,
        "between-latex-constructs": True,
        "after-comment": True,
        "in-equations": True,
    },
)
_KNOWN_IN_MATH = {
    spec.macroname for spec in latex2text.get_default_latex_context_db().iter_macro_specs()
}
_MATH_COMMAND_RE = re.compile(r"\\([A-Za-z]+)")
_UNESCAPED_BRACE_RE = re.compile(r"\\.|[{}]")
_MATH_DELIMITERS_RE = re.compile(r"^(\$\$|\$|\\\(|\\\[)(.*)(\$\$|\$|\\\)|\\\])$", re.S)
# Longer math is kept as written rather than handed to pylatexenc (titles and excerpts only).
_MAX_PLAIN_MATH = 300


def _math_as_text(math: str) -> str:
    """Math as Unicode text ($\\alpha^2$ -> α^2) where pylatexenc knows every command in it,
    else its source without the delimiters (an unknown macro would silently vanish)."""
    match = _MATH_DELIMITERS_RE.match(math)
    inner = match.group(2).strip() if match else math
    unknown = any(name not in _KNOWN_IN_MATH for name in _MATH_COMMAND_RE.findall(inner))
    if unknown or len(inner) > _MAX_PLAIN_MATH or not _balanced(inner):
        return inner
    try:
        text = _MATH_TO_TEXT.latex_to_text(inner)
    except Exception:  # pylatexenc raises its own errors on malformed input
        return inner
    # A command missing its arguments (\frac{a}) leaves pylatexenc's "%(2)s" placeholders.
    return inner if "%(" in text or "%s" in text else text


def _balanced(math: str) -> bool:
    """Whether the unescaped braces pair up (pylatexenc logs warnings on missing arguments)."""
    depth = 0
    for piece in _UNESCAPED_BRACE_RE.findall(math):  # \{ and \} come as escapes, skipped
        if piece == "{":
            depth += 1
        elif piece == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


_TAG_RE = re.compile(r"<[^>]*>")


def latex_to_plain_text(source: str) -> str:
    """`source` (a title, an excerpt) as plain Unicode text, for places where nothing is typeset
    (the browser tab's title, meta tags): text-mode LaTeX read as on the page, math as Unicode
    where it has a form ($\\alpha$ -> α), characters such as & and % as themselves."""
    text = _markdown_as_latex(" ".join(source.replace("\x00", "").split()))
    scanner = _Scanner(text, math=_math_as_text)
    # The scanner escaped every character of the input; what is left of `<` is our own tags.
    return " ".join(html.unescape(_TAG_RE.sub("", scanner.inline())).split())


def only_typesets(formula: str) -> bool:
    """Whether every command in the math `formula` is one that only typesets
    (TYPESETTING_MATH_COMMANDS). "^^5c" is TeX's spelling of a backslash, so it could hide any
    command from this check."""
    return "^^" not in formula and all(
        name in TYPESETTING_MATH_COMMANDS for name in _MATH_COMMAND_RE.findall(formula)
    )


_COMMAND_RE = re.compile(r"\\[A-Za-z]+")


def without_latex_commands(text: str) -> str:
    """`text` with every \\command name removed, for finding what a paper is about: "\\mathcal{O}"
    is notation, not a topic, and command names would otherwise relate any two papers that
    write math (rare in the catalogue, they would even rank first)."""
    return _COMMAND_RE.sub(" ", text)


def _accented_letter(match: re.Match[str]) -> str:
    """The letter an _ACCENT_RE match makes, composed (\\'e -> é)."""
    mark = _ACCENTS[match["symbol"] or match["letter"]]
    base = match["braced"] or match["bare"]
    base = base[1] if base.startswith("\\") else base  # \i and \j: the dotless letters
    return unicodedata.normalize("NFC", base + mark)


def accents_as_unicode(source: str) -> str:
    """`source` with its LaTeX accents outside math written as the letters they make
    (Schr\\"odinger, R{\\'e}nyi, Erd\\H{o}s -> Schrödinger, Rényi, Erdős) and everything else as
    written, math included. arXiv and OpenReview texts spell names this way; stored as letters,
    they are found by a search for "Schrödinger", match the same abstract from a reference
    manager (which decodes them) and export as text, not as a backslash."""
    if "\\" not in source:
        return source
    pieces = []
    position = 0
    for start, end in [*math_spans(source), (len(source), len(source))]:
        text = _BRACED_ACCENT_RE.sub(r"\g<accent>", source[position:start])
        pieces.append(_ACCENT_RE.sub(_accented_letter, text))
        pieces.append(source[start:end])
        position = end
    return "".join(pieces)
