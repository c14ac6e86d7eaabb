"""Recommended for me at scale: 100 members at 100,000 papers (issue 13).

`python -m bench.recommend_bench --papers 100000 --users 100 [--db sqlite|postgres] [--reuse]`

The database is filled with the generated corpus (bench.harness.prepare_database; with
`--reuse`, any benchmark database already holding that many papers will do, as in
bench.export_memory). Then one child process with a production server's environment:

1. makes `--users` members (user names `rec-bench-N`, replaced on every run), each with a
   reading list of 10-30 papers that share one topic word (in 0.5-5% of abstracts);
2. builds the tf-idf matrix once (timed), then trains and stores each member's
   recommendations as `manage.py compute_recommendations` does (timed per member);
3. asks for each member's /recommended/ page and their list's "More like these" page with
   Django's test client (in-process, logged in), timed.

It prints the feature build time, the total and per-member training times (p50/p95/max), the
page's p50/p95, the peak resident memory, and how many of each member's top 10 hold their
topic word (a rough check that the recommendations follow the list).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from collections import Counter

from bench.harness import (
    DATABASES,
    ROOT,
    log,
    percentile,
    prepared_env,
)

USER_PREFIX = "rec-bench-"
SAVED_MIN, SAVED_MAX = 10, 30
# A topic word is in this share of a sample of abstracts: common enough to fill a list, rare
# enough to be a topic. (The generated titles are drawn from the whole vocabulary; only the
# abstracts have topics, bench.generate_corpus.CorpusGenerator._topic.)
TOPIC_SHARE = (0.005, 0.05)
TEXT_SAMPLE = 5_000
TOP = 10


def _topic_words(rng: random.Random) -> list[str]:
    from papers.models import Paper

    texts = list(Paper.objects.order_by("?").values_list("abstract", flat=True)[:TEXT_SAMPLE])
    counts = Counter(
        word for text in texts for word in {w.lower() for w in text.split() if w.isalpha()}
    )
    low, high = (share * len(texts) for share in TOPIC_SHARE)
    words = sorted(w for w, n in counts.items() if low <= n <= high and len(w) > 4)
    rng.shuffle(words)
    return words


def _make_members(count: int, rng: random.Random) -> list[tuple[object, str]]:
    """`count` members, each with one list of papers sharing a topic word: [(user, word)]."""
    from django.contrib.auth import get_user_model

    from annotations.models import ReadingList, ReadingListItem
    from papers.models import Paper

    User = get_user_model()
    User.objects.filter(username__startswith=USER_PREFIX).delete()
    words = _topic_words(rng)
    members = []
    for n in range(count):
        word = words[n % len(words)]
        candidates = list(
            Paper.objects.filter(abstract__icontains=word).values_list("pk", flat=True)[:500]
        )
        chosen = rng.sample(candidates, min(len(candidates), rng.randint(SAVED_MIN, SAVED_MAX)))
        user = User.objects.create_user(username=f"{USER_PREFIX}{n + 1}")
        reading_list = ReadingList.objects.create(owner=user, name=f"About {word}")
        ReadingListItem.objects.bulk_create(
            ReadingListItem(reading_list=reading_list, paper_id=pk, position=i)
            for i, pk in enumerate(chosen)
        )
        members.append((user, word))
    return members


def child(users: int, seed: int) -> dict:
    """Runs inside the measured process: members, training, pages; returns the figures."""
    import os

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench.settings")
    import django

    django.setup()
    from django.test import Client
    from django.urls import reverse

    from annotations.models import ReadingList
    from papers.models import Paper
    from recommendations import services, training
    from recommendations.models import Recommendation

    rng = random.Random(seed)
    members = _make_members(users, rng)

    started = time.perf_counter()
    corpus = training.build_corpus(training.corpus_rows())
    features_seconds = time.perf_counter() - started
    started = time.perf_counter()
    outcomes = list(services.recompute([user for user, _ in members], corpus=corpus))
    training_seconds = time.perf_counter() - started

    on_topic = []
    for user, word in members:
        top = Recommendation.objects.filter(user=user).order_by("-score")[:TOP]
        texts = Paper.objects.filter(pk__in=[row.paper_id for row in top]).values_list(
            "title", "abstract"
        )
        on_topic.append(sum(word in f"{title} {abstract}".lower() for title, abstract in texts))

    client = Client()
    url = reverse("recommendations:recommended")
    client.force_login(members[0][0])
    client.get(url)  # warm up: templates, connection
    page_ms, list_ms = [], []
    for user, _ in members:
        client.force_login(user)
        started = time.perf_counter()
        response = client.get(url)
        page_ms.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.status_code
        reading_list = ReadingList.objects.get(owner=user)
        started = time.perf_counter()
        response = client.get(reverse("recommendations:list-similar", args=[reading_list.pk]))
        list_ms.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, response.status_code
    return {
        "papers": corpus.matrix.shape[0],
        "terms": corpus.matrix.shape[1],
        "members": len(outcomes),
        "positives": [o.positives for o in outcomes],
        "recommended": sum(o.recommended for o in outcomes),
        "features_seconds": features_seconds,
        "training_seconds": training_seconds,
        "per_member_seconds": [o.seconds for o in outcomes],
        "page_ms": page_ms,
        "list_ms": list_ms,
        "on_topic": on_topic,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def run(db: str, papers: int, users: int, seed: int, *, reuse: bool) -> None:
    env = prepared_env(db, papers, reuse=reuse)
    log(f"[{db}] {users} members, training and pages")
    command = [sys.executable, "-m", "bench.recommend_bench", "--child", str(users)]
    command += ["--seed", str(seed)]
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"child failed:\n{result.stdout[-2000:]}{result.stderr[-4000:]}")
    r = json.loads(result.stdout.strip().splitlines()[-1])
    per_member = r["per_member_seconds"]
    pages = r["page_ms"]
    print(f"\nRecommended for me, {db}, {r['papers']:,} papers, {r['members']} members")
    print(f"  features (tf-idf, once):   {r['features_seconds']:.1f} s, {r['terms']:,} terms")
    print(
        f"  training and storing:      {r['training_seconds']:.1f} s in all, per member "
        f"p50 {percentile(per_member, 50):.2f} s, p95 {percentile(per_member, 95):.2f} s, "
        f"max {max(per_member):.2f} s"
    )
    print(
        f"  total (features + training): {r['features_seconds'] + r['training_seconds']:.1f} s; "
        f"{r['recommended']:,} rows; saved papers per member "
        f"{min(r['positives'])}-{max(r['positives'])}"
    )
    print(
        f"  /recommended/ page:        p50 {percentile(pages, 50):.1f} ms, "
        f"p95 {percentile(pages, 95):.1f} ms (in-process test client)"
    )
    lists = r["list_ms"]
    print(
        f"  'More like these' page:    p50 {percentile(lists, 50):.1f} ms, "
        f"p95 {percentile(lists, 95):.1f} ms (search index, on demand)"
    )
    on_topic = r["on_topic"]
    print(
        f"  top {TOP} holding the list's topic word: mean "
        f"{sum(on_topic) / len(on_topic):.1f} of {TOP}"
    )
    print(f"  peak RSS:                  {r['peak_rss_mb']:,.0f} MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--papers", type=int, default=100_000)
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", choices=[*DATABASES, "both"], default="sqlite")
    parser.add_argument("--reuse", action="store_true", help="keep a database already filled")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        print(json.dumps(child(args.child, args.seed)))
        return 0
    for db in DATABASES if args.db == "both" else [args.db]:
        log(f"[{db}] preparing {args.papers:,} papers")
        run(db, args.papers, args.users, args.seed, reuse=args.reuse)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
