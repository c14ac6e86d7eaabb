"""What a review, meta-review or decision note says besides its kind and ids (see
papers.importing.openreview, which reads the rest): its scores with their labels, its text
fields in the venue's order, who may read it and who signed it.

Real data is cleaned, never refused: a rating that is no number keeps its text as the label
and no number, a text over MAX_REVIEW_TEXT is cut at a word, readers that are no list make
the note members-only; each cleaning is a note for the import's report. No database.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from papers.text import (
    MAX_FORUM_ID,
    MAX_REVIEW_LABEL,
    MAX_REVIEW_TEXT,
    collapse_whitespace,
    cut_at_word,
    without_control_characters,
)

# "6: marginally above the acceptance threshold", "4", "3.5 (weak accept)": the leading number.
_LEADING_NUMBER = re.compile(r"\s*([-+]?\d+(?:\.\d+)?)(?![\d.])")
# A rating or confidence beyond this is no reviewer's score.
_MAX_SCORE = 1000
EVERYONE = "everyone"  # OpenReview's readers value for a public note

# The content fields shown elsewhere (scores, the decision) or that say nothing to a reader
# (the reviewer's pledges and flags).
_NOT_TEXT = frozenset(
    {
        "title",
        "rating",
        "confidence",
        "decision",
        "recommendation",
        "code_of_conduct",
        "first_time_reviewer",
        "flag_for_ethics_review",
        "ethics_review_flag",
    }
)
# Known fields in the order OpenReview's review, meta-review and decision forms ask for them
# (ICLR, NeurIPS, TMLR); others follow in the note's own order.
_FORM_ORDER = {
    name: position
    for position, name in enumerate(
        (
            "summary",
            "summary_of_the_paper",
            "metareview",
            "main_review",
            "review",
            "soundness",
            "presentation",
            "contribution",
            "strengths",
            "weaknesses",
            "strengths_and_weaknesses",
            "questions",
            "limitations",
            "justification_for_why_not_higher_score",
            "justification_for_why_not_lower_score",
            "additional_comments_on_reviewer_discussion",
            "details_of_ethics_concerns",
            "comment",
        )
    )
}


def plain(value: Any) -> Any:
    """A content field's value, whether wrapped as in API v2 ({"value": ...}) or plain (v1)."""
    return value.get("value") if isinstance(value, dict) else value


@dataclass(frozen=True)
class Score:
    number: float | None
    label: str  # the text as given ("6: marginally above ..."), "" for a bare number
    problem: str = ""  # why the number was not kept, for the report


def score(raw: Any) -> Score:
    """A rating or confidence: a number, or text starting with one."""
    value = plain(raw)
    if value is None or (isinstance(value, str) and not value.strip()):
        return Score(None, "")
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return Score(None, "", "is not a number nor text starting with one; left out")
    label = ""
    if isinstance(value, str):
        label = cut_at_word(
            collapse_whitespace(without_control_characters(value)), MAX_REVIEW_LABEL
        )
        match = _LEADING_NUMBER.match(value)
        if not match:
            return Score(None, label, f"{_shown(value)} does not start with a number; kept as text")
        value = match[1]
    number = float(value)
    if not math.isfinite(number) or abs(number) > _MAX_SCORE:
        return Score(None, label, f"{value} is not a score (at most {_MAX_SCORE} either way)")
    return Score(number, label)


def text_fields(content: dict) -> tuple[list[tuple[str, str]], list[str]]:
    """The note's texts as (field name, text) pairs in the form's order, and what was cleaned.
    A field only some may read (its own `readers` without everyone: a confidential comment to
    the chairs) is left out, whoever may read the note."""
    texts: list[tuple[int, int, str, str]] = []
    cleaned: list[str] = []
    for position, (name, raw) in enumerate(content.items()):
        if name in _NOT_TEXT or not isinstance(name, str):
            continue
        if isinstance(raw, dict) and "readers" in raw and not _includes_everyone(raw["readers"]):
            continue
        value = plain(raw)
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            value = "\n".join(value)
        if not isinstance(value, str) or not value.strip():
            continue
        # \r is a control character: line breaks are made \n first, which Markdown needs.
        text = without_control_characters(value.replace("\r\n", "\n").replace("\r", "\n"))
        text = text.strip()
        if len(text) > MAX_REVIEW_TEXT:
            text = cut_at_word(text, MAX_REVIEW_TEXT)
            cleaned.append(f"content.{name}: cut to {MAX_REVIEW_TEXT:,} characters")
        order = _FORM_ORDER.get(name, len(_FORM_ORDER))
        texts.append((order, position, name[:MAX_FORUM_ID], text))
    return [(name, text) for _, _, name, text in sorted(texts)], cleaned


def readers(note: dict) -> tuple[list[str], bool, str]:
    """The note's readers, whether it is public, and what was cleaned. A note that names no
    readers is read as published (what saved dumps of public forums hold); readers that are
    not a list of names make it members-only, the safe reading."""
    raw = note.get("readers")
    if raw is None:
        return [], True, ""
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(item, str) for item in raw):
        return [], False, "readers is not a list of names; shown to members only"
    names = [item.strip()[:MAX_FORUM_ID] for item in raw if item.strip()]
    return names, _includes_everyone(names), ""


def _includes_everyone(value: Any) -> bool:
    return isinstance(value, list) and EVERYONE in value


def reviewer(note: dict) -> str:
    """Who signed the note as a reader knows them: "Reviewer a1Bc", "Area Chair x9", "Program
    Chairs" (the last part of the signature's group), or "" when unsigned."""
    signatures = note.get("signatures")
    if not isinstance(signatures, list) or not signatures or not isinstance(signatures[0], str):
        return ""
    name = signatures[0].rsplit("/", 1)[-1].lstrip("~")
    return collapse_whitespace(without_control_characters(name.replace("_", " ")))[:MAX_FORUM_ID]


def _shown(value: str) -> str:
    return repr(value if len(value) <= 60 else value[:60] + "...")
