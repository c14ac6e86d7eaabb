"""How incoming records meet existing papers: enrichment, no blanking, curator edits, tags."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from papers.importing import matching
from papers.importing.pipeline import import_paths
from papers.importing.records import PaperRecord
from papers.models import Author, ImportConflict, Paper, PaperTag, TagKind
from tests.factories import make_paper, make_tag, make_user

pytestmark = pytest.mark.django_db

ABSTRACT = "We study  a problem.\nIt is   hard."
FULL = {
    "title": "A Full Record",
    "url": "https://openreview.net/forum?id=full1",
    "authors": ["Ann One", "Bob Two"],
    "tags": "ICLR 2024,Spotlight",
    "abstract": "we study a problem. it is hard.",  # same paper, other whitespace and case
    "pdf": "https://openreview.net/pdf?id=full1",
}


def write_jsonl(path, *records):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return str(path)


def write_list(path, *abstracts, heading="ICLR 2024 Papers"):
    path.write_text(heading + "\n\n" + "\n\n".join(abstracts) + "\n", "utf-8")
    return str(path)


def run(*paths) -> str:
    out = io.StringIO()
    call_command("import_papers", *paths, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_full_record_enriches_an_abstract_only_paper(tmp_path):
    run(write_list(tmp_path / "list.txt", ABSTRACT))
    untitled = Paper.objects.get()
    output = run(write_jsonl(tmp_path / "full.jsonl", FULL))
    assert "0 created, 1 updated" in output
    paper = Paper.objects.get()
    assert paper.pk == untitled.pk
    assert (paper.title, paper.forum_id, paper.pdf_url) == (
        "A Full Record",
        "full1",
        "https://openreview.net/pdf?id=full1",
    )
    assert paper.abstract == ABSTRACT  # equal after normalisation: the stored text is kept
    assert paper.author_names == "Ann One, Bob Two"
    assert not paper.needs_curation and paper.curation_reason == ""
    assert sorted(paper.tags.values_list("kind", "name")) == [
        ("track", "Spotlight"),
        ("venue", "ICLR 2024"),
    ]


def test_abstract_only_record_after_the_full_record_adds_nothing_and_blanks_nothing(tmp_path):
    run(write_jsonl(tmp_path / "full.jsonl", FULL))
    before = list(Paper.objects.values())
    output = run(write_list(tmp_path / "list.txt", ABSTRACT))
    assert "0 created, 0 updated, 1 unchanged" in output
    assert list(Paper.objects.values()) == before
    assert Paper.objects.get().title == "A Full Record"


@pytest.mark.parametrize("batch_size", [1, 1000], ids=["across batches", "within a batch"])
def test_both_in_one_import_make_one_paper_in_either_order(tmp_path, batch_size):
    listing = write_list(tmp_path / "a_list.txt", ABSTRACT)
    full = write_jsonl(tmp_path / "b_full.jsonl", FULL)
    import_paths([listing, full], batch_size=batch_size)
    assert Paper.objects.count() == 1
    Paper.objects.all().delete()
    import_paths([full, listing], batch_size=batch_size)
    paper = Paper.objects.get()
    assert paper.title == "A Full Record" and not paper.needs_curation


def test_records_with_different_forum_ids_are_never_merged(tmp_path):
    other = {**FULL, "title": "Twin", "url": "https://openreview.net/forum?id=twin2"}
    run(write_jsonl(tmp_path / "one.jsonl", FULL))
    run(write_jsonl(tmp_path / "two.jsonl", other))
    assert sorted(Paper.objects.values_list("forum_id", flat=True)) == ["full1", "twin2"]


def test_equal_abstracts_with_different_forum_ids_in_one_file_stay_apart(tmp_path):
    listing = write_list(tmp_path / "a_list.txt", ABSTRACT)
    twin = {**FULL, "title": "Twin", "url": "https://openreview.net/forum?id=twin2"}
    report = import_paths([listing, write_jsonl(tmp_path / "b.jsonl", FULL, twin)])
    # The untitled paper is taken by the first full record; the twin gets its own paper.
    assert sorted(Paper.objects.values_list("forum_id", "title")) == [
        ("full1", "A Full Record"),
        ("twin2", "Twin"),
    ]
    assert (report.total.created, report.total.updated) == (2, 1)


def test_a_record_lacking_fields_never_blanks_stored_values(tmp_path):
    run(write_jsonl(tmp_path / "full.jsonl", FULL))
    sparse = {"forum_id": "full1", "abstract": FULL["abstract"], "authors": [], "tags": []}
    output = run(write_jsonl(tmp_path / "sparse.jsonl", sparse))
    assert "0 updated, 1 unchanged" in output
    paper = Paper.objects.get()
    assert paper.title == "A Full Record" and paper.pdf_url.endswith("full1")
    assert paper.author_names == "Ann One, Bob Two" and paper.tags.count() == 2


def test_a_changed_record_updates_fields_authors_and_adds_tags(tmp_path):
    run(write_jsonl(tmp_path / "full.jsonl", FULL))
    paper = Paper.objects.get()
    changed = {
        **FULL,
        "title": "Renamed",
        "authors": "Bob Two, Cy Three",
        "tags": ["ICLR 2024", "Oral"],
        "abstract": "A different abstract now.",
    }
    output = run(write_jsonl(tmp_path / "v2.jsonl", changed))
    assert "0 created, 1 updated" in output
    paper.refresh_from_db()
    assert paper.title == "Renamed" and paper.abstract == "A different abstract now."
    assert paper.author_names == "Bob Two, Cy Three"
    assert list(paper.authorships.values_list("author__name", "position")) == [
        ("Bob Two", 0),
        ("Cy Three", 1),
    ]
    assert Author.objects.count() == 3  # Ann One stays, unlinked
    # Imported tags are only ever added: a curator removes a wrong one.
    assert sorted(paper.tags.values_list("name", flat=True)) == [
        "ICLR 2024",
        "Oral",
        "Spotlight",
    ]


def test_curator_edited_title_survives_reimports_and_a_new_title_is_reported_once(tmp_path):
    path = write_jsonl(tmp_path / "full.jsonl", FULL)
    run(path)
    Paper.objects.update(title="Curated Title", curator_edited_fields=["title"])

    # The file has nothing new: the curator's title stands and there is nothing to report.
    assert "Total: 0 created, 0 updated, 1 unchanged, 0 conflicts" in run(path)
    assert Paper.objects.get().title == "Curated Title"

    # The source now has a new title: kept out, reported, and listed for the curators.
    write_jsonl(tmp_path / "full.jsonl", {**FULL, "title": "A Fuller Record"})
    output = run(path)
    assert Paper.objects.get().title == "Curated Title"
    assert "Total: 0 created, 0 updated, 1 unchanged, 1 conflicts" in output
    assert (
        f'{path}:1: "Curated Title" (full1): title was edited by a curator; '
        "kept 'Curated Title', file has 'A Fuller Record'" in output
    )
    conflict = ImportConflict.objects.get()
    assert (conflict.kind, conflict.field, conflict.source) == ("curated", "title", "full.jsonl")
    assert (conflict.previous, conflict.incoming) == ("Curated Title", "A Fuller Record")

    # Once: the same file again reports nothing and lists nothing more.
    assert "Total: 0 created, 0 updated, 1 unchanged, 0 conflicts" in run(path)
    assert ImportConflict.objects.count() == 1


def test_curator_edited_authors_and_tags_are_kept_as_conflicts(tmp_path):
    run(write_jsonl(tmp_path / "full.jsonl", FULL))
    Paper.objects.update(curator_edited_fields=["authors", "tags"])
    changed = {**FULL, "authors": ["Zed"], "tags": ["ICLR 2024", "Oral"]}
    report = import_paths([write_jsonl(tmp_path / "v2.jsonl", changed)])
    paper = Paper.objects.get()
    assert paper.author_names == "Ann One, Bob Two"
    assert not paper.tags.filter(name="Oral").exists()
    assert [c.field for c in report.total.conflicts] == ["authors", "tags"]
    assert report.total.updated == 0


def test_lab_tags_are_never_touched(tmp_path):
    run(write_jsonl(tmp_path / "full.jsonl", FULL))
    paper = Paper.objects.get()
    member = make_user()
    lab = make_tag("reading group", TagKind.LAB)
    PaperTag.objects.create(paper=paper, tag=lab, added_by=member)
    run(write_jsonl(tmp_path / "v2.jsonl", {**FULL, "tags": "ICLR 2024,Oral,reading group"}))
    assert PaperTag.objects.get(tag=lab).added_by == member
    assert paper.tags.filter(name__iexact="reading group").count() == 2  # lab + imported track
    assert paper.paper_tags.filter(tag__kind=TagKind.LAB).count() == 1


def test_existing_factory_papers_are_matched_by_forum_id(tmp_path):
    make_paper("Old title", forum_id="full1", abstract="Old abstract.")
    run(write_jsonl(tmp_path / "full.jsonl", FULL))
    assert Paper.objects.get().title == "A Full Record"


def test_unicode_names_and_spellings_share_one_author(tmp_path):
    records = [
        {**FULL, "authors": ["Zoë Ångström", "Christopher D. Manning", "李 伟"]},
        {
            "title": "Second",
            "forum_id": "sec2",
            "abstract": "Another.",
            "authors": "christopher d manning, ＺＯË ÅNGSTRÖM",
        },
    ]
    run(write_jsonl(tmp_path / "u.jsonl", *records))
    assert sorted(Author.objects.values_list("name", flat=True)) == [
        "Christopher D. Manning",
        "Zoë Ångström",
        "李 伟",
    ]
    second = Paper.objects.get(forum_id="sec2")
    assert second.author_names == "Christopher D. Manning, Zoë Ångström"


def test_bom_and_windows_newlines_are_fine(tmp_path):
    path = tmp_path / "win.csv"
    path.write_bytes(
        '\ufefftitle,forum_id,abstract\r\nÉtude,et1,"Ligne un.\r\nLigne deux."\r\n'.encode()
    )
    run(str(path))
    paper = Paper.objects.get()
    assert (paper.title, paper.abstract) == ("Étude", "Ligne un.\nLigne deux.")


def test_html_in_a_title_is_kept_as_plain_text(tmp_path):
    hostile = {**FULL, "title": '<script>alert("x")</script> & <b>bold</b>'}
    run(write_jsonl(tmp_path / "h.jsonl", hostile))
    assert Paper.objects.get().title == '<script>alert("x")</script> & <b>bold</b>'


def catalogue_state() -> dict:
    """What the catalogue holds, without row ids and timestamps (two databases compared)."""
    papers = {
        paper.forum_id or paper.abstract_fingerprint: (
            paper.title,
            paper.abstract,
            paper.pdf_url,
            paper.author_names,
            paper.curator_edited_fields,
            sorted(paper.tags.values_list("kind", "name")),
        )
        for paper in Paper.objects.all()
    }
    return {"papers": papers, "authors": sorted(Author.objects.values_list("name", flat=True))}


def two_sources(tmp_path):
    first = write_jsonl(
        tmp_path / "a.jsonl",
        FULL,
        {"title": "Only here", "url": "https://openreview.net/forum?id=solo1", "abstract": "Solo."},
    )
    changed = FULL | {"title": "A Full Record, Revised", "authors": ["Ann One", "Cy Three"]}
    second = write_jsonl(
        tmp_path / "b.jsonl", {k: v for k, v in changed.items() if k != "pdf"}, {"abstract": "New."}
    )
    return first, second


@pytest.mark.parametrize("batch_size", [1000, 1], ids=["within a batch", "across batches"])
def test_one_import_of_two_files_equals_two_imports_one_after_the_other(tmp_path, batch_size):
    first, second = two_sources(tmp_path)
    report = import_paths([first, second], batch_size=batch_size)
    assert (report.total.created, report.total.updated) == (3, 1)
    together = catalogue_state()
    Paper.objects.all().delete()
    Author.objects.all().delete()
    run(first)
    run(second)
    assert catalogue_state() == together
    assert together["papers"]["full1"][0] == "A Full Record, Revised"
    assert together["papers"]["full1"][2] == "https://openreview.net/pdf?id=full1"  # kept


def test_a_record_repeated_word_for_word_in_one_file_is_imported_once(tmp_path):
    path = write_jsonl(tmp_path / "twice.jsonl", FULL, FULL)
    assert "Total: 1 created, 0 updated" in run(path)
    assert Paper.objects.count() == 1


def test_two_different_records_with_one_forum_id_in_one_file_name_both_lines(tmp_path):
    path = write_jsonl(tmp_path / "clash.jsonl", FULL, FULL | {"title": "Another title"})
    with pytest.raises(CommandError) as failure:
        run(path)
    assert str(failure.value).startswith(
        f"{path}:2: forum id full1 is also at line 1 of this file, with other content"
    )
    assert not Paper.objects.exists()


@pytest.mark.parametrize(
    ("first", "second", "message"),
    [
        (
            {"title": "One", "arxiv_id": "2310.01234", "abstract": "First."},
            {"title": "Two", "arxiv_id": "arXiv:2310.01234v2", "abstract": "Second."},
            "arXiv id 2310.01234 is also at line 1 of this file, with other content",
        ),
        (
            {"title": "One", "doi": "10.1000/ABC", "abstract": "First."},
            {"title": "Two", "doi": "https://doi.org/10.1000/abc", "abstract": "Second."},
            "DOI 10.1000/abc is also at line 1 of this file, with other content",
        ),
    ],
    ids=["arxiv id", "doi"],
)
def test_two_different_records_with_one_arxiv_id_or_doi_in_one_file_name_both_lines(
    tmp_path, first, second, message
):
    # Compared as stored (normalised): the version, the resolver and the case do not matter.
    path = write_jsonl(tmp_path / "clash.jsonl", first, second)
    with pytest.raises(CommandError) as failure:
        run(path)
    assert str(failure.value).startswith(f"{path}:2: {message}")
    assert not Paper.objects.exists()


def test_a_bibtex_file_citing_one_doi_twice_differently_names_both_entries(tmp_path):
    path = tmp_path / "zotero.bib"
    path.write_text(
        "@article{a,\n  title = {Flows},\n  doi = {10.1000/flow}\n}\n\n"
        "@article{b,\n  title = {Flows, Revised},\n  doi = {10.1000/FLOW}\n}\n",
        "utf-8",
    )
    with pytest.raises(CommandError) as failure:
        run(str(path))
    assert str(failure.value).startswith(
        f"{path}:6: DOI 10.1000/flow is also at line 1 of this file, with other content"
    )


def test_a_record_repeated_word_for_word_by_arxiv_id_is_imported_once(tmp_path):
    record = {"title": "One", "arxiv_id": "2310.01234", "abstract": "First."}
    path = write_jsonl(tmp_path / "twice.jsonl", record, record)
    assert "Total: 1 created, 0 updated" in run(path)


def test_records_sharing_an_arxiv_id_across_files_of_one_import_merge(tmp_path):
    first = write_jsonl(
        tmp_path / "a.jsonl", {"title": "One", "arxiv_id": "2310.01234", "abstract": "First."}
    )
    second = write_jsonl(
        tmp_path / "b.jsonl",
        {"title": "One", "arxiv_id": "2310.01234", "doi": "10.1000/one", "abstract": "First."},
    )
    assert "Total: 1 created, 1 updated" in run(first, second)
    assert Paper.objects.get().doi == "10.1000/one"


def test_one_venue_however_reference_managers_spell_it(tmp_path):
    # Zotero's proceedings title, a hand-typed acronym and OpenReview's venue: one venue tag.
    bib = tmp_path / "zotero.bib"
    bib.write_text(
        "@inproceedings{a,\n  title = {A},\n  doi = {10.1000/a},\n"
        "  booktitle = {Advances in Neural Information Processing Systems},\n  year = {2023},\n}\n"
        "@inproceedings{b,\n  title = {B},\n  doi = {10.1000/b},\n"
        "  booktitle = {NeurIPS-2023},\n}\n",
        "utf-8",
    )
    notes = write_jsonl(
        tmp_path / "openreview.jsonl",
        {"forum_id": "c1", "title": "C", "abstract": "C.", "tags": "NeurIPS 2023"},
    )
    run(str(bib), notes)
    venues = PaperTag.objects.filter(tag__kind=TagKind.VENUE)
    assert {link.tag.name for link in venues} == {"NeurIPS 2023"} and venues.count() == 3


STOCK_ABSTRACT_RIS = """TY  - JOUR
TI  - Front Matter
AU  - Editor, An
T2  - IEEE Transactions on Pattern Analysis and Machine Intelligence
PY  - 2023
DO  - 10.1109/TPAMI.2023.0001
AB  - No abstract available.
ER  - 

