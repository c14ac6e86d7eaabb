"""A deterministic synthetic corpus shaped like the real one, as JSONL for `import_papers`.

Shape (see the "Benchmarks" section of DESIGN.md and issue 3):
- 2-12 authors per paper, drawn with Zipf-like popularity from a pool of plausible names sized so
  that about N/2 distinct authors appear (a few prolific authors, a long tail of one-paper ones);
- tags ["<venue>", "<track>"] with ~80% Poster / 16% Spotlight / 4% Oral;
- abstracts of 150-300 words and titles of 6-14 words whose words follow a Zipf distribution
  over the vocabulary of the seed documents in fixtures/, so full-text search behaves like the
  real thing: "learning" or "models" hit about half the papers (as in the real ICLR 2024
  abstracts), rarer terms few; a share has LaTeX;
- unique forum ids, forum URLs and PDF URLs.

The same seed and size always give the same bytes. Standard library only, so the benchmark and
the fault scripts import it directly:

    from bench.generate_corpus import generate_records, write_jsonl

Command line:

    python -m bench.generate_corpus --papers 100000 --seed 1 --out bench/out/corpus.jsonl
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import string
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

# Function words every abstract has: the search parser's list (PostgreSQL's english stop words).
from papers.search import STOP_WORDS
from papers.text import normalize_author_name

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

# Bumped whenever the same (papers, seed) would give different records: names cached files.
CORPUS_VERSION = 2
TRACKS: tuple[tuple[str, float], ...] = (("Poster", 0.80), ("Spotlight", 0.16), ("Oral", 0.04))
VENUES: tuple[tuple[str, float], ...] = (
    ("ICLR 2024", 0.60),
    ("NeurIPS 2023", 0.25),
    ("ICML 2023", 0.15),
)
# How many authors a paper has (2-12), weighted towards small teams as at ICLR.
AUTHOR_COUNTS: tuple[tuple[int, float], ...] = (
    (2, 8),
    (3, 14),
    (4, 17),
    (5, 16),
    (6, 12),
    (7, 9),
    (8, 7),
    (9, 6),
    (10, 4),
    (11, 4),
    (12, 3),
)
MIN_ABSTRACT_WORDS, MAX_ABSTRACT_WORDS = 150, 300
MIN_TITLE_WORDS, MAX_TITLE_WORDS = 6, 14
# A pool this many times N gives about N/2 distinct authors once the Zipf tail is sampled.
AUTHOR_POOL_FACTOR = 0.58
# Zipf weight of the author of popularity rank r is 1 / (r + offset): the offset keeps the most
# prolific author near 1% of the papers, as on the real ICLR list, instead of a third of them.
AUTHOR_ZIPF_OFFSET = 100
LATEX_SHARE = 0.2
# Real abstracts are about a topic: a content word is either absent or used several times.
# Each abstract draws from one of TOPICS vocabularies holding every stop word and a random
# TOPIC_SHARE of the content words; this brings the share of papers containing "learning" or
# "models" from ~85% (independent draws) to the ~55% measured on the real corpus.
TOPICS = 32
TOPIC_SHARE = 0.5

_FORUM_ID_ALPHABET = string.ascii_letters + string.digits + "_-"
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-']*[A-Za-z0-9]|[A-Za-z]")
_TABLE_ROW = re.compile(
    r"\s*(?P<title>[^\n]*?) \| (?P<url>https://openreview\.net/forum\?id=\S+) \| \S+ \| "
    r"(?P<authors>.*?) \| (?P<tags>[^|\n]*) \| (?P<abstract>.*?) \| (?P<pdf>https://\S+?\.pdf) \|",
    re.DOTALL,
)
_SMALL_WORDS = {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the"}
_SMALL_WORDS |= {"to", "via", "with", "into", "over", "under", "is", "are", "be"}
_LATEX_SNIPPETS = (
    r"$O(n\log{n})$",
    r"$\epsilon$-optimal",
    r"$\mathcal{O}(1/\sqrt{T})$",
    r"\textit{provably}",
    r"\textbf{state-of-the-art}",
    r"$\ell_2$",
    r"20\%",
    r"$k$-nearest",
    r"\emph{in-context}",
    r"$\alpha$",
)
_FIRST_NAMES = """
Aarav Abebe Ada Adrian Ahmed Aisha Akira Alejandro Alex Alexandra Ali Alice Amara Amir Ana Andrea
Andrei Anh Anna Antoine Arjun Astrid Ayesha Bao Beatriz Ben Bilal Bo Boris Camila Carlos Carmen
Chen Chiara Chloe Chris Claire Daniel Dario David Dmitri Elena Elif Emeka Emma Eric Esther Fatima
Felix Fernando Florian Gabriel Gao Giulia Hana Hannah Hao Haruto Hassan Hiroshi Hui Ibrahim Ines
Ivan Jakob James Jan Javier Jia Jin Joao Jonas Jose Julia Jun Kai Kamal Karim Kenji Kevin Kim
Kofi Laila Lars Laura Lei Leila Li Liam Lin Lucas Lucia Luis Maria Mario Marta Mateo Maya Mei Mehmet
Michael Min Ming Mohammed Nadia Naveen Nikhil Nina Noah Olga Omar Pablo Paolo Pedro Peng Pierre
Priya Qiang Rafael Rahul Ravi Rosa Ruslan Sakura Samuel Sara Sebastian Sergey Shreya Sofia Song
Stefan Sung-min Takeshi Tariq Thomas Tian Tomas Valentina Victor Wei Xin Yan Yang Yara Yasmin Yi
Yosef Yuki Yun Zainab Zhang Zhao Zoe
"""
_LAST_NAMES = """
Abdullah Adeyemi Agarwal Ahmadi Alvarez Andersen Araujo Bach Bae Banerjee Becker Bianchi Bose
Brown Castro Chandra Chang Chen Cheng Chowdhury Costa Cruz Dang Das Delgado Deng Diaz Dubois Duong
Eriksson Fan Fang Fernandes Fischer Fontaine Fujita Gao Garcia Ghosh Goldberg Gomez Gonzalez Gupta
Han Hansen Hashemi He Hernandez Hoang Hoffmann Hu Huang Hussain Ibrahim Ivanova Iyer Jain Jang
Jensen Ji Jiang Jin Johansson Jung Kapoor Kato Khan Kim Kobayashi Kowalski Kumar Kuznetsov Larsen
Le Lee Li Liang Lin Liu Lopez Lu Luo Ma Mahmoud Martin Martinez Mehta Meyer Miller Mishra Molina
Moreau Mori Muller Murphy Nakamura Nguyen Novak Okafor Olsen Ortiz Pan Park Patel Peng Perez Petrov
Pham Popescu Qian Qin Rahman Ramos Rao Reddy Ricci Rivera Romano Rossi Russo Saito Sanchez Santos
Schmidt Schneider Sharma Shen Silva Singh Smith Song Souza Sun Suzuki Tanaka Tang Tran Wagner Wang
Watanabe Weber Wei Wong Wu Xie Xu Yadav Yamamoto Yang Yao Ye Yilmaz Yu Yuan Zhang Zhao Zheng Zhou
Zhu Zimmermann
"""


@dataclass(frozen=True)
class SeedText:
    """Titles and abstracts of the seed documents: the source of the synthetic vocabulary."""

    titles: tuple[str, ...]
    abstracts: tuple[str, ...]


def read_seed_text(fixtures: Path = FIXTURES) -> SeedText:
    """Titles and abstracts from the seed table dump and abstract list (no authors, tags, URLs)."""
    titles: list[str] = []
    abstracts: list[str] = []
    for path in sorted(fixtures.glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        rows = list(_TABLE_ROW.finditer(text.split("|---", 1)[-1])) if "|---" in text else []
        if rows:
            titles.extend(row["title"].strip() for row in rows)
            abstracts.extend(row["abstract"].strip() for row in rows)
        else:
            # An abstract list: a heading line, then one abstract per paragraph.
            paragraphs = [p.strip() for p in text.split("\n\n")]
            abstracts.extend(p for p in paragraphs[1:] if len(p.split()) > 20)
    if not abstracts:
        raise SystemExit(f"no seed abstracts found under {fixtures}")
    return SeedText(tuple(titles), tuple(abstracts))


def zipf_cum_weights(count: int, *, exponent: float = 1.0, offset: float = 0.0) -> list[float]:
    """Cumulative weights 1/(rank+offset)^exponent for ranks 1..count, for random.choices."""
    return list(
        itertools.accumulate(1.0 / (rank + offset) ** exponent for rank in range(1, count + 1))
    )


def ranked_words(texts: Sequence[str]) -> list[str]:
    """Distinct words, most frequent first (ties alphabetical), each in its commonest spelling."""
    counts: Counter[str] = Counter()
    spellings: dict[str, Counter[str]] = {}
    for text in texts:
        for word in _WORD.findall(re.sub(r"https?://\S+|\\[a-z]+|\$[^$]*\$", " ", text)):
            key = word.casefold()
            counts[key] += 1
            spellings.setdefault(key, Counter())[word] += 1
    ranked = sorted(counts, key=lambda key: (-counts[key], key))
    return [_commonest(spellings[key]) for key in ranked]


def _commonest(spellings: Counter[str]) -> str:
    """The spelling used most often; lower case wins ties so sentence starts do not dominate."""
    return sorted(spellings.items(), key=lambda item: (-item[1], not item[0].islower(), item[0]))[
        0
    ][0]


@cache
def _vocabulary(fixtures: Path) -> tuple[tuple[str, ...], tuple[str, ...]]:
    seed = read_seed_text(fixtures)
    abstract_words = ranked_words(seed.abstracts)
    # Titles draw on title words first, then the abstract vocabulary for variety.
    title_words = ranked_words(seed.titles or seed.abstracts)
    title_words += [
        w for w in abstract_words if w.casefold() not in {t.casefold() for t in title_words}
    ]
    return tuple(abstract_words), tuple(title_words)


def author_name_pool(size: int, rng: random.Random) -> list[str]:
    """`size` distinct plausible names ("Wei Zhang", "Maria K. Rossi"), in a seeded order."""
    firsts = _FIRST_NAMES.split()
    lasts = _LAST_NAMES.split()
    names: list[str] = []
    seen: set[str] = set()
    initials = string.ascii_uppercase
    while len(names) < size:
        first, last = rng.choice(firsts), rng.choice(lasts)
        # Middle initials and suffixes make the combinations plentiful, as in real author lists.
        roll = rng.random()
        if roll < 0.55:
            name = f"{first} {last}"
        elif roll < 0.9:
            name = f"{first} {rng.choice(initials)}. {last}"
        else:
            name = f"{first} {rng.choice(initials)}. {rng.choice(initials)}. {last}"
        # The importer matches authors on a normalised name; keep pool names distinct under it.
        key = normalize_author_name(name)
        if key not in seen:
            seen.add(key)
            names.append(name)
    return names


class CorpusGenerator:
    """Yields N paper records; all randomness comes from one `random.Random(seed)`."""

    def __init__(self, papers: int, *, seed: int = 1, fixtures: Path = FIXTURES):
        if papers < 0:
            raise ValueError("papers must be >= 0")
        self.papers = papers
        self.seed = seed
        self.rng = random.Random(seed)
        words, title_words = _vocabulary(fixtures)
        weights = zipf_cum_weights(len(words))
        self.topics = [self._topic(words, weights) for _ in range(TOPICS)]
        self.title_words = title_words
        self.title_weights = zipf_cum_weights(len(title_words))
        pool_size = max(20, round(papers * AUTHOR_POOL_FACTOR))
        self.authors = author_name_pool(pool_size, self.rng)
        self.author_weights = zipf_cum_weights(pool_size, offset=AUTHOR_ZIPF_OFFSET)
        self.venues = [name for name, _ in VENUES]
        self.venue_weights = list(itertools.accumulate(share for _, share in VENUES))
        self.tracks = [name for name, _ in TRACKS]
        self.track_weights = list(itertools.accumulate(share for _, share in TRACKS))
        self.author_counts = [count for count, _ in AUTHOR_COUNTS]
        self.author_count_weights = list(itertools.accumulate(w for _, w in AUTHOR_COUNTS))
        self._forum_ids: set[str] = set()

    def _topic(self, words: Sequence[str], cum_weights: list[float]) -> tuple[list, list]:
        """A topic's vocabulary: the stop words and a random share of the content words, each
        keeping its corpus-wide Zipf weight."""
        chosen, chosen_weights, total, previous = [], [], 0.0, 0.0
        for word, cumulative in zip(words, cum_weights, strict=True):
            weight, previous = cumulative - previous, cumulative
            if word.casefold() in STOP_WORDS or self.rng.random() < TOPIC_SHARE:
                total += weight
                chosen.append(word)
                chosen_weights.append(total)
        return chosen, chosen_weights

    def records(self) -> Iterator[dict]:
        for _ in range(self.papers):
            yield self.record()

    def record(self) -> dict:
        rng = self.rng
        forum_id = self._forum_id()
        venue = rng.choices(self.venues, cum_weights=self.venue_weights)[0]
        track = rng.choices(self.tracks, cum_weights=self.track_weights)[0]
        return {
            "title": self._title(),
            "forum_id": forum_id,
            "url": f"https://openreview.net/forum?id={forum_id}",
            "authors": self._authors(),
            "tags": [venue, track],
            "abstract": self._abstract(),
            "pdf": f"https://openreview.net/pdf/{rng.getrandbits(160):040x}.pdf",
        }

    def _forum_id(self) -> str:
        while True:
            forum_id = "".join(self.rng.choices(_FORUM_ID_ALPHABET, k=10))
            if forum_id not in self._forum_ids:
                self._forum_ids.add(forum_id)
                return forum_id

    def _authors(self) -> list[str]:
        rng = self.rng
        count = rng.choices(self.author_counts, cum_weights=self.author_count_weights)[0]
        chosen: list[str] = []
        while len(chosen) < count:
            for name in rng.choices(self.authors, cum_weights=self.author_weights, k=count):
                if name not in chosen and len(chosen) < count:
                    chosen.append(name)
        return chosen

    def _title(self) -> str:
        rng = self.rng
        length = rng.randint(MIN_TITLE_WORDS, MAX_TITLE_WORDS)
        words = rng.choices(self.title_words, cum_weights=self.title_weights, k=length)
        titled = [
            w if (i and w.casefold() in _SMALL_WORDS) or not w.islower() else w.capitalize()
            for i, w in enumerate(words)
        ]
        if rng.random() < 0.3:
            # "RAPTOR: Recursive ..." - many real titles open with an acronym.
            acronym = "".join(rng.choices(string.ascii_uppercase, k=rng.randint(3, 6)))
            titled = [f"{acronym}:", *titled[1:]]
        return " ".join(titled)

    def _abstract(self) -> str:
        rng = self.rng
        length = rng.randint(MIN_ABSTRACT_WORDS, MAX_ABSTRACT_WORDS)
        vocabulary, cum_weights = self.topics[rng.randrange(TOPICS)]
        words = rng.choices(vocabulary, cum_weights=cum_weights, k=length)
        if rng.random() < LATEX_SHARE:
            words[rng.randrange(length)] = rng.choice(_LATEX_SNIPPETS)
        sentences: list[str] = []
        start = 0
        while start < length:
            end = min(length, start + rng.randint(10, 28))
            sentence = words[start:end]
            sentence[0] = sentence[0][:1].upper() + sentence[0][1:]
            sentences.append(" ".join(sentence) + ".")
            start = end
        return " ".join(sentences)


def generate_records(papers: int, *, seed: int = 1, fixtures: Path = FIXTURES) -> Iterator[dict]:
    """N synthetic paper records (dicts with the importer's JSONL field names)."""
    return CorpusGenerator(papers, seed=seed, fixtures=fixtures).records()


def write_jsonl(path: Path | str, papers: int, *, seed: int = 1, fixtures: Path = FIXTURES) -> int:
    """Write N records as JSONL (written to a temporary name, then renamed); returns N."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    written = 0
    with partial.open("w", encoding="utf-8") as out:
        for record in generate_records(papers, seed=seed, fixtures=fixtures):
            out.write(json.dumps(record, ensure_ascii=False))
            out.write("\n")
            written += 1
    partial.replace(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--papers", "-n", type=int, default=100_000, help="number of papers")
    parser.add_argument("--seed", type=int, default=1, help="random seed (same seed, same file)")
    parser.add_argument("--out", "-o", default="-", help="output file, '-' for stdout")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.out == "-":
        for record in generate_records(args.papers, seed=args.seed):
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    else:
        count = write_jsonl(args.out, args.papers, seed=args.seed)
        elapsed = time.perf_counter() - started
        print(f"wrote {count} papers to {args.out} in {elapsed:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
