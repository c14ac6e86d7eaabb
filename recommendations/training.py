"""Training "Recommended for me": a linear classifier per member on tf-idf features.

As arxiv-sanity-lite does: every paper's title, abstract and keywords become one tf-idf row
(built once per run, `build_corpus`); for each member, the papers they showed interest in are
the positives and every other paper a negative; a linear SVM with balanced class weights scores
every paper, and the best ones the member has not already got are kept (`recommend`).

What counts as interest (`member_signals`): papers in any of the member's own reading lists
(private or shared), papers they wrote a note on, papers they tagged with a lab tag. Only the
member's own rows are read, so nobody else's private list or note can change their model or
show up in its explanations. A member with fewer than MIN_POSITIVES such papers gets no
recommendations: one paper says too little about what they read.

Where the catalogue's papers have embeddings (the semantic app, docs/semantic.md), they are
features too (`with_meaning`): a paper on the member's topic in other words then scores; the
reasons named stay words.

The functions below `member_signals` and `corpus_rows` take plain data and touch no database.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace

import numpy as np
from scipy import sparse

from annotations.models import Note, ReadingListItem
from papers.latex import without_latex_commands
from papers.models import Paper, PaperTag, TagKind
from recommendations.models import MIN_POSITIVES

# Rows kept per member.
DEFAULT_LIMIT = 100
# Terms named in an explanation ("because of: diffusion, score matching").
REASON_TERMS = 3
# A list paper at least this close (cosine of tf-idf rows) to a recommendation counts towards
# "like N papers in <list>".
LIST_SIMILARITY = 0.1
# Strong regularisation, as arxiv-sanity-lite: a handful of positives among thousands of papers.
SVM_C = 0.1
# The embedding's share of the features: its rows are unit vectors as the tf-idf rows are. On
# the ICLR corpus (bench.recommend_quality, docs/recommendations.md) held-out recall@20 was
# 0.336 with words alone, 0.351 at 0.5, 0.340 at 1.0 and 0.316 at 2.0.
MEANING_WEIGHT = 0.5
# Embeddings are used once this share of the catalogue has one: a half-embedded catalogue
# would rank the embedded half up for nothing but having a vector.
MEANING_COVERAGE = 0.9
# Papers read from the database per query while building the corpus.
READ_BATCH = 5_000
# The vocabulary and idf are learnt from at most this many papers, spread evenly over the
# catalogue, and then every paper is transformed: learning them holds every word pair seen in
# memory at once (20,000 generated papers: 290 MB above their texts; a quarter of them: 84 MB),
# so 100,000 papers cost about what 20,000 do.
FIT_SAMPLE = 20_000


@dataclass(frozen=True)
class Corpus:
    """Every paper as an L2-normalised tf-idf row; row i is paper `paper_ids[i]`."""

    paper_ids: np.ndarray
    matrix: sparse.csr_matrix
    terms: np.ndarray
    row_of: dict[int, int] = field(repr=False)
    # Every paper's embedding (title and abstract, L2-normalised; zeros where a paper has
    # none), row by row as `matrix`; None when too few papers have one (`with_meaning`).
    meaning: np.ndarray | None = field(default=None, repr=False)

    def features(self) -> sparse.csr_matrix:
        """What the classifier learns from: the tf-idf columns, then the embedding's, weighted
        by MEANING_WEIGHT. The tf-idf columns come first, so their weights name the reasons."""
        if self.meaning is None:
            return self.matrix
        dense = sparse.csr_matrix(self.meaning * MEANING_WEIGHT, dtype=np.float32)
        return sparse.hstack([self.matrix, dense], format="csr")

    def rows(self, paper_ids: Iterable[int]) -> list[int]:
        return [self.row_of[pk] for pk in paper_ids if pk in self.row_of]


@dataclass(frozen=True)
class Signals:
    """One member's positives: every paper they showed interest in, and their own lists."""

    positives: frozenset[int]
    # List name -> its paper ids; the member's own lists only.
    lists: dict[str, list[int]]


@dataclass(frozen=True)
class Scored:
    paper_id: int
    score: float
    terms: list[str]
    lists: list[dict]

    @property
    def reasons(self) -> dict:
        return {"terms": self.terms, "lists": self.lists}


# --- Reading the database --------------------------------------------------------------------


