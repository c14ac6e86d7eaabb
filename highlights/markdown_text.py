"""Markdown source written from text that must show as written: a PDF's words, a paper's
title, a list's name. Used by a lab highlight's comment (highlights.threads) and the "my notes
and highlights" file (highlights.markdown_export), which any Markdown viewer may render, some
with raw HTML live."""

from __future__ import annotations

import re

# What Markdown (with annotations.markdown's math) reads as syntax within a line, and at a
# line's start (headings, quotes, lists, rules). Escaping only these keeps the source, which
# recent activity and notifications quote, close to the words.
_INLINE_SYNTAX = re.compile(r"([\\`*_$<&~|])")
_LINE_START_SYNTAX = re.compile(r"^(\s*)([#>+=-])")
_LINE_START_NUMBER = re.compile(r"^(\s*\d+)([.)])")
# A heading's closing sequence: "Title #" would lose its "#".
_HEADING_END = re.compile(r"(#+\s*)$")
# Where CommonMark starts raw HTML (a tag, a comment, a declaration, a processing instruction)
# or an autolink: "<" before a letter, "/", "!" or "?".
_HTML_START = re.compile(r"<(?=[A-Za-z/!?])")


def markdown_literal(text: str) -> str:
    """`text` as Markdown that shows it as written: no emphasis, link, heading, list, math or
    HTML made of its words. Brackets become character references, since "\\[" opens display
    math (annotations.markdown's dollarmath)."""
    lines = []
    for line in text.splitlines():
        line = _INLINE_SYNTAX.sub(r"\\\1", line)
        line = _LINE_START_SYNTAX.sub(r"\1\\\2", line)
        line = _LINE_START_NUMBER.sub(r"\1\\\2", line)
        lines.append(line.replace("[", "&#91;").replace("]", "&#93;"))
    return "\n".join(lines)


def quoted_literal(text: str) -> str:
    """`text` as a block quote showing it as written, line by line."""
    lines = markdown_literal(text).splitlines() or [""]
    return "\n".join(f"> {line}" if line.strip() else ">" for line in lines)


def heading_literal(text: str, level: int) -> str:
    """A heading of `level` showing `text` (one line, whatever it held) as written."""
    line = _HEADING_END.sub(r"\\\1", markdown_literal(" ".join(text.split())))
    return f"{'#' * level} {line}"


def member_markdown(text: str) -> str:
    """A member's own Markdown (a note) kept as written, except that it cannot open raw HTML
    or an autolink: each such "<" is escaped (shown as "<"; in a code span or block, as "\\<")."""
    return _HTML_START.sub(r"\\<", text)
