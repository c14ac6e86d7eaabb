"""Keywords and the primary area become tags of their own kinds, normalised like lab tags."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from papers.models import Paper, Tag, TagKind

pytestmark = pytest.mark.django_db

RECORD = {
    "title": "Sparse Diffusion",
    "forum_id": "kw1",
    "abstract": "We sparsify diffusion models.",
    "tags": ["ICLR 2024"],
    "keywords": ["Diffusion Models", "diffusion  models", "Sparsity"],
    "primary_area": "generative models",
}


def run(path) -> str:
    out = io.StringIO()
    call_command("import_papers", str(path), stdout=out)
    return out.getvalue()


def write(tmp_path, *records):
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def tags_by_kind(paper: Paper) -> dict[str, list[str]]:
    kinds: dict[str, list[str]] = {}
    for kind, name in paper.tags.order_by("kind", "name").values_list("kind", "name"):
        kinds.setdefault(kind, []).append(name)
    return kinds


def test_keywords_and_area_are_tags_one_per_key(tmp_path):
    run(write(tmp_path, RECORD))
    assert tags_by_kind(Paper.objects.get()) == {
        TagKind.AREA: ["generative models"],
        TagKind.KEYWORD: ["Diffusion Models", "Sparsity"],
        TagKind.VENUE: ["ICLR 2024"],
    }


def test_papers_share_a_keyword_whatever_its_case_and_a_reimport_changes_nothing(tmp_path):
    other = RECORD | {"forum_id": "kw2", "abstract": "Other.", "keywords": ["SPARSITY"]}
    path = write(tmp_path, RECORD, other)
    run(path)
    sparsity = Tag.objects.get(kind=TagKind.KEYWORD, key="sparsity")
    assert sparsity.papers.count() == 2
    assert "Total: 0 created, 0 updated, 2 unchanged" in run(path)


def test_a_keyword_list_may_be_one_comma_separated_string(tmp_path):
    run(write(tmp_path, RECORD | {"keywords": "graphs, message passing"}))
    assert tags_by_kind(Paper.objects.get())[TagKind.KEYWORD] == ["graphs", "message passing"]


@pytest.mark.parametrize(
    ("given", "keywords"),
    [
        ("graphs; message passing", ["graphs", "message passing"]),
        (" vision, language and audio ;graphs; ;", ["graphs", "vision, language and audio"]),
        ("graphs, message passing", ["graphs", "message passing"]),  # no ";": commas
        ("graphs", ["graphs"]),
    ],
)
def test_a_keyword_string_splits_on_semicolons_else_commas(tmp_path, given, keywords):
    path = tmp_path / "refs.csv"
    path.write_text(f'forum_id,title,abstract,keywords\nkw1,T,A.,"{given}"\n', "utf-8")
    run(str(path))
    paper = Paper.objects.get()
    assert sorted(paper.tags.filter(kind=TagKind.KEYWORD).values_list("name", flat=True)) == (
        keywords
    )


@pytest.mark.parametrize(
    ("change", "note", "keywords"),
    [
        (
            {"keywords": ["ok", "\u202eevil"]},
            "keyword 'evil': removed invisible character(s) U+202E",
            ["evil", "ok"],
        ),
        (
            {"keywords": ["word " * 30]},
            # Counted as stored: NFKC writes the ellipsis as three dots.
            "keyword 'word word word word word word word word '... is 149 characters long: cut "
            "at a word boundary to 97 (at most 100)",
            ["word " * 18 + "word..."],
        ),
        (
            {"keywords": [f"k{n}" for n in range(101)]},
            "101 keywords: kept the first 100",
            sorted(f"k{n}" for n in range(100)),
        ),
        (
            {"primary_area": "\u3164"},
            "primary area '\u3164' shows nothing: left out",
            ["Diffusion Models", "Sparsity"],
        ),
    ],
)
def test_keywords_over_their_limits_are_cleaned_with_the_line(tmp_path, change, note, keywords):
    path = write(tmp_path, RECORD | {"forum_id": "fine"}, RECORD | change)
    output = run(path)
    assert f"{path}:2: {note}" in output, output
    paper = Paper.objects.get(forum_id=RECORD["forum_id"])
    topics = paper.tags.filter(kind=TagKind.KEYWORD)
    assert sorted(topics.values_list("name", flat=True)) == keywords
    areas = paper.tags.filter(kind=TagKind.AREA).values_list("name", flat=True)
    assert list(areas) == ([] if "primary_area" in change else ["generative models"])


@pytest.mark.parametrize(("change", "message"), [({"keywords": {"a": 1}}, "keywords")])
def test_bad_keywords_fail_with_the_line_and_write_nothing(tmp_path, change, message):
    path = write(tmp_path, RECORD | {"forum_id": "fine"}, RECORD | change)
    with pytest.raises(CommandError) as failure:
        run(path)
    assert str(failure.value).startswith(f"{path}:2: ")
    assert message in str(failure.value)
    assert not Paper.objects.exists()


def test_a_raw_openreview_area_is_shown_humanly_and_keeps_its_identity(tmp_path, client):
    raw = "deep_learning_architectures"
    other = RECORD | {"forum_id": "kw2", "abstract": "Other.", "primary_area": raw}
    path = write(tmp_path, RECORD | {"primary_area": raw}, other)
    run(path)
    # Stored as the source gives it: one tag, found again by the next import.
    area = Tag.objects.get(kind=TagKind.AREA, key=raw)
    assert area.name == raw and area.papers.count() == 2
    assert "Total: 0 created, 0 updated, 2 unchanged" in run(path)
    label = "Deep learning architectures"
    assert area.label == label
    paper = Paper.objects.get(forum_id="kw1")
    for url in (paper.get_absolute_url(), area.get_absolute_url(), "/"):
        page = client.get(url).content.decode()
        assert label in page and raw not in page.replace(area.slug, ""), url


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("deep_learning_architectures", "Deep learning architectures"),
        (
            "applications to computer vision, audio, language, and other modalities",
            "Applications to computer vision, audio, language, and other modalities",
        ),
        ("Generative Models", "Generative Models"),  # capitals: as written
        ("robotics", "robotics"),  # one word: nothing says it is raw
        ("cs.XX", "cs.XX"),  # not an arXiv category arXiv lists: as it is
    ],
)
def test_area_labels(name, label):
    assert Tag(kind=TagKind.AREA, name=name).label == label
    assert Tag(kind=TagKind.KEYWORD, name=name).label == name  # keywords as named


@pytest.mark.parametrize("kind", [TagKind.AREA, TagKind.KEYWORD])
def test_arxiv_categories_are_shown_by_name(kind):
    assert Tag(kind=kind, name="cs.LG").label == "Machine Learning (cs.LG)"
    assert Tag(kind=kind, name="stat.ML").label == "Machine Learning (stat.ML)"
    assert Tag(kind=TagKind.LAB, name="cs.LG").label == "cs.LG"  # a member's tag as typed
