"""How close in meaning counts as close, for each model.

Each model spreads its cosines its own way: all-mpnet-base-v2's run lower than
all-MiniLM-L6-v2's, so a bar chosen on one lists too few or too many papers with the other.
The bars are chosen per model on the same evidence, by `python -m bench.min_cosine`
(docs/semantic.md, "How close counts as close"):

- a search's neighbours (MIN_COSINE): the lowest bar at which at most one in twenty off-topic
  questions (bench/relevance/off_topic.txt: bread, cricket, taxes) lists a neighbour: lower
  bars list the catalogue's nearest papers for a question about bread, higher ones drop
  relevant neighbours (the hybrid search's recall@10 on the judged questions falls);
- a paper's similar papers (MIN_NEIGHBOUR_COSINE): the cosine at the same quantile of the
  corpus's paper-to-paper cosines as all-MiniLM-L6-v2's 0.3, where these were first chosen.

A model is looked up by its stored name ("all-mpnet-base-v2-int8"), then without its weights'
suffix (int8 weights move a vector little: docs/semantic.md); a model measured by no one gets
DEFAULT. settings.SEMANTIC_MIN_COSINE, when set, replaces the search's bar for every model
(the hybrid benchmark sets -1, so that every search fuses its full share of neighbours).
"""

from __future__ import annotations

from django.conf import settings

DEFAULT = 0.3
INT8_SUFFIX = "-int8"

# Measured 2026-12-06 (bench/min_cosine.py, 106 judged and 20 off-topic questions): the lowest
# bar, on a grid of 0.01, at which at most one off-topic question in twenty lists a neighbour.
# all-MiniLM-L6-v2: 0.28 (hybrid recall@10 0.271, 0.263 at its earlier 0.30); all-mpnet-base-v2
# int8: 0.29 (recall@10 0.326; every bar from 0.20 to 0.34 scores 0.322-0.330).
MIN_COSINE = {
    "all-MiniLM-L6-v2": 0.28,
    "all-mpnet-base-v2": 0.29,
}
# all-MiniLM-L6-v2's 0.30 is the 48th percentile of the corpus's paper-to-paper cosines;
# all-mpnet-base-v2 int8's 48th percentile is 0.34.
MIN_NEIGHBOUR_COSINE = {
    "all-MiniLM-L6-v2": 0.30,
    "all-mpnet-base-v2": 0.34,
}


def _of_model(bars: dict[str, float], model: str) -> float:
    if model in bars:
        return bars[model]
    return bars.get(model.removesuffix(INT8_SUFFIX), DEFAULT)


def min_cosine(model: str) -> float:
    """The least cosine with a search's question at which a paper is listed as close in
    meaning, for the model named `model`."""
    if settings.SEMANTIC_MIN_COSINE is not None:
        return settings.SEMANTIC_MIN_COSINE
    return _of_model(MIN_COSINE, model)


def min_neighbour_cosine(model: str) -> float:
    """The least cosine with a paper at which another is one of its similar papers."""
    return _of_model(MIN_NEIGHBOUR_COSINE, model)