def corpus_rows() -> Iterator[tuple[int, str]]:
    """(paper id, title + abstract + keywords) for every paper, in id order, a batch at a time."""
    last = 0
    while True:
        batch = list(
            Paper.objects.filter(pk__gt=last)
            .order_by("pk")
            .values_list("pk", "title", "abstract")[:READ_BATCH]
        )
        if not batch:
            return
        ids = [pk for pk, _, _ in batch]
        keywords: dict[int, list[str]] = defaultdict(list)
        for paper_id, name in PaperTag.objects.filter(
            paper_id__in=ids, tag__kind=TagKind.KEYWORD
        ).values_list("paper_id", "tag__name"):
            keywords[paper_id].append(name)
        for pk, title, abstract in batch:
            yield pk, without_latex_commands("\n".join([title, abstract, *keywords[pk]]))
        last = ids[-1]


def member_signals(user) -> Signals:
    """The member's positives, from their own lists, notes and lab tags and the papers they
    wrote, when their profile knows their author (three queries)."""
    lists: dict[str, list[int]] = defaultdict(list)
    for name, paper_id in (
        ReadingListItem.objects.filter(reading_list__owner=user)
        .order_by("reading_list_id", "position", "pk")
        .values_list("reading_list__name", "paper_id")
    ):
        lists[name].append(paper_id)
    # One query for the notes and the member's own papers (Paper.objects.authored_by).
    noted = (
        Note.objects.filter(owner=user)
        .order_by()
        .values_list("paper_id", flat=True)
        .union(Paper.objects.authored_by(user).order_by().values_list("pk", flat=True))
    )
    tagged = PaperTag.objects.filter(added_by=user, tag__kind=TagKind.LAB).values_list(
        "paper_id", flat=True
    )
    positives = {pk for ids in lists.values() for pk in ids} | set(noted) | set(tagged)
    return Signals(positives=frozenset(positives), lists=dict(lists))


# --- Pure computation ------------------------------------------------------------------------


def build_corpus(rows: Iterable[tuple[int, str]]) -> Corpus:
    """The tf-idf matrix of the given (paper id, text) rows: built once, used for every member."""
    # Imported here, not at the top: scikit-learn takes half a second to import, and every
    # process that loads the URLs (each web worker, each management command) would pay it.
    from sklearn.feature_extraction.text import TfidfVectorizer

    ids: list[int] = []
    texts: list[str] = []
    for pk, text in rows:
        ids.append(pk)
        texts.append(text)
    vectorizer = TfidfVectorizer(
        sublinear_tf=True,
        ngram_range=(1, 2),
        stop_words="english",
        # Words of at least two characters that start with a letter: no bare numbers.
        token_pattern=r"(?u)\b[^\W\d_][^\W_]+\b",  # noqa: S106 (a regex, not a secret)
        # A term in one paper cannot relate two; one in most papers tells nothing apart.
        min_df=2 if min(len(texts), FIT_SAMPLE) < 20_000 else 5,
        max_df=0.5,
        max_features=50_000,
        dtype=np.float32,
    )
    if len(texts) < 2:
        return Corpus(
            paper_ids=np.array(ids, dtype=np.int64),
            matrix=sparse.csr_matrix((len(ids), 0), dtype=np.float32),
            terms=np.array([], dtype=object),
            row_of={pk: i for i, pk in enumerate(ids)},
        )
    try:
        if len(texts) > FIT_SAMPLE:
            step = len(texts) / FIT_SAMPLE
            vectorizer.fit([texts[int(i * step)] for i in range(FIT_SAMPLE)])
            matrix = vectorizer.transform(texts).tocsr()
        else:
            matrix = vectorizer.fit_transform(texts).tocsr()
        terms = vectorizer.get_feature_names_out()
    except ValueError:  # no term left after min_df and max_df (a tiny or uniform catalogue)
        matrix = sparse.csr_matrix((len(ids), 0), dtype=np.float32)
        terms = np.array([], dtype=object)
    return Corpus(
        paper_ids=np.array(ids, dtype=np.int64),
        matrix=matrix,
        terms=terms,
        row_of={pk: i for i, pk in enumerate(ids)},
    )


