"""Recommended for me on the real ICLR 2024 corpus: a member who saved ten diffusion papers."""

from __future__ import annotations

from collections import defaultdict

import pytest

from papers.importing.pipeline import import_paths
from papers.models import Paper, PaperTag, TagKind
from recommendations import training
from tests.factories import make_note, make_reading_list
from tests.test_import_three_way import CORPUS

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db,
    pytest.mark.skipif(not CORPUS.exists(), reason=f"the ICLR 2024 corpus is not at {CORPUS}"),
]

SAVED = 10
K = 10


def about_diffusion(papers: dict[int, tuple[str, list[str]]], pk: int) -> bool:
    """Relevant as the corpus says: its keywords or its title mention diffusion."""
    title, keywords = papers[pk]
    return "diffusion" in title.lower() or any("diffusion" in k.lower() for k in keywords)


def test_ten_saved_diffusion_papers_give_diffusion_recommendations(user, other_user):
    import_paths([str(CORPUS)])
    keywords: dict[int, list[str]] = defaultdict(list)
    for paper_id, name in PaperTag.objects.filter(tag__kind=TagKind.KEYWORD).values_list(
        "paper_id", "tag__name"
    ):
        keywords[paper_id].append(name)
    papers = {pk: (title, keywords[pk]) for pk, title in Paper.objects.values_list("pk", "title")}
    # Ten papers whose keywords (not only their title) say diffusion, in a stable order.
    saved = [pk for pk in sorted(papers) if any("diffusion" in k.lower() for k in keywords[pk])][
        :SAVED
    ]
    assert len(saved) == SAVED
    make_reading_list(user, "Reading group", papers=Paper.objects.filter(pk__in=saved))
    corpus = training.build_corpus(training.corpus_rows())

    mine = training.recommend(corpus, training.member_signals(user))

    top = [item.paper_id for item in mine[:K]]
    precision = sum(about_diffusion(papers, pk) for pk in top) / K
    assert precision >= 0.7, [papers[pk][0] for pk in top]
    assert not set(saved) & {item.paper_id for item in mine}
    assert {entry["name"] for item in mine for entry in item.lists} <= {"Reading group"}

    # Another member's private list and note, on other topics, change nothing of mine.
    others = [pk for pk in sorted(papers) if not about_diffusion(papers, pk)][:20]
    make_reading_list(other_user, "Secret", papers=Paper.objects.filter(pk__in=others))
    make_note(other_user, Paper.objects.get(pk=others[0]), body="private")
    assert training.recommend(corpus, training.member_signals(user)) == mine
