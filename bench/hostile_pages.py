"""Hostile pages: every page stays under 200 ms when every value is adversarial and at its limit.

    make hostile
    python -m bench.hostile_pages [--db sqlite|postgres|both] [--requests 20]

For each database:

1. A JSONL corpus (bench/out/hostile-corpus.jsonl) of ordinary generated papers plus hostile
   ones, every value exactly at the limit of papers.text (never beyond: the importer accepts
   them all): abstracts of 10,000 characters of unclosed `\\(`, `\\[` and `\\textit{`, runs of
   `$`, `{` and backslashes, `\\textit{` and `\\emph{$x$` nested as deep as fits, one word
   repeated, thousands of distinct words; 500-character titles of LaTeX; 100-character forum
   ids and 500-character URLs; papers with 2,000 authors and papers with 300-character author
   names (as long as the importer's limit on the joined author list allows, when it has one);
   100-character venue and track tags, and papers carrying 100 of them. Several papers of each
   kind, so the timed requests of a page type are distinct URLs.
2. A fresh database (SQLite file under bench/out/, or PostgreSQL `bench`), `import_papers`, then a
   `manage.py shell` step creating a member with a session: comment threads of hostile Markdown
   at the 20,000-character limit, two pages of such notes, 100-character lab tags, and reading
   lists holding every hostile paper (for the list page and the BibTeX and CSV exports).
3. A real gunicorn (DEBUG off; the app keeps no cache of pages or counts), a couple of untimed
   requests per page type, then N timed requests per page type.

Prints a table (requests, errors, p50/p95/max ms, largest response, slowest URL) per database,
writes it to bench/out/hostile.md and exits 1 on any error (non-200) or any p95 >= 200 ms; a max
>= 200 ms is marked in the table.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import random
import string
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from bench.generate_corpus import generate_records
from bench.harness import (
    DATABASES,
    OUT,
    ROOT,
    Gunicorn,
    analyze,
    database_url,
    get,
    git_commit,
    log,
    manage,
    percentile,
    query,
    reset_database,
    server_env,
    stop_on_sigterm,
)
from papers.text import (
    MAX_ABSTRACT,
    MAX_AUTHOR_NAME,
    MAX_AUTHORS_PER_PAPER,
    MAX_BODY,
    MAX_FORUM_ID,
    MAX_TAG_NAME,
    MAX_TAGS_PER_PAPER,
    MAX_TITLE,
    MAX_URL,
)

try:  # the limit on the author list joined by ", " (stored, searched), where there is one
    from papers.text import MAX_AUTHOR_LIST
except ImportError:
    MAX_AUTHOR_LIST = None

LIMIT_MS = 200
ORDINARY_PAPERS = 300
PER_KIND = 5  # papers per hostile abstract kind
PAGE_FILL = 25  # papers sharing a search word: a full default page of results
REPEAT_WORDS = ("x", "lorem", "learning", "graph")  # "learning" is common in ordinary papers
BIG_PAPERS = 3  # papers sharing the same 2,000 authors (and as many sharing 300-char names)
TAG_POOL = MAX_TAGS_PER_PAPER // 2  # venue tags and as many track tags, 100 characters each
THREAD_PAPERS = 3  # hostile papers with COMMENTS comments and a note
COMMENTS = 20
NOTES = 40  # two pages of "My notes" (20 a page)
READING_LISTS = 3
READING_LIST_DESCRIPTION = 2_000  # ReadingList.description max_length
# PostgreSQL statements are cancelled after this long. Not a production setting: it protects the
# shared server. ts_headline on a phrase of one repeated word grows exponentially with the
# phrase's length (6 words: 0.2 s for one abstract, 32: over a minute) and a backend running a
# 64-word one reached 24 GB and was OOM-killed, which restarts every PostgreSQL connection.
PG_STATEMENT_TIMEOUT_MS = 2_000
MEMBER = "hostile-member"
CORPUS = OUT / "hostile-corpus.jsonl"
SPEC = OUT / "hostile-annotations.json"

# --- hostile values -----------------------------------------------------------------------------


def fill(unit: str, limit: int) -> str:
    """`unit` repeated to exactly `limit` characters (the last copy cut short)."""
    return (unit * (limit // len(unit) + 1))[:limit]


def name_at(unit: str, limit: int) -> str:
    """A name of exactly `limit` characters that stays so once trimmed and normalised."""
    text = fill(unit, limit)
    return text[:-1] + "x" if text[-1].isspace() else text


def nested(opening: str, closing: str, limit: int, inner: str = "x") -> str:
    """`opening` * k + inner + `closing` * k, as deep as fits, exactly `limit` characters."""
    depth = (limit - len(inner)) // (len(opening) + len(closing))
    inner += "x" * (limit - len(inner) - depth * (len(opening) + len(closing)))
    return opening * depth + inner + closing * depth


def words(word: str, limit: int) -> str:
    """`word word word ...`, exactly `limit` characters, not ending in a space."""
    text = fill(word + " ", limit)
    return text[:-1] + "." if text.endswith(" ") else text


def distinct_words(limit: int, seed: int) -> str:
    """As many distinct made-up words as fit (about 1,700), in a seeded order; every paper of
    the kind shares the vocabulary, so searching one of its words fills a page."""
    vocabulary = distinct_vocabulary()
    random.Random(seed).shuffle(vocabulary)
    return words(" ".join(vocabulary), limit)


def distinct_vocabulary() -> list[str]:
    letters = string.ascii_lowercase
    return ["zq" + "".join(t) for t in itertools.product(letters, repeat=3)][: MAX_ABSTRACT // 6]


# name -> abstract at MAX_ABSTRACT characters
ABSTRACTS = {
    "paren": fill("\\(", MAX_ABSTRACT),
    "bracket": fill("\\[", MAX_ABSTRACT),
    "dollar": fill("$", MAX_ABSTRACT),
    "inline-math": fill("$x$ ", MAX_ABSTRACT - 1) + "x",
    "escaped-dollar": "$a" + fill("\\$", MAX_ABSTRACT - 2),
    "brace": fill("{", MAX_ABSTRACT),
    "close-brace": fill("}", MAX_ABSTRACT),
    "backslash": fill("\\", MAX_ABSTRACT),
    "textit-open": fill("\\textit{", MAX_ABSTRACT),
    "textit-nested": nested("\\textit{", "}", MAX_ABSTRACT),
    "emph-math-nested": nested("\\emph{$x$", "}", MAX_ABSTRACT),
    "mixed-nested": nested("\\emph{$\\textit{", "}$}", MAX_ABSTRACT),
    "cite-open": fill("\\cite{", MAX_ABSTRACT),
    "html": fill("<b>&amp;\"'</b>", MAX_ABSTRACT),
}

# Titles start with "$", which sorts before every ordinary title (C collation, SQLite BINARY):
# the first pages of the list sorted by title are all hostile.
TITLES = (
    fill("$", MAX_TITLE),
    "$" + fill("\\(", MAX_TITLE - 1),
    "$" + nested("\\textit{", "}", MAX_TITLE - 1),
    "$" + fill("{", MAX_TITLE - 1),
    "$" + fill("\\emph{$x$}", MAX_TITLE - 1),
    "$" + fill("<i>&amp;", MAX_TITLE - 1),
    "$" + words("x", MAX_TITLE - 1),
)

# Markdown bodies of notes and comments at MAX_BODY: the slowest ones for the renderer
# (~0.1-0.2 s each, paid once on save) and the ones whose HTML is largest (`<` becomes `&lt;`).
BODIES = (
    fill("[", MAX_BODY),
    fill("*_", MAX_BODY),
    fill("[a](", MAX_BODY),
    fill("![", MAX_BODY),
    fill("**a", MAX_BODY),
    fill("<", MAX_BODY),
    fill("&", MAX_BODY),
    fill("a\n", MAX_BODY),
    fill("> ", MAX_BODY),
    fill("[a]", MAX_BODY),
)

_NAME_FILLER = "Ünïcødé \\textit{x} <b>&amp; {van} de la "


def author_names(count: int, length: int, prefix: str) -> list[str]:
    """`count` names of exactly `length` characters, distinct once normalised."""
    return [name_at(f"{prefix} {i:04d} " + _NAME_FILLER, length) for i in range(count)]


def tag_names(kind: str, count: int) -> list[str]:
    """100-character tags; venues carry a year (the importer's venue rule), tracks none."""
    year = " 2024" if kind == "venue" else ""
    return [
        name_at(f"Hostile {kind} {i:02d}{year} {{\\textit{{&amp;}}}} <i>", MAX_TAG_NAME)
        for i in range(count)
    ]


def forum_id(serial: int) -> str:
    return fill(f"hostile_{serial:04d}_", MAX_FORUM_ID)


def hostile_url(base: str) -> str:
    """`base` with one more parameter padding it to exactly MAX_URL characters."""
    return base + fill("&pad={%7D\\", MAX_URL - len(base))


@dataclass
class Corpus:
    records: list[dict]
    kinds: dict[str, list[str]]  # kind -> forum ids of its papers, in file order
    words: list[str]  # search words that hit a page of hostile papers
    venues: list[str] = field(default_factory=list)
    tracks: list[str] = field(default_factory=list)

    @property
    def hostile(self) -> list[str]:
        """Forum ids of the hostile papers, kinds interleaved (so N requests span the kinds)."""
        columns = itertools.zip_longest(*self.kinds.values())
        return [fid for row in columns for fid in row if fid is not None]


def build_corpus(*, ordinary: int = ORDINARY_PAPERS, per_kind: int = PER_KIND) -> Corpus:
    venues, tracks = tag_names("venue", TAG_POOL), tag_names("track", TAG_POOL)
    records = list(generate_records(ordinary, seed=11))
    kinds: dict[str, list[str]] = {}
    serial = 0

    def add(kind: str, abstract: str, *, authors=None, tags=None) -> None:
        nonlocal serial
        fid = forum_id(serial)
        records.append(
            {
                "title": TITLES[serial % len(TITLES)],
                "forum_id": fid,
                "url": hostile_url(f"https://openreview.net/forum?id={fid}"),
                "authors": authors or author_names(3, MAX_AUTHOR_NAME, f"Hostile {serial}"),
                "tags": tags or [venues[serial % TAG_POOL], tracks[serial % TAG_POOL]],
                "abstract": abstract,
                "pdf": hostile_url(f"https://openreview.net/pdf?id={fid}"),
            }
        )
        kinds.setdefault(kind, []).append(fid)
        serial += 1

    abstracts = list(ABSTRACTS.values())
    # 2,000 authors with names as long as the importer's joined-list limit lets them be, and
    # (when that is shorter than 300) as many 300-character names as it allows.
    count = MAX_AUTHORS_PER_PAPER
    length = MAX_AUTHOR_NAME
    if MAX_AUTHOR_LIST is not None:
        length = min(length, (MAX_AUTHOR_LIST - 2 * (count - 1)) // count)
    many = author_names(count, length, "Consortium")
    for i in range(BIG_PAPERS):
        rotated = many[i * 7 :] + many[: i * 7]
        add("2000-authors", abstracts[i % len(abstracts)], authors=rotated)
    if length < MAX_AUTHOR_NAME:
        count = (MAX_AUTHOR_LIST + 2) // (MAX_AUTHOR_NAME + 2)
        long_names = author_names(count, MAX_AUTHOR_NAME, "Longname")
        for i in range(BIG_PAPERS):
            add("300-char-authors", abstracts[-1 - i % len(abstracts)], authors=long_names)
    for i in range(per_kind):
        add("100-tags", abstracts[i % len(abstracts)], tags=venues + tracks)
    for kind, abstract in ABSTRACTS.items():
        for _ in range(per_kind):
            add(kind, abstract)
    for i in range(PAGE_FILL * len(REPEAT_WORDS)):
        add("repeated-word", words(REPEAT_WORDS[i % len(REPEAT_WORDS)], MAX_ABSTRACT))
    for i in range(PAGE_FILL):
        add("distinct-words", distinct_words(MAX_ABSTRACT, seed=i))
    vocabulary = distinct_vocabulary()
    return Corpus(records, kinds, [*REPEAT_WORDS, *vocabulary[:3]], venues, tracks)


def write_corpus(corpus: Corpus, path: Path = CORPUS) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:
        for record in corpus.records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


# --- the member's annotations -------------------------------------------------------------------

# Run by `manage.py shell -c`: reads the spec, writes through the models (save() renders the
# Markdown as the views would) and prints the session key and ids on a line of its own.
_ANNOTATE = """
import json, os
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from annotations import services
from annotations.models import Comment, Note, ReadingList, ReadingListItem
from papers.models import Paper

spec = json.loads(open(os.environ["HOSTILE_SPEC"], encoding="utf-8").read())
ids = dict(Paper.objects.filter(forum_id__in=spec["papers"]).values_list("forum_id", "pk"))
user = get_user_model().objects.create_user(spec["username"])
bodies = spec["bodies"]
for forum_id in spec["threads"]:
    for i in range(spec["comments"]):
        Comment(paper_id=ids[forum_id], author=user, body=bodies[i % len(bodies)]).save()
for i, forum_id in enumerate(spec["notes"]):
    Note(owner=user, paper_id=ids[forum_id], body=bodies[i % len(bodies)]).save()
for forum_id in spec["threads"]:
    paper = Paper.objects.get(pk=ids[forum_id])
    for name in spec["lab_tags"]:
        services.add_lab_tag(user=user, paper=paper, name=name)
lists = []
for name in spec["lists"]:
    reading_list = ReadingList.objects.create(
        owner=user, name=name, description=spec["description"]
    )
    ReadingListItem.objects.bulk_create(
        ReadingListItem(reading_list=reading_list, paper_id=ids[forum_id], position=position)
        for position, forum_id in enumerate(spec["papers"])
    )
    lists.append(reading_list.pk)
client = Client()
client.force_login(user)
cookie = client.cookies[settings.SESSION_COOKIE_NAME]
session = f"{cookie.key}={cookie.value}"
print("HOSTILE " + json.dumps({"session": session, "lists": lists, "papers": ids}))
"""


def lab_tag_names(count: int = 5) -> list[str]:
    return [name_at(f"Hostile lab {i} {{\\emph{{<b>&amp;}}}} ", MAX_TAG_NAME) for i in range(count)]


@dataclass
class Member:
    session: str  # the session cookie, "name=value"
    lists: list[int]
    papers: dict[str, int]  # forum id -> pk of every hostile paper
    threads: list[str]
    notes: list[str]


def annotate(env: dict[str, str], corpus: Corpus) -> Member:
    hostile = corpus.hostile
    # Threads under LaTeX-abstract papers, not the 2,000-author ones: each cost shows on its own.
    threads = [corpus.kinds[kind][0] for kind in list(ABSTRACTS)[:THREAD_PAPERS]]
    notes = threads + [fid for fid in hostile if fid not in threads][: NOTES - len(threads)]
    spec = {
        "username": MEMBER,
        "papers": hostile,
        "threads": threads,
        "comments": COMMENTS,
        "notes": notes,
        "bodies": list(BODIES),
        "lab_tags": lab_tag_names(),
        "lists": [
            name_at(f"Hostile list {i} <b>&amp; \\textit{{", 100) for i in range(READING_LISTS)
        ],
        "description": fill("[a](<b>\n", READING_LIST_DESCRIPTION),
    }
    SPEC.write_text(json.dumps(spec), encoding="utf-8")
    result = manage(dict(env, HOSTILE_SPEC=str(SPEC)), "shell", "-c", _ANNOTATE)
    line = next(ln for ln in result.stdout.splitlines() if ln.startswith("HOSTILE "))
    made = json.loads(line.removeprefix("HOSTILE "))
    return Member(made["session"], made["lists"], made["papers"], threads, notes)


# --- what to request ----------------------------------------------------------------------------


@dataclass
class PageType:
    key: str
    label: str
    paths: list[str]
    member: bool = False  # send the member's session cookie


def search_queries(corpus: Corpus) -> list[str]:
    """Queries over the hostile words: single words, long phrases of a repeated word, `or`,
    exclusions and the most clauses a query may have."""
    first, second, third, fourth = REPEAT_WORDS
    vocabulary = distinct_vocabulary()
    phrase = '"' + " ".join([first] * 240) + '"'
    return [
        *corpus.words,
        f'"{first} {first} {first} {first}"',
        '"' + " ".join([first] * 6) + '"',
        f'"{second} {second}"',
        phrase,
        f"{first} or {second}",
        f"{third} or {fourth}",
        f"{first} -{second}",
        f"{third} -{vocabulary[0]}",
        " ".join(vocabulary[3:11]),
        " ".join(vocabulary[11:43]),  # 32 clauses, the parser's maximum
        f"{vocabulary[50]} or {first}",
        f'"{vocabulary[60]}" {vocabulary[61]}',
        f"{second} {second} {second}",
        f"{fourth} or {vocabulary[70]} or {first}",
    ]


def _list_path(**params: str | int) -> str:
    return "/?" + "&".join(f"{key}={quote(str(value), safe='')}" for key, value in params.items())


def page_types(db_targets: Targets) -> list[PageType]:
    t = db_targets
    hostile = [f"/papers/{pk}/" for pk in t.paper_ids]
    searches = search_queries(t.corpus)
    big_queries = [" or ".join(REPEAT_WORDS), *searches]
    title_pages = max(1, len(t.paper_ids) // 25)
    return [
        PageType("paper", "Paper page, anonymous", hostile),
        PageType("paper_member", "Paper page, logged in", hostile, member=True),
        PageType(
            "paper_thread",
            f"Paper page with {COMMENTS} hostile comments + note, logged in",
            [f"/papers/{pk}/" for pk in t.thread_ids],
            member=True,
        ),
        PageType("search", "Search, hostile words", [_list_path(q=q) for q in searches]),
        PageType(
            "search_100",
            "Search, hostile words, 100 per page",
            [_list_path(q=q, per_page=100) for q in big_queries],
        ),
        PageType(
            "list_title",
            "List sorted by title (LaTeX titles)",
            [_list_path(sort="title", page=p) for p in range(1, title_pages + 1)]
            + [_list_path(sort="title", per_page=10, page=p) for p in range(1, 21)],
        ),
        PageType(
            "list_title_100",
            "List sorted by title, 100 per page",
            [_list_path(sort="title", per_page=100, page=p) for p in range(1, title_pages // 4 + 1)]
            + [_list_path(sort="title", per_page=50, page=p) for p in range(1, title_pages // 2)],
        ),
        PageType(
            "author",
            "Author page, authors of the 2,000-author papers",
            [f"/authors/{pk}/" for pk in t.author_ids],
        ),
        PageType(
            "tag",
            "Tag page, 100-character tags",
            [f"/tags/{kind}/{slug}/" for kind, slug in t.tags],
        ),
        PageType(
            "notes",
            "My notes (Markdown at 20,000 characters)",
            ["/notes/", "/notes/?page=2"]
            + [f"/notes/?q={quote(q, safe='')}" for q in ("[", "*", "a", "<", "&", "$", "]", ">")],
            member=True,
        ),
        PageType(
            "reading_list",
            f"Reading list page ({len(t.paper_ids)} hostile papers)",
            [f"/lists/{pk}/" for pk in t.list_ids],
            member=True,
        ),
        PageType(
            "bibtex",
            "Reading list BibTeX export",
            [f"/lists/{pk}/export.bib" for pk in t.list_ids],
            member=True,
        ),
        PageType(
            "csv",
            "Reading list CSV export",
            [f"/lists/{pk}/export.csv" for pk in t.list_ids],
            member=True,
        ),
    ]


@dataclass
class Targets:
    corpus: Corpus
    paper_ids: list[int]  # hostile papers, kinds interleaved
    thread_ids: list[int]
    author_ids: list[int]
    tags: list[tuple[str, str]]  # (kind, slug)
    list_ids: list[int]


def resolve_targets(url: str, corpus: Corpus, member: Member) -> Targets:
    paper_ids = [member.papers[fid] for fid in corpus.hostile]
    big = [member.papers[fid] for fid in corpus.kinds.get("2000-authors", [])[:1]]
    long_names = [member.papers[fid] for fid in corpus.kinds.get("300-char-authors", [])[:1]]
    authors: list[int] = []
    for paper_ids_of_kind, step in ((big, 97), (long_names, 17)):
        if paper_ids_of_kind:
            rows = query(
                url,
                "SELECT author_id FROM papers_authorship WHERE paper_id = %s ORDER BY position",
                [paper_ids_of_kind[0]],
            )
            authors.append([row[0] for row in rows][::step])
    author_ids = [pk for row in itertools.zip_longest(*authors) for pk in row if pk is not None]
    tag_rows = query(
        url,
        "SELECT kind, slug FROM papers_tag WHERE name LIKE %s ORDER BY kind DESC, slug",
        ["Hostile %"],
    )
    # Venue, track and lab tags in turn.
    by_kind: dict[str, list[tuple[str, str]]] = {}
    for kind, slug in tag_rows:
        by_kind.setdefault(kind, []).append((kind, slug))
    tags = [tag for row in itertools.zip_longest(*by_kind.values()) for tag in row if tag]
    return Targets(
        corpus=corpus,
        paper_ids=paper_ids,
        thread_ids=[member.papers[fid] for fid in member.threads],
        author_ids=author_ids,
        tags=tags,
        list_ids=member.lists,
    )


# --- timing -------------------------------------------------------------------------------------


@dataclass
class Row:
    page: PageType
    timings: list[float]  # ms
    errors: int
    requests: int
    max_bytes: int
    slowest: str

    def p(self, percent: float) -> float:
        return percentile(self.timings, percent) if self.timings else float("nan")

    @property
    def max_ms(self) -> float:
        return max(self.timings) if self.timings else float("nan")

    @property
    def failed(self) -> bool:
        return self.errors > 0 or not self.timings or self.p(95) >= LIMIT_MS


def time_page(
    port: int,
    page: PageType,
    *,
    requests: int,
    headers: dict[str, str],
    db: str,
    warmup: int = 2,
    budget: float = 120,
    timeout: float = 60,
) -> Row:
    """`requests` timed GETs cycling over the page type's URLs (distinct while there are enough
    of them; no cache answers a repeat, it is computed again); stops early after
    `budget` seconds (at least 3 requests) so one pathological page cannot hold the run."""
    sent = headers if page.member else {}
    for i in range(min(warmup, len(page.paths))):
        try:
            get(port, page.paths[i], timeout=timeout, headers=sent)
        except OSError:
            pass
    timings: list[float] = []
    errors = attempted = max_bytes = 0
    slowest, slowest_ms = "", -1.0
    started = time.monotonic()
    for i in range(requests):
        if i >= 3 and time.monotonic() - started > budget:
            log(f"[{db}] {page.key}: stopped after {i} requests ({budget:.0f} s)")
            break
        path = page.paths[i % len(page.paths)]
        attempted += 1
        try:
            response = get(port, path, timeout=timeout, headers=sent)
        except OSError as error:
            log(f"[{db}] {page.key} {path}: {error}")
            errors += 1
            continue
        if response.status != 200:
            errors += 1
            log(f"[{db}] {page.key} {path[:120]}: HTTP {response.status}")
        ms = response.seconds * 1000
        if ms >= LIMIT_MS:
            log(f"[{db}] {page.key} {path[:100]}: {ms:.0f} ms")
        timings.append(ms)
        max_bytes = max(max_bytes, len(response.body))
        if ms > slowest_ms:
            slowest, slowest_ms = path, ms
    return Row(page, timings, errors, attempted, max_bytes, slowest)


# --- one database -------------------------------------------------------------------------------


@dataclass
class Section:
    db: str
    rows: list[Row]
    import_line: str


def run_database(db: str, corpus_path: Path, corpus: Corpus, *, requests: int, workers: int):
    url = database_url(db, "hostile")
    env = server_env(url)
    log(f"[{db}] fresh database, migrate")
    reset_database(url)
    manage(env, "migrate", "--noinput")
    manage(env, "createcachetable")
    started = time.perf_counter()
    result = manage(env, "import_papers", str(corpus_path), "--format", "jsonl")
    seconds = time.perf_counter() - started
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else ""
    import_line = f"import of {len(corpus.records)} records: {seconds:.1f} s ({summary})"
    log(f"[{db}] {import_line}")
    started = time.perf_counter()
    member = annotate(env, corpus)
    log(f"[{db}] member, comments, notes, lab tags, lists: {time.perf_counter() - started:.1f} s")
    analyze(url)
    manage(env, "collectstatic", "--noinput")
    targets = resolve_targets(url, corpus, member)
    headers = {"Cookie": member.session}
    # Only the server's statements (config/wsgi.py reads it): the import's may take longer.
    # Tighter than the 10 s default, to protect the shared server from a runaway query.
    served = {**env, "DATABASE_STATEMENT_TIMEOUT_MS": str(PG_STATEMENT_TIMEOUT_MS)}
    rows = []
    with Gunicorn(served, workers=workers, log_name=f"gunicorn-hostile-{db}") as server:
        log(f"[{db}] gunicorn pid {server.pid} on 127.0.0.1:{server.port}")
        for page in page_types(targets):
            row = time_page(server.port, page, requests=requests, headers=headers, db=db)
            rows.append(row)
            log(
                f"[{db}] {page.key}: p50 {row.p(50):.1f} ms, p95 {row.p(95):.1f} ms, "
                f"max {row.max_ms:.1f} ms, {row.errors} errors"
            )
    return Section(db, rows, import_line)


def table(section: Section) -> str:
    name = {"sqlite": "SQLite", "postgres": "PostgreSQL"}[section.db]
    lines = [
        f"### {name} ({section.import_line})",
        "",
        "| Page type | requests | errors | p50 ms | p95 ms | max ms | largest KB | slowest URL |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for row in section.rows:
        label = row.page.label
        if row.p(95) >= LIMIT_MS:
            label += f" **p95 ≥ {LIMIT_MS} ms**"
        elif row.max_ms >= LIMIT_MS:
            label += f" **max ≥ {LIMIT_MS} ms**"
        slowest = row.slowest if len(row.slowest) <= 70 else row.slowest[:67] + "..."
        lines.append(
            f"| {label} | {row.requests} | {row.errors} | {row.p(50):.1f} | {row.p(95):.1f} "
            f"| {row.max_ms:.1f} | {row.max_bytes / 1024:,.0f} | `{slowest}` |"
        )
    return "\n".join(lines)


def uncommitted(paths: Sequence[str] = ("papers", "annotations", "config", "templates")) -> str:
    result = subprocess.run(
        ["git", "status", "--porcelain", "--", *paths],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    return ", ".join(line[3:] for line in result.stdout.splitlines())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=[*DATABASES, "both"], default="both")
    parser.add_argument("--requests", type=int, default=20, help="timed requests per page type")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    args = parser.parse_args(argv)
    if args.requests < 1:
        parser.error("--requests must be at least 1")
    stop_on_sigterm()
    started = datetime.datetime.now(datetime.UTC)
    commit, dirty = git_commit(), uncommitted()
    corpus = build_corpus()
    corpus_path = write_corpus(corpus)
    hostile = len(corpus.hostile)
    log(f"wrote {len(corpus.records)} records ({hostile} hostile) to {corpus_path}")
    databases = DATABASES if args.db == "both" else (args.db,)
    sections = []
    for db in databases:
        sections.append(
            run_database(db, corpus_path, corpus, requests=args.requests, workers=args.workers)
        )
        print("\n" + table(sections[-1]) + "\n", flush=True)
    arguments = argv if argv is not None else sys.argv[1:]
    command = "python -m bench.hostile_pages " + " ".join(arguments)
    header = [
        f"## Hostile pages ({started:%Y-%m-%d %H:%M} UTC, commit {commit})",
        "",
        f"Command: `{command.strip()}`. Uncommitted changes under papers/, annotations/, "
        f"config/, templates/: {dirty or 'none'}.",
        "",
        f"{ORDINARY_PAPERS} ordinary papers and {hostile} hostile ones (kinds: "
        f"{', '.join(f'{kind} x{len(ids)}' for kind, ids in corpus.kinds.items())}), every value "
        f"at its limit; {THREAD_PAPERS} papers with {COMMENTS} comments and a note each, "
        f"{NOTES} notes, {READING_LISTS} reading lists of every hostile "
        f"paper, all Markdown at {MAX_BODY:,} characters. Gunicorn {args.workers} sync workers, "
        f"DEBUG off, PostgreSQL statement_timeout "
        f"{PG_STATEMENT_TIMEOUT_MS} ms (protects the shared server: a long phrase search made "
        f"ts_headline run out of memory); {args.requests} sequential requests per page type "
        f"cycling over its URLs, new connection each, request sent to last byte read. Target: "
        f"every page < {LIMIT_MS} ms (a row fails on any error or p95 >= {LIMIT_MS} ms).",
        "",
    ]
    report = "\n".join(header) + "\n" + "\n\n".join(table(s) for s in sections) + "\n"
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "hostile.md").write_text(report, encoding="utf-8")
    print(f"{started:%Y-%m-%d %H:%M} UTC, commit {commit}; uncommitted: {dirty or 'none'}")
    log(f"written {OUT / 'hostile.md'}")
    failed = [f"{s.db}: {r.page.key}" for s in sections for r in s.rows if r.failed]
    if failed:
        log("FAILED (errors or p95 >= 200 ms): " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