def with_meaning(corpus: Corpus, vectors: Mapping[int, np.ndarray]) -> Corpus:
    """The corpus with the papers' embeddings as features, when at least MEANING_COVERAGE of
    its papers have one; as it is otherwise."""
    ids = corpus.paper_ids
    if not len(ids) or not vectors:
        return corpus
    covered = sum(1 for pk in ids if int(pk) in vectors)
    if covered < MEANING_COVERAGE * len(ids):
        return corpus
    width = len(next(iter(vectors.values())))
    meaning = np.zeros((len(ids), width), dtype=np.float32)
    for row, pk in enumerate(ids):
        vector = vectors.get(int(pk))
        if vector is not None and len(vector) == width:
            norm = float(np.linalg.norm(vector))
            meaning[row] = vector / norm if norm else 0.0
    return replace(corpus, meaning=meaning)


def recommend(corpus: Corpus, signals: Signals, limit: int = DEFAULT_LIMIT) -> list[Scored]:
    """The member's best `limit` papers they have not got yet, best first, with reasons.

    Empty when they have fewer than MIN_POSITIVES papers the corpus knows, or when every
    paper is one of theirs.
    """
    positive_rows = corpus.rows(sorted(signals.positives))
    n_papers = corpus.matrix.shape[0]
    if len(positive_rows) < MIN_POSITIVES or corpus.matrix.shape[1] == 0 or limit < 1:
        return []
    if len(positive_rows) >= n_papers:
        return []
    from sklearn.svm import LinearSVC  # imported here: see build_corpus

    labels = np.zeros(n_papers, dtype=np.int8)
    labels[positive_rows] = 1
    classifier = LinearSVC(
        C=SVM_C, class_weight="balanced", tol=1e-5, max_iter=10_000, random_state=0
    )
    features = corpus.features()
    classifier.fit(features, labels)
    scores = classifier.decision_function(features)
    scores[positive_rows] = -np.inf
    limit = min(limit, n_papers - len(positive_rows))
    best = np.argpartition(-scores, limit - 1)[:limit]
    # Ties broken by paper id, so a rerun gives the same order.
    best = best[np.lexsort((corpus.paper_ids[best], -scores[best]))]
    weights = classifier.coef_.ravel()[: corpus.matrix.shape[1]]  # the tf-idf columns'
    terms = _top_terms(corpus, weights, best)
    lists = _closest_lists(corpus, signals, best)
    return [
        Scored(
            paper_id=int(corpus.paper_ids[row]),
            score=float(scores[row]),
            terms=terms[i],
            lists=lists[i],
        )
        for i, row in enumerate(best)
    ]


def _top_terms(corpus: Corpus, weights: np.ndarray, rows: np.ndarray) -> list[list[str]]:
    """For each row, the terms that raised its score most (weight × the paper's tf-idf)."""
    result = []
    for row in rows:
        start, end = corpus.matrix.indptr[row], corpus.matrix.indptr[row + 1]
        columns = corpus.matrix.indices[start:end]
        contributions = weights[columns] * corpus.matrix.data[start:end]
        chosen: list[str] = []
        for k in np.argsort(-contributions):
            if contributions[k] <= 0 or len(chosen) == REASON_TERMS:
                break
            term = str(corpus.terms[columns[k]])
            # "score matching" says what "score" and "matching" would say again.
            if any(term in kept or kept in term for kept in chosen):
                continue
            chosen.append(term)
        result.append(chosen)
    return result


def _closest_lists(corpus: Corpus, signals: Signals, rows: np.ndarray) -> list[list[dict]]:
    """For each row, the member's list with the most papers like it: [{"name", "count"}] or []."""
    named = [(name, corpus.rows(ids)) for name, ids in sorted(signals.lists.items())]
    named = [(name, list_rows) for name, list_rows in named if list_rows]
    if not named or len(rows) == 0:
        return [[] for _ in rows]
    members = sorted({r for _, list_rows in named for r in list_rows})
    column_of = {r: i for i, r in enumerate(members)}
    # Cosine similarity of every recommended paper to every list paper (rows are L2-normalised).
    similarity = (corpus.matrix[rows] @ corpus.matrix[members].T).toarray()
    close = similarity >= LIST_SIMILARITY
    result = []
    for i in range(len(rows)):
        best: tuple[int, float, str] | None = None
        for name, list_rows in named:
            columns = [column_of[r] for r in list_rows]
            count = int(close[i, columns].sum())
            mean = float(similarity[i, columns].mean())
            if count and (best is None or (count, mean) > best[:2]):
                best = (count, mean, name)
        result.append([{"name": best[2], "count": best[0]}] if best else [])
    return result
