"""A paper from each source, added by its link as a member adds one (papers.sources.single, the
services replayed by respx from their documented formats): a Crossref journal article, a
Crossref proceedings paper, an arXiv-only preprint and an OpenReview conference paper. What
the citation tests cite, and the pandoc runner they read the citations back with."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

import httpx
import respx

from bench.standins import v2_note
from papers.models import Paper
from papers.sources import single
from tests.link_lookup_helpers import (
    ARXIV,
    CROSSREF,
    DOI,
    OPENREVIEW,
    SCHRODINGER,
    arxiv_answer,
    crossref_work,
)

CSL_DIR = Path(__file__).resolve().parent.parent / "annotations" / "csl"
JOURNAL_DOI = "10.1038/s42256-024-00815-9"
JOURNAL = "Nature Machine Intelligence"
FORUM_ID = "Zg8ygQlHhl"
# The year the papers are said to have been added: no citation may print it.
ADDED_YEAR = 2031


def journal_work(doi: str = JOURNAL_DOI, **dates: object) -> dict:
    """A journal article as Crossref answers /works/{doi}: published online in 2024 (`issued`
    unless `dates` says otherwise), registered in 2023."""
    answer = crossref_work(doi)
    work = answer["message"]
    work.update(
        {
            "type": "journal-article",
            "title": ["Learning to Route with Sparse Experts"],
            "container-title": [JOURNAL],
            "issued": {"date-parts": [[2024, 5, 2]]},
            "published-online": {"date-parts": [[2024, 5, 2]]},
            "created": {"date-parts": [[2023, 11, 20]]},
        }
    )
    work.pop("link")  # no PDF link: nothing else to fetch
    for name, value in dates.items():
        name = name.replace("_", "-")
        if value is None:
            work.pop(name, None)
        else:
            work[name] = value
    return answer


def add_by_link(user, text: str) -> Paper:
    paper = single.paper_for_identifier(text, user=user)
    assert paper is not None
    return paper


@respx.mock
def papers_from_each_source(user) -> dict[str, Paper]:
    """The four papers, added by `user`, each by its link, dated as added in ADDED_YEAR."""
    respx.get(f"{CROSSREF}/works/{JOURNAL_DOI}").mock(
        return_value=httpx.Response(200, json=journal_work())
    )
    respx.get(f"{CROSSREF}/works/{DOI}").mock(
        return_value=httpx.Response(200, json=crossref_work())  # KDD 2019, proceedings-article
    )
    respx.get(ARXIV).mock(return_value=arxiv_answer(SCHRODINGER))
    note = v2_note(FORUM_ID, "Forum Paper", venue="ICLR 2024 Poster")
    note["pdate"] = 1705363200000  # 2024-01-16, when ICLR published its decisions
    respx.get(f"{OPENREVIEW}/notes").mock(
        return_value=httpx.Response(200, json={"notes": [note], "count": 1})
    )
    papers = {
        "journal": add_by_link(user, f"https://doi.org/{JOURNAL_DOI}"),
        "proceedings": add_by_link(user, f"https://doi.org/{DOI}"),
        "preprint": add_by_link(user, "https://arxiv.org/abs/2402.01234v2"),
        "openreview": add_by_link(user, f"https://openreview.net/forum?id={FORUM_ID}"),
    }
    added = datetime(ADDED_YEAR, 1, 15, tzinfo=UTC)
    Paper.objects.filter(pk__in=[p.pk for p in papers.values()]).update(created_at=added)
    return {name: Paper.objects.get(pk=paper.pk) for name, paper in papers.items()}


def pandoc_references(tmp_path: Path, bibliography: str, name: str, keys, style: str) -> str:
    """The references pandoc's citeproc makes of `bibliography` (a file's text, its format
    told by `name`'s extension: .bib or .json) for `keys`, in a CSL style of ours."""
    (tmp_path / name).write_text(bibliography, encoding="utf-8")
    (tmp_path / "doc.md").write_text(
        "---\nnocite: |\n  " + ", ".join(f"@{key}" for key in keys) + "\n---\n", encoding="utf-8"
    )
    result = subprocess.run(
        [
            "pandoc",
            "doc.md",
            "--citeproc",
            f"--bibliography={name}",
            f"--csl={CSL_DIR / style}",
            "--to=plain",
            "--wrap=none",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return result.stdout
