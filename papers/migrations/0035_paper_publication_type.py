import importlib
import re

from django.db import migrations, models

# The rules of papers.importing.publication_types as they were when this migration was
# written (a migration must not change with the code): a paper's tags say what it is.
NOT_ACCEPTED = {"submitted", "withdrawn", "desk rejected", "rejected"}
JOURNAL_ACRONYMS = {"tmlr", "tacl", "jmlr", "dmlr", "tpami"}
JOURNAL_WORDS = re.compile(r"\b(?:journal|transactions)\b", re.IGNORECASE)
CHUNK = 500


def derived_type(paper, venues, tracks):
    """What the paper's identifiers and tags say it is; "" when they do not say (a paper
    known only by its DOI came from Crossref or a reference manager, whose type they
    named: a BibTeX or RIS file is read again at its next import, see below)."""
    if any(track in NOT_ACCEPTED for track in tracks):
        return "preprint"
    if venues:
        journal = any(v in JOURNAL_ACRONYMS or JOURNAL_WORDS.search(v) for v in venues)
        return "journal-article" if journal else "conference-paper"
    if paper["arxiv_id"]:
        return "preprint"  # an arXiv paper with no venue
    return ""


def fill_publication_types(apps, schema_editor):
    Paper = apps.get_model("papers", "Paper")
    PaperTag = apps.get_model("papers", "PaperTag")
    ids = list(
        Paper.objects.filter(publication_type="")
        .exclude(forum_id="", arxiv_id="", doi__gt="")  # known only by a DOI: not derivable
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        venues = {pk: [] for pk in chunk}
        tracks = {pk: [] for pk in chunk}
        rows = PaperTag.objects.filter(paper_id__in=chunk, tag__kind__in=("venue", "track"))
        for paper_id, kind, key in rows.values_list("paper_id", "tag__kind", "tag__key"):
            (venues if kind == "venue" else tracks)[paper_id].append(key)
        papers = Paper.objects.filter(pk__in=chunk).values("pk", "arxiv_id")
        by_type = {}
        for paper in papers:
            kind = derived_type(paper, venues[paper["pk"]], tracks[paper["pk"]])
            if kind:
                by_type.setdefault(kind, []).append(paper["pk"])
        for kind, pks in by_type.items():
            Paper.objects.filter(pk__in=pks).update(publication_type=kind)


# A file imported before types were kept would be skipped as unchanged at its next import
# (papers.importing.unchanged_files), and its papers (a BibTeX @article, a RIS JOUR) would never
# get their type: forget the files' hashes, as 0020 did for years, so each is read once more.
forget_imported_files = importlib.import_module(
    "papers.migrations.0020_paper_year"
).forget_imported_files


class Migration(migrations.Migration):
    dependencies = [
        ("papers", "0034_link_fetch"),
    ]

    operations = [
        migrations.AddField(
            model_name="paper",
            name="publication_type",
            field=models.CharField(
                blank=True,
                choices=[
                    ("journal-article", "Journal article"),
                    ("conference-paper", "Conference or workshop paper"),
                    ("preprint", "Preprint"),
                    ("book-chapter", "Book chapter"),
                    ("book", "Book"),
                    ("thesis", "Thesis"),
                    ("report", "Report"),
                    ("other", "Other"),
                ],
                help_text="What the sources say it is; citations follow it.",
                max_length=20,
            ),
        ),
        migrations.RunPython(fill_publication_types, migrations.RunPython.noop),
        migrations.RunPython(forget_imported_files, migrations.RunPython.noop),
    ]
