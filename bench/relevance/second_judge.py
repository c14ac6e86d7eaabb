"""Blind second judgement of a random share of the grown set's (question, paper) pairs.

    python -m bench.relevance.second_judge sample [--share 0.2] [--seed 7] > sheet.txt
        prints the sampled pairs in shuffled order (question, title, abstract opening), numbered,
        without the first label; writes the sample's keys to second_judge_sample.jsonl
    python -m bench.relevance.second_judge score LABELS
        LABELS: the numbers of the sheet judged relevant, whitespace separated; prints the
        agreement with the first judgement (queries.jsonl), Cohen's kappa and the disagreements

The sheet shows no source (words, regex, meaning) and no first label, so the second pass
cannot follow the first.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from bench.relevance_bench import QUERIES, default_corpus, read_jsonl

HERE = Path(__file__).resolve().parent
SAMPLE = HERE / "second_judge_sample.jsonl"


def pairs(rows: list[dict]) -> list[tuple[str, str, bool]]:
    """(question id, forum id, first label) for every judged pair of the grown set."""
    out = []
    for row in rows:
        if row.get("set") != "grown":
            continue
        out += [(row["id"], key, True) for key in row["relevant"]]
        out += [(row["id"], key, False) for key in row["judged"]]
    return out


def kappa(first: list[bool], second: list[bool]) -> tuple[float, float]:
    """Observed agreement and Cohen's kappa of two binary labelings."""
    n = len(first)
    agree = sum(a == b for a, b in zip(first, second, strict=True)) / n
    p1, p2 = sum(first) / n, sum(second) / n
    chance = p1 * p2 + (1 - p1) * (1 - p2)
    return agree, (agree - chance) / (1 - chance) if chance < 1 else 1.0


def sample(share: float, seed: int) -> None:
    rows = read_jsonl(QUERIES)
    questions = {row["id"]: row["query"] for row in rows if row.get("set") == "grown"}
    papers = {r.get("forum_id"): r for r in read_jsonl(default_corpus())}
    chosen = random.Random(seed).sample(pairs(rows), round(share * len(pairs(rows))))
    with SAMPLE.open("w", encoding="utf-8") as out:
        for number, (qid, key, _) in enumerate(chosen, start=1):
            out.write(json.dumps({"n": number, "id": qid, "forum_id": key}) + "\n")
            paper = papers[key]
            opening = " ".join(paper["abstract"].split())[:260]
            print(f"{number} | {questions[qid]} || {paper['title']} :: {opening}")


def score(labels: Path) -> None:
    rows = read_jsonl(QUERIES)
    first = {(qid, key): label for qid, key, label in pairs(rows)}
    relevant = {int(tok) for tok in labels.read_text().split() if tok.isdigit()}
    keys = read_jsonl(SAMPLE)
    one = [first[(k["id"], k["forum_id"])] for k in keys]
    two = [k["n"] in relevant for k in keys]
    agree, k = kappa(one, two)
    print(
        f"pairs {len(keys)}; first judge relevant {sum(one)}, second {sum(two)}; "
        f"agreement {agree:.1%}; Cohen's kappa {k:.2f}"
    )
    for key, a, b in zip(keys, one, two, strict=True):
        if a != b:
            print(f"  #{key['n']} {key['id']} {key['forum_id']}: first {a}, second {b}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    s = commands.add_parser("sample")
    s.add_argument("--share", type=float, default=0.2)
    s.add_argument("--seed", type=int, default=7)
    c = commands.add_parser("score")
    c.add_argument("labels", type=Path)
    args = parser.parse_args(argv)
    if args.command == "sample":
        sample(args.share, args.seed)
    else:
        score(args.labels)
    return 0


if __name__ == "__main__":
    sys.exit(main())
