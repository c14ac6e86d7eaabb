"""The benchmark's synthetic corpus has the real corpus's shape, and the harness's guards hold."""

from __future__ import annotations

import io
import json
import re
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.management import call_command

from bench import harness
from bench.fault_db_down import error_markers
from bench.fault_kill_import import _PROGRESS
from bench.fetch_bench import _total
from bench.generate_corpus import generate_records, write_jsonl
from bench.harness import get, percentile, reset_database
from bench.hostile_pages import build_corpus
from bench.hybrid_bench import FILL_VECTORS
from bench.question_latency import questions
from bench.run_bench import PageResult, timed_together, with_targets
from papers.importing.records import record_from_mapping, validate_record
from papers.importing.report import ProgressBar
from papers.models import Paper, Tag
from papers.text import MAX_ABSTRACT, MAX_AUTHORS_PER_PAPER, MAX_TAG_NAME, MAX_TITLE
from semantic import embedder as embedder_module
from semantic.models import PaperEmbedding, vector_to_bytes
from tests.factories import make_paper
from tests.semantic_helpers import DIMENSIONS

N = 2000


@pytest.fixture(scope="module")
def records() -> list[dict]:
    return list(generate_records(N, seed=7))


def test_generates_exactly_the_requested_number_of_papers(records):
    assert len(records) == N
    assert list(generate_records(0)) == []


def test_same_seed_gives_the_same_corpus_and_another_seed_a_different_one(records):
    assert list(generate_records(N, seed=7))[:50] == records[:50]
    assert list(generate_records(50, seed=8)) != records[:50]


def test_every_paper_has_two_to_twelve_distinct_authors(records):
    counts = Counter(len(r["authors"]) for r in records)
    assert min(counts) == 2
    assert max(counts) == 12
    assert all(len(set(r["authors"])) == len(r["authors"]) for r in records)


