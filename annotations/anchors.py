"""Comments anchored in a paper's abstract: the text both sides count in, finding a quote in
it, and re-anchoring when the abstract changes.

An anchor is a W3C Web Annotation TextQuoteSelector (the quote, with a little text before and
after it) plus a TextPositionSelector used only as a hint: the quote is what identifies the
place, so an anchor survives edits that move its words and is orphaned (kept, with its quote)
when they are gone.

Positions count characters (Python `str` indices, which are Unicode code points) in
`plain_text(abstract)`: the abstract as papers.latex renders it with the tags taken away, so
exactly the `textContent` of the page's `.abstract-text` element before KaTeX typesets it:
text-mode LaTeX read as on the page (\\emph{x} -> x, \\'e -> é), math as its source with its
delimiters ($x^2$), one "\\n" between paragraphs and for each line break. static/js/anchors.js
reads that textContent before math.js runs (it converts its UTF-16 offsets to code points
when it sends them) and maps a selection in the typeset page back onto it.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass

from annotations.models import QUOTE_CONTEXT_LENGTH, QUOTE_MAX_LENGTH, AnchorState, Comment
from papers.latex import render_latex_text
from papers.models import Paper

_TAG_RE = re.compile(r"<[^>]*>")


def plain_text(abstract: str) -> str:
    """The abstract's text as the page shows it before math is typeset (see the module)."""
    # render_latex_text escapes every character of the input, so each `<` left is our own tag.
    return html.unescape(_TAG_RE.sub("", render_latex_text(abstract or "")))


@dataclass(frozen=True)
class Anchor:
    quote: str
    prefix: str = ""
    suffix: str = ""
    start: int | None = None


def anchor_problem(anchor: Anchor) -> str | None:
    """Why the anchor cannot be stored, in words for the form; None if it can."""
    if not anchor.quote.strip():
        return "The quoted text is empty: select some words of the abstract."
    if len(anchor.quote) > QUOTE_MAX_LENGTH:
        return f"Quote at most {QUOTE_MAX_LENGTH:,} characters of the abstract."
    if len(anchor.prefix) > QUOTE_CONTEXT_LENGTH or len(anchor.suffix) > QUOTE_CONTEXT_LENGTH:
        return "The text around the quote is too long."
    return None


def locate(text: str, anchor: Anchor) -> int | None:
    """Where the quote starts in `text`: of its exact occurrences, the one whose surrounding
    text matches the anchor's prefix and suffix best, then the nearest to the position hint.
    None when the quote does not occur."""
    quote = anchor.quote
    if not quote:
        return None
    best: tuple[int, int] | None = None
    best_start = None
    start = text.find(quote)
    while start != -1:
        context = _common_suffix(text[max(0, start - len(anchor.prefix)) : start], anchor.prefix)
        end = start + len(quote)
        context += _common_prefix(text[end : end + len(anchor.suffix)], anchor.suffix)
        distance = abs(start - anchor.start) if anchor.start is not None else 0
        score = (-context, distance)
        if best is None or score < best:
            best, best_start = score, start
        start = text.find(quote, start + 1)
    return best_start


def _common_prefix(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _common_suffix(a: str, b: str) -> int:
    return _common_prefix(a[::-1], b[::-1])


def context_of(text: str, start: int, quote: str) -> tuple[str, str]:
    """The prefix and suffix an anchor at `start` stores (up to QUOTE_CONTEXT_LENGTH each)."""
    end = start + len(quote)
    return text[max(0, start - QUOTE_CONTEXT_LENGTH) : start], text[
        end : end + QUOTE_CONTEXT_LENGTH
    ]


def reanchor(comments: Iterable[Comment], text: str) -> list[Comment]:
    """Re-attach each anchored comment to `text` (the abstract's new plain text) by its quote,
    or orphan it; returns the comments that changed, for the caller to save. The quote itself
    is never changed or dropped."""
    changed = []
    for comment in comments:
        anchor = Anchor(
            comment.quote, comment.quote_prefix, comment.quote_suffix, comment.quote_start
        )
        start = locate(text, anchor)
        state = AnchorState.ORPHANED if start is None else AnchorState.ATTACHED
        if (start, state) != (comment.quote_start, comment.anchor_state):
            comment.quote_start, comment.anchor_state = start, state
            changed.append(comment)
    return changed


# Papers per query when re-anchoring after an import (SQLite allows 32,766 parameters).
_CHUNK = 500


def reanchor_papers(paper_ids: Iterable[int], using: str = "default") -> int:
    """Re-anchor the comments on these papers to their current abstracts: per 500 papers, one
    query when none of their comments is anchored, three otherwise. Returns how many comments
    changed."""
    ids = sorted(set(paper_ids))
    changed = 0
    for start in range(0, len(ids), _CHUNK):
        changed += _reanchor_chunk(ids[start : start + _CHUNK], using)
    return changed


def _reanchor_chunk(ids: list[int], using: str) -> int:
    anchored = list(
        Comment.objects.using(using)
        .filter(paper_id__in=ids)
        .exclude(quote="")
        .only("paper_id", "quote", "quote_prefix", "quote_suffix", "quote_start", "anchor_state")
    )
    if not anchored:
        return 0
    abstracts = (
        Paper.objects.using(using)
        .filter(pk__in={c.paper_id for c in anchored})
        .values_list("pk", "abstract")
    )
    changed: list[Comment] = []
    for paper_id, abstract in abstracts:
        on_paper = [c for c in anchored if c.paper_id == paper_id]
        changed += reanchor(on_paper, plain_text(abstract))
    # bulk_update, not save(): re-anchoring is not an edit (no edited_at, no notifications).
    Comment.objects.using(using).bulk_update(changed, ["quote_start", "anchor_state"])
    return len(changed)
