"""Quotes show as a reader reads them: the PDF's line breaks joined, a typesetter's line-end
hyphen dropped and a real one kept (highlights.quotes, docs/highlights.md "Quotes"). Shown
joined: the discussion's comment, the panel, the reader's list (`quote`), the Markdown and
BibTeX exports. Kept raw: `exact` in the reader's JSON and the JSON-LD's TextQuoteSelector,
which must match the PDF's text to anchor."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from django.urls import reverse

from annotations.models import Comment
from highlights.markdown_export import highlight_line
from highlights.quotes import joined_quote
from tests.factories import make_paper
from tests.highlight_helpers import make_highlight

READER_JS = Path(__file__).resolve().parents[1] / "static/js/reader/highlights.js"

CASES = [
    ("a trans-\nformer model", "a transformer model"),  # the typesetter's hyphen
    ("state-of-\nthe-art results", "state-of-the-art results"),  # a compound keeps it
    ("the Kullback-\nLeibler divergence", "the Kullback-Leibler divergence"),  # capital next
    ("GPT-\n4 and", "GPT-4 and"),  # a digit next
    ("uses self-\nattention", "uses self-attention"),  # a prefix English always hyphenates
    ("pre-\ntrained", "pretrained"),  # the rule's known cost: a real hyphen lost
    ("the end.\nNext line", "the end. Next line"),  # a line break is a space
    ("word \n  next", "word next"),
    ("x -\nfoo", "x - foo"),  # a dash between words is no hyphen
    ("co\u00ad\noperate", "cooperate"),  # a soft hyphen is always the typesetter's
    ("one line", "one line"),
]


@pytest.mark.parametrize(("raw", "shown"), CASES)
def test_joined_quote(raw, shown):
    assert joined_quote(raw) == shown


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed")
def test_the_readers_script_joins_as_the_server_does(tmp_path):
    """static/js/reader/highlights.js shows the quote before it is saved: same rule."""
    source = READER_JS.read_text()
    code = source[source.index("const BROKEN_WORD") : source.index("function startElement")]
    script = tmp_path / "join.mjs"
    raws = [raw for raw, _ in CASES]
    script.write_text(code + f"\nconsole.log(JSON.stringify({json.dumps(raws)}.map(joinLines)));\n")
    result = subprocess.run(  # noqa: S603
        [shutil.which("node") or "node", str(script)],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    assert json.loads(result.stdout) == [shown for _, shown in CASES]


@pytest.fixture
def lab_highlight(client, user):
    client.force_login(user)
    paper = make_paper("Joined quotes")
    raw = "we use a trans-\nformer\nthat is state-of-\nthe-art"
    data = {"page": "2", "exact": raw, "start": "0", "end": str(len(raw))}
    response = client.post(
        reverse("highlights:list", args=[paper.pk]),
        {**data, "note": "**Key** claim", "visibility": "lab"},
    )
    assert response.status_code == 201
    return response.json()


JOINED = "we use a transformer that is state-of-the-art"


def test_the_discussion_shows_the_joined_quote(lab_highlight, client):
    comment = Comment.objects.get()
    assert f"> {JOINED}" in comment.body and "trans-" not in comment.body


def test_the_readers_json_keeps_the_raw_quote_for_anchoring_and_gives_the_joined_one(
    lab_highlight,
):
    assert lab_highlight["exact"] == "we use a trans-\nformer\nthat is state-of-\nthe-art"
    assert lab_highlight["quote"] == JOINED


def test_the_json_ld_selector_keeps_the_raw_quote(lab_highlight, client):
    document = client.get(reverse("highlights:jsonld", args=[lab_highlight["id"]])).json()
    selectors = document["target"]["selector"]["refinedBy"]
    assert selectors[0]["exact"] == lab_highlight["exact"]


def test_the_panel_and_the_exports_show_the_joined_quote(lab_highlight, client):
    paper_pk = lab_highlight["thread_url"].split("/")[2]
    page = client.get(f"/papers/{paper_pk}/").content.decode()
    assert f"“{JOINED}”" in page
    markdown = client.get(reverse("highlights:paper-export", args=[paper_pk])).content.decode()
    assert f"> {JOINED}" in markdown


def test_the_bibtex_note_line_shows_the_joined_quote(user):
    highlight = make_highlight(user, make_paper(), exact="trans-\nformer")
    assert highlight_line(highlight) == "p. 1: “transformer”"
