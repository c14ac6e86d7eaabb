"""The search box's query language, read into a small tree of plain words.

Websearch syntax (bare words AND-ed, "quoted phrases", -exclude or NOT, `or`, a trailing `*`)
becomes groups of clauses; whatever cannot be searched is dropped here. Every search backend
renders this tree itself, so user text never reaches an engine as query syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Enough for any real query; bounds the work a pasted essay can cause.
MAX_QUERY_CHARS = 500
MAX_CLAUSES = 32
# A quoted phrase keeps its first words only. Phrase matching of a repeated word against an
# abstract repeating it costs more with every word (PostgreSQL's ts_headline ran out of memory
# on a 64-word phrase; FTS5 took 45 ms per statement on a 240-word one); ten words pin down
# any real title fragment.
MAX_PHRASE_WORDS = 10
# While typing, the last word matches as a prefix from this many characters on: a one-letter
# prefix would expand to a large share of the index's vocabulary.
MIN_PREFIX_CHARS = 2

_WORD = re.compile(r"[^\W_]+")
_BARE = re.compile(r'[^\s"]+')

# PostgreSQL's english stop-word list (tsearch_data/english.stop). SQLite's FTS5 has no stop
# words, so the parser drops them for both backends to give the same answers.
STOP_WORDS = frozenset(
    """
    i me my myself we our ours ourselves you your yours yourself yourselves he him his himself
    she her hers herself it its itself they them their theirs themselves what which who whom
    this that these those am is are was were be been being have has had having do does did
    doing a an the and but if or because as until while of at by for with about against between
    into through during before after above below to from up down in out on off over under again
    further then once here there when where why how all any both each few more most other some
    such no nor not only own same so than too very s t can will just don should now
    """.split()
)


@dataclass(frozen=True)
class Clause:
    """A word or a phrase (consecutive words), possibly excluded with a leading minus.

    `prefix`: the last word is still being typed and matches any word it begins.
    `exact`: a hyphenated compound ("in-context", "out-of-distribution"): its stop words must
    be there too, where a quoted phrase's only hold their place.
    """

    words: tuple[str, ...]
    negated: bool = False
    prefix: bool = False
    exact: bool = False


# A query is an OR of groups; a group is an AND of clauses with at least one positive clause.
ParsedQuery = tuple[tuple[Clause, ...], ...]


def parse_query(text: str, *, prefix_last: bool = False) -> ParsedQuery:
    """Read websearch syntax into groups of clauses; drop whatever cannot be searched.

    Like PostgreSQL's websearch_to_tsquery: `or` separates groups (AND binds tighter than OR),
    a leading `-` or an upper-case NOT excludes, `|` and `||` are `or`, an unmatched quote runs
    to the end. A word ending in `*` matches as a prefix (with MIN_PREFIX_CHARS characters or
    more, not a stop word); a field name before a colon (`title:`) is left out. Clauses made
    only of stop words or punctuation disappear, and so does a group with nothing but
    exclusions (it would match almost every paper). A phrase keeps its first MAX_PHRASE_WORDS words.

    `prefix_last` (search as you type): the word the text ends in, if it is still open (no
    space, closing quote or punctuation after it) and belongs to a wanted clause, is marked as
    a prefix when it has MIN_PREFIX_CHARS characters or more and is not a stop word.
    """
    return _parse(text, prefix_last=prefix_last, exclusions=True)


def _parse(text: str, *, prefix_last: bool, exclusions: bool) -> ParsedQuery:
    """parse_query; with `exclusions` off, excluded clauses read as wanted ones."""
    text = (text or "").replace("\x00", " ")[:MAX_QUERY_CHARS]
    groups: list[list[Clause]] = [[]]
    count = 0
    pos = 0
    # An upper-case NOT before a clause (boolean habits: "diffusion NOT graph") excludes it as
    # a minus sign does: read as the stop word "not", it would ask for the graph papers.
    not_pending = False
    while pos < len(text) and count < MAX_CLAUSES:
        char = text[pos]
        if char.isspace():
            pos += 1
            continue
        negated = not_pending
        not_pending = False
        if char == "-" and pos + 1 < len(text) and not text[pos + 1].isspace():
            negated = True
            pos += 1
        quoted = text[pos] == '"'
        if quoted:
            end = text.find('"', pos + 1)
            end = len(text) if end == -1 else end
            chunk, pos = text[pos + 1 : end], end + 1
        else:
            match = _BARE.match(text, pos)
            assert match is not None  # text[pos] is neither a space nor a quote
            chunk, pos = match.group(), match.end()
            if not negated and (chunk.casefold() == "or" or chunk in _OR_SIGNS):
                groups.append([])
                continue
            if chunk == "NOT":
                not_pending = True
                continue
            # "title:diffusion", "author:finn": other search boxes' field syntax. The words are
            # searched as any others (title, authors and abstract); read as a phrase with the
            # field's name ("title diffusion") they would match nothing.
            field, colon, rest = chunk.partition(":")
            if colon and field.casefold() in FIELD_NAMES:
                if not rest:  # title:"diffusion models": the phrase comes next
                    not_pending = negated
                    continue
                chunk = rest
        # "diff*": the wildcard of other search boxes, a word beginning so.
        starred = not quoted and chunk.endswith("*") and _WORD.fullmatch(chunk.rstrip("*"))
        all_words = tuple(_WORD.findall(chunk.casefold()))
        words = all_words[:MAX_PHRASE_WORDS]
        negated = negated and exclusions
        if words and not all(word in STOP_WORDS for word in words):
            typed = (
                prefix_last
                and pos >= len(text)
                and _WORD.fullmatch(text[-1]) is not None
                and words == all_words
            )
            prefix = (
                bool(typed or starred)
                and not negated
                and len(words[-1]) >= MIN_PREFIX_CHARS
                and words[-1] not in STOP_WORDS
            )
            # "in-context learning" is about in-context learning, not context and learning.
            exact = not quoted and len(words) > 1 and "-" in chunk
            groups[-1].append(Clause(words, negated, prefix, exact))
            count += 1
    return tuple(tuple(group) for group in groups if any(not clause.negated for clause in group))


def excludes_only(text: str) -> bool:
    """Whether `text` names words to exclude ("-diffusion") but none to look for, so that
    parse_query reads nothing from it: the page says so, rather than blaming common words."""
    return not parse_query(text) and bool(_parse(text, prefix_last=False, exclusions=False))


# Field names as other search boxes write them before a colon.
FIELD_NAMES = frozenset({"title", "abstract", "author", "authors"})

# What separates alternatives besides `or`, as programmers write it.
_OR_SIGNS = frozenset({"|", "||"})


def parse_typed_words(text: str) -> Clause | None:
    """What someone remembers of a title or an author's name, as one phrase of plain words.

    For suggestion boxes: no search syntax, so quotes, minus signs and `or` are punctuation or
    words like any other and a title can be typed as it is written. Its first MAX_PHRASE_WORDS
    words are kept; the last word is a prefix under parse_query's rule for search as you type
    (still open, long enough, not a stop word). None when only stop words or punctuation remain.
    """
    text = (text or "").replace("\x00", " ")[:MAX_QUERY_CHARS]
    all_words = tuple(_WORD.findall(text.casefold()))
    words = all_words[:MAX_PHRASE_WORDS]
    if not words or all(word in STOP_WORDS for word in words):
        return None
    prefix = (
        words == all_words
        and _WORD.fullmatch(text[-1]) is not None
        and len(words[-1]) >= MIN_PREFIX_CHARS
        and words[-1] not in STOP_WORDS
    )
    return Clause(words, prefix=prefix)