TY  - CONF
TI  - A Real Paper on Segmentation
AU  - Ke, Lei
T2  - Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)
PY  - 2023
DO  - 10.1109/CVPR52729.2023.00001
AB  - No abstract available.
ER  - 
"""


@pytest.mark.parametrize("batch_size", [1, 1000], ids=["across batches", "within a batch"])
def test_a_stock_abstract_does_not_merge_records_with_different_dois(tmp_path, batch_size):
    path = tmp_path / "export.ris"
    path.write_text(STOCK_ABSTRACT_RIS, "utf-8")
    report = import_paths([str(path)], batch_size=batch_size)
    assert sorted(Paper.objects.values_list("doi", "title")) == [
        ("10.1109/cvpr52729.2023.00001", "A Real Paper on Segmentation"),
        ("10.1109/tpami.2023.0001", "Front Matter"),
    ]
    assert (report.total.created, report.total.updated, report.total.conflicts) == (2, 0, [])
    assert not ImportConflict.objects.exists()


def test_a_published_version_with_its_own_doi_is_a_possible_duplicate_of_the_preprint(tmp_path):
    # Its DOI, which the preprint lacks, keeps it from being taken for the preprint by the
    # abstract alone (issue 43, finding 11: anyone can register a DOI for a copied abstract);
    # a curator merges the two.
    preprint = {**FULL, "url": "", "doi": "10.48550/arXiv.2305.18290", "arxiv_id": "2305.18290"}
    published = {**FULL, "url": "", "doi": "10.5555/3666122.3668460"}
    run(write_jsonl(tmp_path / "arxiv.jsonl", preprint))
    run(write_jsonl(tmp_path / "acm.jsonl", published))
    first, second = Paper.objects.order_by("pk")
    assert (first.doi, second.doi) == ("10.48550/arxiv.2305.18290", "10.5555/3666122.3668460")
    assert second.curation_reason == f"possible duplicate of #{first.pk}"


def test_papers_sharing_a_stock_abstract_are_read_only_when_a_record_could_be_them(tmp_path):
    # Each record with an abstract already imported starts a batch; had every batch read every
    # paper holding "No abstract available.", a file of 1,000 took 3 minutes (quadratic).
    records = [
        {"title": f"Paper {n}", "abstract": "No abstract available.", "doi": f"10.1000/x{n}"}
        for n in range(40)
    ]
    run(write_jsonl(tmp_path / "first.jsonl", *records))
    assert Paper.objects.count() == 40
    fingerprint = Paper.objects.first().abstract_fingerprint

    def could_be(**record) -> set[str]:
        match = matching.match_for(PaperRecord(source="x", line=1, **record), fingerprint, "x")
        return {paper.doi for _, paper in matching.papers_sharing_an_abstract([match])}

    stock = {"title": "T", "abstract": "No abstract available.", "authors": [], "tags": []}
    stock |= {"forum_id": "", "forum_url": "", "pdf_url": ""}
    assert could_be(**stock, doi="10.1000/new") == set()  # 40 papers hold it; none could be
    assert could_be(**stock, doi="10.1000/x7") == {"10.1000/x7"}
    assert len(could_be(**stock)) == 40  # no DOI: any of them
