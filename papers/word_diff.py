"""Word diffs of two values of one field, as curators compare them: the whole text with what
was removed and added marked, or a short excerpt of the changes for a list."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

_TOKENS = re.compile(r"\s+|[^\s]+")
SAME, REMOVED, ADDED = "same", "del", "ins"


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """(kind, text) pieces that turn `old` into `new` word by word, whitespace kept."""
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    # autojunk off: an abstract's common words must not be treated as noise.
    opcodes = SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    # (same text, or removed and added text): a space alone between two changes joins them,
    # so "Curated Title" -> "Disputed Paper" reads as one change, not two.
    runs: list[tuple[str | None, str, str]] = []
    for index, (tag, i1, i2, j1, j2) in enumerate(opcodes):
        before, after = "".join(a[i1:i2]), "".join(b[j1:j2])
        between = 0 < index < len(opcodes) - 1 and runs and runs[-1][0] is None
        if tag == "equal" and not (between and before.isspace()):
            runs.append((before, "", ""))
        elif runs and runs[-1][0] is None:
            _, removed, added = runs.pop()
            runs.append((None, removed + before, added + after))
        else:
            runs.append((None, before, after))
    pieces: list[tuple[str, str]] = []
    for same, removed, added in runs:
        if same is not None:
            pieces.append((SAME, same))
            continue
        if removed:
            pieces.append((REMOVED, removed))
        if added:
            pieces.append((ADDED, added))
    return pieces


def diff_html(old: str, new: str) -> SafeString:
    """The whole diff: removed words in <del>, added ones in <ins>, the rest as it is."""
    return _html(word_diff(old, new))


def short_diff(old: str, new: str, context: int = 3, limit: int = 160) -> SafeString:
    """Only the changes, each with `context` words either side, "…" for what is left out; at
    most about `limit` characters of text (a list's column, not two truncated abstracts)."""
    pieces = word_diff(old, new)
    shown: list[tuple[str, str]] = []
    size = 0
    for index, (kind, text) in enumerate(pieces):
        if kind == SAME:
            text = _context(text, context, before=index > 0, after=index < len(pieces) - 1)
        elif len(text) > limit // 2:
            # A long change (a link, a rewritten paragraph): its start and its end, where two
            # links to one site differ.
            keep = limit // 2 - 21
            text = text[:20] + "…" + text[-keep:]
        if size + len(text) > limit:
            shown.append((kind, text[: max(limit - size, 0)] + "…"))
            break
        shown.append((kind, text))
        size += len(text)
    return _html(shown)


def _context(text: str, context: int, *, before: bool, after: bool) -> str:
    """Unchanged text between changes as its `context` words next to each ("…" between)."""
    words = text.split()
    keep = context * (int(before) + int(after))
    if len(words) <= keep:
        return text
    head = [*words[:context], "…"] if before else ["…"]
    tail = words[-context:] if after else []
    return (" " if before else "") + " ".join(head + tail) + (" " if after else "")


_MARKUP = {SAME: "{}", REMOVED: "<del>{}</del>", ADDED: "<ins>{}</ins>"}


def _html(pieces: list[tuple[str, str]]) -> SafeString:
    """Each piece escaped, in its element; format_html does the escaping."""
    return format_html_join(
        "", "{}", ((format_html(_MARKUP[kind], text),) for kind, text in pieces)
    )
