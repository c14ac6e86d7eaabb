"""A highlight's quote as a reader reads it: the PDF's line breaks and end-of-line hyphenation
joined (docs/highlights.md, "Quotes").

The stored `exact` keeps PDF.js's text as it is (a "\\n" after each line), since anchoring
matches it against the page; everything shown to people uses `joined_quote`. The reader's
script applies the same rule to the quote it shows before saving (joinLines in
static/js/reader/highlights.js).

The rule, without a dictionary: a hyphen ending a line is the typesetter's, and is dropped,
when the next line starts with a lowercase letter, neither piece of the word around it holds a
hyphen already and the piece before it is not a prefix English always hyphenates ("self",
"cross"): "trans-\\nformer" is "transformer", while "state-of-\\nthe-art",
"Kullback-\\nLeibler", "GPT-\\n4" and "self-\\nattention" keep their hyphen. A word really
hyphenated at a line end ("pre-\\ntrained" for "pre-trained") loses it: a judgement the text
alone cannot make.
"""

from __future__ import annotations

import re

ALWAYS_HYPHENATED = frozenset({"self", "cross"})

# A hyphen (or soft hyphen) at a line's end, with the word pieces either side of it.
_BROKEN_WORD = re.compile(r"([\w-]*?)(\w+)([-\u00ad])[ \t]*\n\s*(\w+(?:-\w+)*)")
_LINE_BREAK = re.compile(r"\s*\n\s*")


def _join_word(match: re.Match[str]) -> str:
    before_compound, before, hyphen, after = match.groups()
    if hyphen == "\u00ad":  # a soft hyphen is the typesetter's by definition
        return f"{before_compound}{before}{after}"
    keeps_hyphen = (
        not after[0].islower()
        or "-" in before_compound
        or "-" in after
        or before.lower() in ALWAYS_HYPHENATED
    )
    return f"{before_compound}{before}{'-' if keeps_hyphen else ''}{after}"


def joined_quote(text: str) -> str:
    """`text` with hyphenated line ends joined as above and other line breaks as one space."""
    # Again while a line's only word was itself broken at both ends ("non-\ntrans-\nformer").
    while (joined := _BROKEN_WORD.sub(_join_word, text)) != text:
        text = joined
    return _LINE_BREAK.sub(" ", text).strip()
