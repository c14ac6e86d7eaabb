"""LaTeX as the Unicode text it prints: what the BibTeX reader decodes every field with, and what
validate_record decodes author names with (arXiv, RIS and other sources spell a name
"Erd\\H{o}s" or "J{\\"u}rgen" as often as BibTeX does).

pylatexenc (which bibtexparser brings) does the decoding, set up as bibtexparser's LaTeX
middleware sets it up, with mathematics kept as written and TeX's ligatures as typed.
"""

from __future__ import annotations

import re

from pylatexenc import latexwalker
from pylatexenc.latex2text import (
    LatexNodes2Text,
    MacroTextSpec,
    SpecialsTextSpec,
    get_default_latex_context_db,
)

# No real title nests braces or environments this deep; pylatexenc recurses per level and would
# hit Python's recursion limit a few hundred levels down.
MAX_NESTING = 32
# The characters _DECODER changes; text without any of them decodes to itself.
_LATEX_SPECIAL = re.compile(r"[\\{}%&~]")
# Text with none of these has nothing but braces for _DECODER to change: Zotero protects the
# case of most title words that way ({Recursive} {Retrieval}), and dropping the braces is all
# decoding does to them. Math is left to the decoder, which keeps its braces.
_NEEDS_DECODER = re.compile(r"[\\%&~$]")
# TeX's ligatures, kept as typed: our export and Zotero's write a title's "--" or "``" as it is,
# so reading them as dashes and curly quotes would change the title.
_LIGATURES = ("---", "--", "``", "''", "!`", "?`")
# A `%` or `&` without a backslash of its own: in a field they are meant as text, but LaTeX
# would start a comment (dropping the rest of the value) or an alignment cell.
_BARE_SPECIAL = re.compile(r"(?<!\\)((?:\\\\)*)([%&])")
_LATEX_TOKEN = re.compile(r"\\(?:[A-Za-z@]+|.)|[{}$]|\s+", re.DOTALL)
# Citation commands (natbib's and biblatex's too), with their optional [pre][post] notes and
# {keys}. pylatexenc prints them as "<cit.>" (or, unknown to it, as the keys); an abstract read
# on its own has no bibliography to point to, so they are dropped.
_CITE_COMMAND = (
    r"(?<!\\)\\(?:[Cc]ite(?:p|t|alp|alt|author|year)?|[Pp]arencite|[Tt]extcite|[Aa]utocite"
    r"|[Ff]ootcite|nocite)\*?(?:\s*\[[^\[\]{}]*\]){0,2}\s*\{[^{}]*\}"
)
# A citation with its tie (~), or a pair of parentheses or brackets holding nothing else:
# "work (\cite{a}) is" reads "work is". No part of the pattern can match one stretch of spaces
# in two ways, and it starts at a citation's first character, so the search stays linear (the
# space before a citation is taken off by _without_citations, not by the pattern).
_CITATION = re.compile(
    rf"~?{_CITE_COMMAND}"
    rf"|\((?:\s*(?:[,;]\s*)?{_CITE_COMMAND})+\s*\)"
    rf"|\[(?:\s*(?:[,;]\s*)?{_CITE_COMMAND})+\s*\]"
)


class NestedTooDeep(ValueError):
    """LaTeX nested past MAX_NESTING: a limit of ours, which a BibTeX file is refused for
    (at the field's line), not a failure of the decoder."""


def _without_citations(value: str) -> str:
    """`value` without its citations and the space before each, so "models~\\cite{a}." reads
    "models.". At most one line break before a citation goes: a blank line (a paragraph
    break) stays."""
    pieces: list[str] = []
    position = 0
    for match in _CITATION.finditer(value):
        before = value[position : match.start()].rstrip(" \t")
        if before.endswith("\n") and not before.endswith("\n\n"):
            before = before[:-1].rstrip(" \t")
        pieces.append(before)
        position = match.end()
    pieces.append(value[position:])
    return "".join(pieces)


