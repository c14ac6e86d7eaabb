"""Issue 27, point 2: duplicates found where they arise. Every import and fetch puts the likely
duplicates of what it added or changed in the curation queue, with no command to remember; the
rules catch an abstract-only record against its titled twin (the seed "BatchPrompt")."""

from __future__ import annotations

import io
import json
from pathlib import Path

import httpx
import pytest
import respx
from django.core.management import call_command

from bench.standins import VENUE, page, v2_note
from papers.duplicate_keys import DUPLICATE_ABSTRACT_WORDS, _end_words
from papers.duplicates import flag_duplicate_papers, likely_duplicates
from papers.models import Paper
from papers.sources.runs import fetch_venue_into_catalogue

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[1]
ABSTRACT_LIST = ROOT / "fixtures" / "001_7301047adc398f0c.txt"
BATCHPROMPT = Path(__file__).parent / "data" / "curation" / "batchprompt.jsonl"
OPENREVIEW = "https://openreview.test"


def run(*args) -> str:
    out = io.StringIO()
    call_command("import_papers", *map(str, args), stdout=out, stderr=io.StringIO())
    return out.getvalue()


def untitled_batchprompt() -> Paper:
    return Paper.objects.get(title="", abstract__startswith="The ever-increasing token limits")


def test_the_import_of_a_titled_twin_flags_it_against_the_abstract_only_seed():
    run(ABSTRACT_LIST)
    untitled = untitled_batchprompt()
    output = run(BATCHPROMPT)
    # The abstracts differ at both ends: the abstract fingerprint does not join them.
    assert "1 created" in output
    assert "1 paper put in the curation queue as possible duplicates" in output
    titled = Paper.objects.get(title="BatchPrompt: Accomplish more with less")
    assert titled.needs_curation
    assert titled.curation_reason == f"possible duplicate of #{untitled.pk}"
    # The untitled record keeps its own reason in the queue.
    assert untitled_batchprompt().curation_reason == "Imported without a title"


def test_the_seed_import_after_the_full_record_flags_the_full_record_too():
    run(BATCHPROMPT)
    run(ABSTRACT_LIST)
    titled = Paper.objects.get(title="BatchPrompt: Accomplish more with less")
    assert titled.curation_reason == f"possible duplicate of #{untitled_batchprompt().pk}"


def test_the_twins_are_the_only_duplicates_among_the_seeds():
    run(ABSTRACT_LIST, BATCHPROMPT)
    found = likely_duplicates()
    titled = Paper.objects.get(title="BatchPrompt: Accomplish more with less")
    assert found == {titled.pk: untitled_batchprompt().pk, untitled_batchprompt().pk: titled.pk}


def test_an_unchanged_re_import_looks_for_nothing(django_assert_max_num_queries, tmp_path):
    run(ABSTRACT_LIST, BATCHPROMPT)
    Paper.objects.update(needs_curation=False, curation_reason="")
    with django_assert_max_num_queries(30):
        output = run(ABSTRACT_LIST, BATCHPROMPT)
    assert "curation queue" not in output
    assert not Paper.objects.filter(needs_curation=True).exists()


def test_a_dry_run_says_what_it_would_flag_and_flags_nothing():
    run(ABSTRACT_LIST)
    output = run(BATCHPROMPT, "--dry-run")
    assert "1 paper would be in the curation queue as possible duplicates" in output
    assert not Paper.objects.filter(curation_reason__startswith="possible duplicate").exists()


def test_unrelated_papers_of_one_import_are_not_flagged(tmp_path):
    records = [
        {"title": f"Paper {n}", "forum_id": f"p{n}", "abstract": f"Abstract number {n}."}
        for n in range(3)
    ]
    path = tmp_path / "x.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert "curation queue" not in run(path)
    assert flag_duplicate_papers() == 0


@respx.mock
def test_a_fetch_flags_the_duplicates_of_what_it_fetched(settings):
    settings.OPENREVIEW_API_URL = OPENREVIEW
    run(ABSTRACT_LIST)
    record = json.loads(BATCHPROMPT.read_text(encoding="utf-8"))
    note = v2_note("Agyicd577r", record["title"], abstract=record["abstract"])
    respx.get(f"{OPENREVIEW}/notes").mock(
        side_effect=lambda request: httpx.Response(
            200, json=page({("content.venueid", VENUE): [note]}, request.url.params)
        )
    )
    result = fetch_venue_into_catalogue(VENUE)
    assert result.report.duplicates_flagged == 1
    fetched = Paper.objects.get(forum_id="Agyicd577r")
    assert fetched.curation_reason == f"possible duplicate of #{untitled_batchprompt().pk}"


@pytest.mark.parametrize("accent", ["", "é"])
def test_an_abstracts_ends_read_from_its_edges_are_its_first_and_last_words(accent):
    # The sweep reads only each end of a long abstract; the keys must be the whole text's.
    words = [f"w{n}{accent}" for n in range(400)]
    abstract = "  ".join(words).upper()
    opening, ending = _end_words(abstract)
    folded = [word.casefold() for word in words]
    assert opening == folded[:DUPLICATE_ABSTRACT_WORDS]
    assert ending == folded[-DUPLICATE_ABSTRACT_WORDS:]
    assert _end_words("few words only") == ([], [])
