"""The relevance benchmark (bench/relevance_bench.py) scores the search on a judged set."""

from __future__ import annotations

import json
import math

import pytest

from bench import relevance_bench
from bench.relevance_bench import Judged, ndcg, recall


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_ndcg_and_recall_at_ten_by_hand():
    relevant = frozenset({"a", "b"})
    assert ndcg(["a", "b", "x"], relevant) == 1.0
    # One of two relevant papers, second: 1/log2(3) over the ideal 1 + 1/log2(3).
    assert ndcg(["x", "a"], relevant) == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert recall(["x", "a"], relevant) == 0.5
    # Past the tenth place nothing counts.
    late = [f"x{n}" for n in range(10)] + ["a", "b"]
    assert ndcg(late, relevant) == 0.0 and recall(late, relevant) == 0.0
    assert ndcg([], relevant) == 0.0


def test_the_script_scores_a_tiny_judged_set(tmp_path, capsys):
    corpus = write_jsonl(
        tmp_path / "corpus.jsonl",
        [
            {
                "forum_id": "KD1",
                "title": "Knowledge distillation",
                "abstract": "A small student network imitates a large teacher.",
            },
            {
                "forum_id": "SEG",
                "title": "Semantic segmentation",
                "abstract": "Every pixel gets a class.",
            },
            {"forum_id": None, "title": "No forum id", "abstract": "Teachers and students."},
        ],
    )
    queries = write_jsonl(
        tmp_path / "queries.jsonl",
        [
            # No paper has all these words: only the fallback finds the right one.
            {"query": "a small network copying its teacher", "relevant": ["KD1"]},
            {"query": "class of every pixel", "relevant": ["SEG"]},
        ],
    )
    assert relevance_bench.main(["--queries", str(queries), "--corpus", str(corpus)]) == 0
    table = capsys.readouterr().out
    assert "Judged queries: 2; corpus: 3 papers" in table
    assert "| all words | 0.500 | 0.500 | 50% |" in table
    assert "| lexical + fallback | 1.000 | 1.000 | 0% |" in table


def test_a_judged_query_without_relevant_papers_is_refused(tmp_path):
    queries = write_jsonl(tmp_path / "queries.jsonl", [{"query": "anything", "relevant": []}])
    with pytest.raises(SystemExit, match="queries.jsonl:1"):
        relevance_bench.read_judged(queries)


def test_the_judged_set_is_large_enough_and_names_papers_once():
    judged = relevance_bench.read_judged(relevance_bench.QUERIES)
    assert len(judged) >= 40
    assert len({item.query for item in judged}) == len(judged)
    assert all(isinstance(item, Judged) and len(item.relevant) >= 2 for item in judged)