def test_about_half_as_many_distinct_authors_as_papers_with_a_few_prolific_ones(records):
    papers_per_author = Counter(name for r in records for name in r["authors"])
    assert 0.35 * N <= len(papers_per_author) <= 0.65 * N
    # Zipf-like: the most prolific author has many times the papers of the median author.
    median = sorted(papers_per_author.values())[len(papers_per_author) // 2]
    assert papers_per_author.most_common(1)[0][1] >= 5 * median


def test_tracks_are_mostly_posters_some_spotlights_few_orals(records):
    tracks = Counter(r["tags"][1] for r in records)
    assert set(tracks) == {"Poster", "Spotlight", "Oral"}
    assert 0.76 <= tracks["Poster"] / N <= 0.84
    assert 0.13 <= tracks["Spotlight"] / N <= 0.19
    assert 0.025 <= tracks["Oral"] / N <= 0.055
    assert {r["tags"][0] for r in records} >= {"ICLR 2024"}


def test_abstracts_and_titles_have_the_real_lengths(records):
    assert all(150 <= len(r["abstract"].split()) <= 300 for r in records)
    assert all(6 <= len(r["title"].split()) <= 14 for r in records)


def test_common_terms_hit_many_papers_but_not_all_and_some_abstracts_have_latex(records):
    # As in the real ICLR 2024 abstracts, where about half mention "learning".
    with_learning = sum(bool(re.search(r"\blearning\b", r["abstract"], re.I)) for r in records)
    assert 0.3 * N < with_learning < 0.75 * N
    assert 0.1 * N < sum("\\" in r["abstract"] for r in records) < 0.4 * N


def test_forum_ids_and_urls_are_unique_and_well_formed(records):
    forum_ids = [r["forum_id"] for r in records]
    assert len(set(forum_ids)) == N
    assert all(r["url"] == f"https://openreview.net/forum?id={r['forum_id']}" for r in records)
    assert all(
        re.fullmatch(r"https://openreview\.net/pdf/[0-9a-f]{40}\.pdf", r["pdf"]) for r in records
    )
    assert len({r["pdf"] for r in records}) == N


def test_written_jsonl_round_trips(tmp_path):
    path = tmp_path / "corpus.jsonl"
    assert write_jsonl(path, 20, seed=3) == 20
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == list(generate_records(20, seed=3))


@pytest.mark.django_db
def test_generated_corpus_imports_with_the_importer(tmp_path):
    path = tmp_path / "corpus.jsonl"
    write_jsonl(path, 40, seed=5)
    call_command("import_papers", str(path), "--format", "jsonl", stdout=None)
    assert Paper.objects.count() == 40
    assert set(Tag.objects.filter(kind="track").values_list("slug", flat=True)) <= {
        "poster",
        "spotlight",
        "oral",
    }
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    paper = Paper.objects.get(forum_id=first["forum_id"])
    assert paper.author_names == ", ".join(first["authors"])


def test_reset_refuses_any_postgres_database_but_bench(monkeypatch, tmp_path):
    # reset_database forgets the bench's import record and search index before it checks
    # the name: pointed at tmp_path, so this test never touches bench/out/.
    monkeypatch.setattr(harness, "OUT", tmp_path)
    with pytest.raises(SystemExit, match="refusing"):
        reset_database("postgres://postgres@127.0.0.1:5432/test")
    with pytest.raises(SystemExit, match="refusing"):
        reset_database("postgres://postgres@127.0.0.1:5432/test_someone")


def test_percentile_is_nearest_rank():
    values = list(range(1, 101))
    assert percentile(values, 50) == 50
    assert percentile(values, 95) == 95
    assert percentile([7.0], 95) == 7.0


def test_db_down_fault_recognises_our_error_pages():
    markers = error_markers()
    assert set(markers) == {500, 503}
    assert all(markers.values())


def test_kill_fault_reads_the_importers_progress_bar():
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    bar = ProgressBar(terminal)
    bar(500, 1000)
    assert _PROGRESS.findall(terminal.getvalue())[-1] == ("500", "1000")


@pytest.mark.slow
def test_hostile_corpus_is_at_the_limits_and_the_importer_accepts_every_record():
    corpus = build_corpus(ordinary=5, per_kind=2)
    for line, record in enumerate(corpus.records, start=1):
        validate_record(record_from_mapping(record, source="hostile", line=line))
    hostile = [r for r in corpus.records if r["forum_id"] in set(corpus.hostile)]
    assert all(len(r["abstract"]) == MAX_ABSTRACT for r in hostile)
    assert all(len(r["title"]) == MAX_TITLE for r in hostile)
    assert all(len(tag) == MAX_TAG_NAME for r in hostile for tag in r["tags"])
    assert max(len(r["authors"]) for r in hostile) == MAX_AUTHORS_PER_PAPER
    # Every hostile kind has several papers, so timed requests can be distinct URLs.
    assert min(len(ids) for ids in corpus.kinds.values()) >= 2


def test_get_sends_extra_headers_such_as_the_session_cookie():
    class Echo(BaseHTTPRequestHandler):
        def do_GET(self):
            body = (self.headers.get("Cookie") or "-").encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        assert get(port, "/").body == b"-"
        assert get(port, "/", headers={"Cookie": "sessionid=abc"}).body == b"sessionid=abc"
    finally:
        server.shutdown()
        server.server_close()


def test_the_fetch_bench_counts_the_papers_the_report_counts():
    # An arXiv re-run stopping at its first, known page is timed for the papers it saw.
    stdout = "arXiv 'cat:cs.LG': 100 papers (a whole page ...)\nTotal: 0 created, 2 updated, "
    stdout += "100 unchanged, 1 conflicts\n"
    assert _total(stdout) == (103, "Total: 0 created, 2 updated, 100 unchanged, 1 conflicts")
    with pytest.raises(SystemExit, match="no report total"):
        _total("CommandError: nope")


def test_a_bench_database_of_ones_own_is_named_bench_something_and_nothing_else():
    assert harness.bench_database_name("bench") == "bench"
    assert harness.bench_database_name("bench_h100k") == "bench_h100k"
    for refused in ("test", "test_bench", "bench-h100k", 'bench_x"; DROP DATABASE test; --', ""):
        with pytest.raises(SystemExit, match="BENCH_PG_DATABASE"):
            harness.bench_database_name(refused)


def _page(key: str) -> harness.PageType:
    return next(page for page in harness.PAGE_TYPES if page.key == key)


def test_the_api_search_asks_the_list_pages_search_questions_each_once():
    targets = harness.Targets([1], ["oral"], ["iclr-2024"], [1], [1], terms=["alpha", "beta"])
    search, api = _page("search"), _page("api_search")
    for i in range(4):
        assert api.path(targets, i).startswith("/api/v1/papers?")
        assert api.path(targets, i).split("?")[1] == search.path(targets, i).split("?")[1]
    assert api.path(targets, 0) != api.path(targets, 1)


def test_the_api_search_must_be_within_10_ms_of_the_list_pages_search_of_the_same_run():
    def result(key: str, p95: float) -> PageResult:
        return PageResult(_page(key), p95, p95, p95, 6, 1.0, 0, "/", 30)

    slow_list, api = with_targets([result("search", 40.0), result("api_search", 49.0)])
    assert api.target_ms == 50.0 and api.met
    assert slow_list.target_ms == 50.0 and slow_list.met
    _, slow_api = with_targets([result("search", 30.0), result("api_search", 41.0)])
    assert slow_api.target_ms == 40.0 and not slow_api.met


@pytest.mark.django_db
def test_hybrid_bench_gives_each_paper_a_vector_of_the_loaded_models_size(settings, capsys):
    settings.SEMANTIC_SEARCH = "auto"
    settings.SEMANTIC_EMBEDDER = "tests.semantic_helpers.word_hash_embedder"
    embedder_module.reset()
    kept, replaced, missing = (make_paper(f"Paper {n}") for n in range(3))
    PaperEmbedding.objects.create(
        paper=kept, model="word-hash-test", text_hash="h", vector=vector_to_bytes([1.0] * 64)
    )
    PaperEmbedding.objects.create(
        paper=replaced, model="older-model", text_hash="h", vector=vector_to_bytes([1.0] * 8)
    )
    exec(FILL_VECTORS.format(seed=3), {})  # noqa: S102 - the bench's own script, as shell runs it
    assert capsys.readouterr().out.split() == ["2", "word-hash-test", str(DIMENSIONS)]
    stored = {row.paper_id: row for row in PaperEmbedding.objects.all()}
    assert set(stored) == {kept.pk, replaced.pk, missing.pk}
    assert {row.model for row in stored.values()} == {"word-hash-test"}
    assert all(row.as_array().shape == (DIMENSIONS,) for row in stored.values())
    assert bytes(stored[kept.pk].vector) == vector_to_bytes([1.0] * 64)


def test_the_api_search_is_timed_in_turns_with_the_list_pages_search_and_the_rest_alone():
    groups = [[page.key for page in group] for group in timed_together(harness.PAGE_TYPES)]
    assert ["search", "api_search"] in groups
    assert ["list"] in groups and ["paper"] in groups
    assert sorted(key for group in groups for key in group) == sorted(
        page.key for page in harness.PAGE_TYPES
    )


def test_question_latency_embeds_a_hundred_distinct_short_questions():
    texts = questions()

    assert len(texts) == len(set(texts)) == 100
    assert all(5 <= len(text.split()) <= 12 for text in texts)
