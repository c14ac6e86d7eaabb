"""import_papers reads OpenReview notes and arXiv feeds, detected from their content, into the
catalogue; a malformed file of either fails with file:line and writes nothing."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from papers.models import Author, ImportConflict, Paper, Tag, TagKind

DATA = Path(__file__).resolve().parent / "data"
OPENREVIEW = DATA / "openreview" / "iclr2024_notes_v2.json"
ARXIV = DATA / "arxiv" / "query.xml"


def run(*paths) -> str:
    out = io.StringIO()
    call_command("import_papers", *map(str, paths), stdout=out)
    return out.getvalue()


def tags_of(paper: Paper) -> set[tuple[str, str]]:
    return {(tag.kind, tag.name) for tag in Tag.objects.filter(paper_tags__paper=paper)}


@pytest.mark.django_db
def test_openreview_notes_become_papers_with_venue_and_track(tmp_path):
    # A name the suffix alone would not give away: detection reads the content.
    notes = tmp_path / "saved-from-api.txt"
    shutil.copy(OPENREVIEW, notes)
    report = run(notes)
    assert "3 created" in report
    paper = Paper.objects.get(forum_id="aB3dE_f-01")
    assert paper.forum_url == "https://openreview.net/forum?id=aB3dE_f-01"
    assert paper.pdf_url.startswith("https://openreview.net/pdf/")
    assert tags_of(paper) == {
        (TagKind.VENUE, "ICLR 2024"),
        (TagKind.TRACK, "Oral"),
        (TagKind.KEYWORD, "variational inference"),
        (TagKind.KEYWORD, "disentanglement"),
        (TagKind.AREA, "generative models"),
    }
    assert not Paper.objects.filter(forum_id="Rev1ew-xyz").exists()  # a review, not a paper
    assert "Total: 0 created, 0 updated, 3 unchanged" in run(notes)


@pytest.mark.django_db
def test_a_paper_not_accepted_has_its_status_as_track_beside_the_venue(tmp_path):
    # "Submitted to ICLR 2024": the venue it went to, and a track saying it was not presented,
    # as an accepted paper's says Oral or Poster.
    run(OPENREVIEW)
    assert tags_of(Paper.objects.get(forum_id="NotAcc3pt0")) == {
        (TagKind.VENUE, "ICLR 2024"),
        (TagKind.TRACK, "Submitted"),
    }
    withdrawn = tmp_path / "withdrawn.jsonl"
    note = {"id": "W1thdrawn", "content": {"title": "W", "abstract": "Gone.", "authors": []}}
    note["content"]["venue"] = "ICLR 2024 Conference Withdrawn Submission"
    withdrawn.write_text(json.dumps(note) + "\n")
    run(withdrawn)
    assert tags_of(Paper.objects.get(forum_id="W1thdrawn")) == {
        (TagKind.VENUE, "ICLR 2024"),
        (TagKind.TRACK, "Withdrawn"),
    }


def _note_file(path: Path, venue: str, venue_id: str | None = None) -> Path:
    content = {"title": "Decided later", "abstract": "Under review.", "authors": ["Ann Lee"]}
    content["venue"] = venue
    if venue_id is not None:
        content["venueid"] = venue_id
    path.write_text(json.dumps({"id": "D3cided0", "content": content}) + "\n")
    return path


@pytest.mark.django_db
def test_a_decision_replaces_the_submitted_track(tmp_path):
    run(_note_file(tmp_path / "before.jsonl", "ICLR 2024 Conference Submission"))
    paper = Paper.objects.get(forum_id="D3cided0")
    assert (TagKind.TRACK, "Submitted") in tags_of(paper)

    report = run(_note_file(tmp_path / "after.jsonl", "ICLR 2024 poster"))

    assert "1 updated" in report
    assert tags_of(paper) == {(TagKind.VENUE, "ICLR 2024"), (TagKind.TRACK, "Poster")}
    # The file from before the decision, imported again, does not bring "Submitted" back.
    run(tmp_path / "before.jsonl")
    assert (TagKind.TRACK, "Submitted") not in tags_of(paper)


@pytest.mark.django_db
def test_a_journal_s_acceptance_replaces_the_submitted_track(tmp_path):
    run(_note_file(tmp_path / "before.jsonl", "Under review for TMLR", "TMLR/Under_Review"))
    paper = Paper.objects.get(forum_id="D3cided0")
    assert tags_of(paper) == {(TagKind.VENUE, "TMLR"), (TagKind.TRACK, "Submitted")}

    run(_note_file(tmp_path / "after.jsonl", "TMLR", "TMLR"))

    assert tags_of(paper) == {(TagKind.VENUE, "TMLR"), (TagKind.TRACK, "Accepted")}


@pytest.mark.django_db
def test_a_curator_s_tags_keep_the_submitted_track(tmp_path):
    run(_note_file(tmp_path / "before.jsonl", "ICLR 2024 Conference Submission"))
    paper = Paper.objects.get(forum_id="D3cided0")
    paper.curator_edited_fields = ["tags"]
    paper.save(update_fields=["curator_edited_fields"])

    run(_note_file(tmp_path / "after.jsonl", "ICLR 2024 poster"))

    assert (TagKind.TRACK, "Submitted") in tags_of(paper)
    assert (TagKind.TRACK, "Poster") not in tags_of(paper)


@pytest.mark.django_db
def test_arxiv_feed_entries_become_papers():
    report = run(ARXIV)
    assert "3 created" in report
    zoe = Paper.objects.get(title__startswith="Zoë")
    assert zoe.forum_url == "https://arxiv.org/abs/2401.12345v1"
    assert zoe.pdf_url.startswith("https://arxiv.org/pdf/2401.12345")
    math = Paper.objects.get(title__contains="$\\alpha$-Divergence")
    assert (TagKind.VENUE, "ICLR 2024") in tags_of(math)
    # No forum id: a second import finds each paper again by its abstract.
    assert "Total: 0 created, 0 updated, 3 unchanged" in run(ARXIV)
    assert Paper.objects.count() == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "notes.json",
            '{"notes": [\n{"id": "x1", "content": {"title": {"value": 5}}}\n]}',
            "notes.json:2: content.title must be text, got a number",
        ),
        (
            "feed.xml",
            '<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n<entry>\n</feed>',
            "feed.xml:4: malformed XML",
        ),
    ],
)
def test_a_malformed_source_file_fails_with_its_line_and_writes_nothing(
    tmp_path, name, text, message
):
    run(OPENREVIEW)
    before = list(Paper.objects.order_by("pk").values())
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CommandError) as failure:
        run(OPENREVIEW, path)
    assert f"{tmp_path}/{message}" in str(failure.value)
    assert list(Paper.objects.order_by("pk").values()) == before


BIB = """@inproceedings{alpha2024,
  title = {{$\\alpha$}-Divergence Flows for {BERT}},
  author = {M{\\"u}ller, J{\\"o}rg and Doe, Jane},
  booktitle = {ICLR 2024},
  year = {2024},
  abstract = {We study flows.},
  keywords = {flows; divergences},
}
"""
RIS = """TY  - CONF
TI  - Sparse Graph Models
AU  - Smith, Ann
AU  - Ünal, Zoë
T2  - NeurIPS 2023
PY  - 2023
AB  - Graphs, sparsely.
KW  - graphs
ER  - 
"""


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "title", "authors", "tags"),
    [
        (
            BIB,
            "$\\alpha$-Divergence Flows for BERT",
            "Jörg Müller, Jane Doe",
            {
                (TagKind.VENUE, "ICLR 2024"),
                (TagKind.KEYWORD, "flows"),
                (TagKind.KEYWORD, "divergences"),
            },
        ),
        (
            RIS,
            "Sparse Graph Models",
            "Ann Smith, Zoë Ünal",
            {(TagKind.VENUE, "NeurIPS 2023"), (TagKind.KEYWORD, "graphs")},
        ),
    ],
    ids=["bibtex", "ris"],
)
def test_reference_manager_exports_become_papers(tmp_path, text, title, authors, tags):
    exported = tmp_path / "library.txt"  # the reader is chosen from the content
    exported.write_text(text, encoding="utf-8")
    assert "Total: 1 created" in run(exported)
    paper = Paper.objects.get()
    assert (paper.title, paper.author_names) == (title, authors)
    assert tags_of(paper) == tags
    assert "Total: 0 created, 0 updated, 1 unchanged" in run(exported)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["zotero.bib", "zotero.ris"])
def test_an_entry_without_an_abstract_is_known_by_its_arxiv_id(name):
    path = DATA / "references" / name
    run(path)
    paper = Paper.objects.get(arxiv_id="1804.03599")
    assert paper.title.startswith("Understanding disentangling in ")  # β as $\\beta$ in BibTeX
    assert (paper.abstract, paper.abstract_fingerprint) == ("", "")
    assert paper.doi == "10.48550/arxiv.1804.03599"
    # Found again by its arXiv id, not duplicated, on every later import.
    assert "0 created, 0 updated" in run(path)
    assert Paper.objects.filter(title=paper.title).count() == 1


@pytest.mark.django_db
def test_a_reference_without_abstract_or_id_is_refused_at_its_line(tmp_path):
    # Papers are told apart by forum id, arXiv id, DOI or abstract; a reference with none of
    # them has no identity an import could find again: refused, not duplicated on every import.
    path = tmp_path / "library.bib"
    path.write_text(
        "@article{a, title={With Abstract}, abstract={Some text.}, author={Doe, Jane}}\n\n"
        "@article{b, title={Bare Reference}, author={Doe, Jane}, year={2020}}\n",
        "utf-8",
    )
    with pytest.raises(CommandError) as failure:
        run(path)
    assert str(failure.value).startswith(
        f"{path}:3: record has no abstract, and no forum id, arXiv id or DOI to know it by"
    )
    assert not Paper.objects.exists()


@pytest.mark.django_db
def test_a_blind_submission_has_no_author_until_a_source_names_them(tmp_path):
    blind = tmp_path / "iclr2019_v1.jsonl"
    note = {"id": "blind1", "forum": "blind1", "content": {"title": "Blind", "abstract": "A."}}
    blind.write_text(json.dumps(note | {"content": note["content"] | {"authors": ["Anonymous"]}}))
    run(blind)
    paper = Paper.objects.get()
    assert paper.author_names == ""
    assert not Author.objects.exists()
    camera_ready = tmp_path / "camera_ready.jsonl"
    camera_ready.write_text(
        json.dumps(note | {"content": note["content"] | {"authors": ["Ann One"]}})
    )
    run(camera_ready)
    paper.refresh_from_db()
    assert paper.author_names == "Ann One"
    assert not ImportConflict.objects.exists()