def _decoder() -> LatexNodes2Text:
    """pylatexenc as bibtexparser's LaTeX-decoding middleware sets it up (braces dropped, math
    verbatim, \\url's argument as is), ligatures kept, plus three text commands our BibTeX
    export writes and pylatexenc 2.11 gets wrong: it drops \\textbraceleft and
    \\textbraceright and turns \\textasciicircum into U+02C6. And \\maketitle prints
    nothing: pylatexenc prints the \\title, \\author and \\date its one decoder was last
    given, which would put one record's text (and today's date) into another's."""
    context = get_default_latex_context_db()
    context.add_context_category(
        "paperbrowser-bibtex",
        prepend=True,
        macros=[
            MacroTextSpec("url", simplify_repl="%s"),
            MacroTextSpec("textbraceleft", simplify_repl="{"),
            MacroTextSpec("textbraceright", simplify_repl="}"),
            MacroTextSpec("textasciicircum", simplify_repl="^"),
            MacroTextSpec("maketitle", simplify_repl=""),
        ],
        specials=[SpecialsTextSpec(ligature, simplify_repl=ligature) for ligature in _LIGATURES],
    )
    return LatexNodes2Text(latex_context=context, keep_braced_groups=False, math_mode="verbatim")


_DECODER = _decoder()
# How LaTeX is parsed (which macros take arguments). pylatexenc builds it anew for every string
# unless it is given one, which took a third of the decoding time.
_PARSING_CONTEXT = latexwalker.get_default_latex_context_db()


def latex_to_text(value: str) -> str:
    """LaTeX as the Unicode text it prints, mathematics kept as written.

    pylatexenc takes some milliseconds per kilobyte, too slow for 10,000s of abstracts, and
    most words in a field are plain text. So the value is cut at spaces that are outside
    braces, environments and math and do not follow a command (whose argument may come after
    the space), and only the pieces holding something LaTeX would change go through
    pylatexenc. Raises NestedTooDeep for nesting deeper than MAX_NESTING; pylatexenc itself
    raises on some macros (IndexError for \\href, KeyError for \\sqrt without an argument):
    callers that must not lose a record go through cleaning.converted.
    """
    value = _BARE_SPECIAL.sub(r"\1\\\2", value)
    if "\\" in value:  # a citation is a command; most values have none
        value = _without_citations(value)
    if not _LATEX_SPECIAL.search(value):
        return value
    pieces: list[str] = []
    start = depth = 0
    in_math = after_command = False
    for token in _LATEX_TOKEN.finditer(value):
        text = token.group()
        if text[0].isspace():
            if not (depth or in_math or after_command):
                pieces.append(_decode_piece(value[start : token.start()]))
                pieces.append(text)
                start = token.end()
            after_command = False
            continue
        after_command = text[0] == "\\"
        if text in ("{", "\\begin"):
            depth += 1
            if depth > MAX_NESTING:
                raise NestedTooDeep(f"braces or environments nest deeper than {MAX_NESTING} levels")
        elif text in ("}", "\\end"):
            depth = max(depth - 1, 0)
        elif text == "$":
            in_math = not in_math
        elif text in ("\\(", "\\["):
            in_math = True
        elif text in ("\\)", "\\]"):
            in_math = False
    pieces.append(_decode_piece(value[start:]))
    return "".join(pieces)


def _decode_piece(piece: str) -> str:
    if not _LATEX_SPECIAL.search(piece):
        return piece
    if not _NEEDS_DECODER.search(piece):
        return piece.replace("{", "").replace("}", "")
    try:
        return _DECODER.latex_to_text(piece, latex_context=_PARSING_CONTEXT)
    except RecursionError:
        # Unreachable within MAX_NESTING; kept so a construct it misses fails one file cleanly.
        raise NestedTooDeep("the LaTeX nests too deeply to decode") from None


def author_name_as_text(name: str) -> str:
    """An author's name with its LaTeX written as the letters it makes, on one line:
    "Paul Erd\\H{o}s" -> "Paul Erdős", "S{\\o}ren" -> "Søren", "Stra\\ss{}er" -> "Straßer".
    Only a name with a backslash is decoded: braces alone ("{van der} Berg" from a reference
    manager) may be meant, and a name without LaTeX must stay byte for byte what it was, as the
    key it is matched on. A name nested past MAX_NESTING, or read as nothing, is kept as
    written; the decoder's own failures are the caller's (cleaning.converted)."""
    if "\\" not in name:
        return name
    try:
        decoded = " ".join(latex_to_text(name).split())
    except NestedTooDeep:  # kept, for the record's checks to judge
        return name
    return decoded or name
