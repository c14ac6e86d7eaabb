"""The relevance benchmark (bench/relevance_bench.py) scores the search on a judged set."""

from __future__ import annotations

import json
import math

import pytest

from bench import relevance_bench
from bench.relevance import pool, second_judge
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
    assert len(judged) >= 104
    assert len({item.query for item in judged}) == len(judged)
    assert all(isinstance(item, Judged) and len(item.relevant) >= 2 for item in judged)
    sets = [item.set for item in judged]
    assert sets.count("original") == 44 and sets.count("grown") >= 60


TINY_CORPUS = [
    {"forum_id": "KD1", "title": "Knowledge distillation", "abstract": "A student imitates."},
    {"forum_id": "SEG", "title": "Semantic segmentation", "abstract": "Every pixel gets a class."},
    {"forum_id": "FED", "title": "Federated learning", "abstract": "Clients keep their data."},
]


def test_each_set_gets_its_own_table_and_all_of_them_one(tmp_path, capsys):
    corpus = write_jsonl(tmp_path / "corpus.jsonl", TINY_CORPUS)
    queries = write_jsonl(
        tmp_path / "queries.jsonl",
        [
            {"query": "knowledge distillation", "relevant": ["KD1"]},  # no set: original
            {"query": "zebra crossing", "relevant": ["SEG"], "set": "original"},
            {"query": "federated learning", "relevant": ["FED"], "set": "grown"},
        ],
    )
    assert relevance_bench.main(["--queries", str(queries), "--corpus", str(corpus)]) == 0
    tables = capsys.readouterr().out.split("Judged queries: ")
    original = next(t for t in tables if "(set original)" in t)
    grown = next(t for t in tables if "(set grown)" in t)
    everything = next(t for t in tables if "(set all)" in t)
    assert original.startswith("2 (set original)")
    assert "| all words | 0.500 | 0.500 | 50% |" in original
    assert grown.startswith("1 (set grown)")
    assert "| all words | 1.000 | 1.000 | 0% |" in grown
    assert everything.startswith("3 (set all)")
    assert "| all words | 0.667 | 0.667 | 33% |" in everything


def test_one_set_alone_prints_one_table(tmp_path, capsys):
    corpus = write_jsonl(tmp_path / "corpus.jsonl", TINY_CORPUS)
    queries = write_jsonl(
        tmp_path / "queries.jsonl",
        [
            {"query": "zebra crossing", "relevant": ["SEG"], "set": "original"},
            {"query": "federated learning", "relevant": ["FED"], "set": "grown"},
        ],
    )
    args = ["--queries", str(queries), "--corpus", str(corpus), "--set", "grown"]
    assert relevance_bench.main(args) == 0
    out = capsys.readouterr().out
    assert "Judged queries: 1 (set grown)" in out
    assert "| all words | 1.000 | 1.000 | 0% |" in out
    assert "(set original)" not in out and "(set all)" not in out
    assert relevance_bench.main([*args[:-1], "nowhere"]) == 2


def test_a_set_named_all_is_refused_and_a_missing_set_is_original(tmp_path):
    fine = write_jsonl(tmp_path / "fine.jsonl", [{"query": "q", "relevant": ["A"]}])
    assert relevance_bench.read_judged(fine)[0].set == "original"
    for bad in ("all", "", 3):
        path = write_jsonl(tmp_path / "bad.jsonl", [{"query": "q", "relevant": ["A"], "set": bad}])
        with pytest.raises(SystemExit, match="bad.jsonl:1"):
            relevance_bench.read_judged(path)


def grown_rows():
    rows = relevance_bench.read_jsonl(relevance_bench.QUERIES)
    return [row for row in rows if row.get("set") == "grown"]


def test_grown_questions_record_their_judgements_and_avoid_their_terms():
    rows = grown_rows()
    assert len({row["id"] for row in rows}) == len(rows)
    for row in rows:
        assert 3 <= len(row["relevant"]) <= 25, row["id"]
        assert row["judged"] and not set(row["relevant"]) & set(row["judged"]), row["id"]
        assert pool.leaks(row) == set(), row["id"]
    # The check can fail: a question that says its terms out loud leaks them.
    assert pool.leaks({"query": "federated learning across hospitals", "terms": ["federated"]})


def test_cohen_kappa_by_hand():
    assert second_judge.kappa([True, False, False, True], [True, False, False, True]) == (1, 1)
    # Agreeing on 3 of 4 when each judge says yes half the time: chance 0.5, kappa 0.5.
    agree, kappa = second_judge.kappa([True, True, False, False], [True, False, False, False])
    assert agree == 0.75 and kappa == pytest.approx(0.5)
