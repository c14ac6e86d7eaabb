"""Search by meaning: embeddings stored as derived data, a vector index per app server caught
up from the change log, and a site that works without the extra. Most tests use the tiny
word-hash embedder of tests/semantic_helpers.py; one uses the real model when installed."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from django.conf import settings as django_settings
from django.core.management import CommandError, call_command
from django.urls import reverse

import semantic
from papers.models import TagKind
from semantic import calibration, providers, search
from semantic import embedder as embedder_module
from semantic.index import VectorIndex
from semantic.models import PaperEmbedding
from semantic.services import embed_papers
from tests.factories import make_paper, make_tag
from tests.semantic_helpers import DIMENSIONS, WordHashEmbedder

pytestmark = pytest.mark.django_db

FAKE = "tests.semantic_helpers.word_hash_embedder"


@pytest.fixture
def fake_embedder(settings) -> WordHashEmbedder:
    settings.SEMANTIC_SEARCH = "auto"
    settings.SEMANTIC_EMBEDDER = FAKE
    embedder_module.reset()
    loaded = embedder_module.get_embedder()
    assert isinstance(loaded, WordHashEmbedder)
    return loaded


def _server(name: str) -> VectorIndex:
    directory = Path(django_settings.SEARCH_INDEX_DIR) / name
    return VectorIndex(directory, WordHashEmbedder.name, DIMENSIONS)


def test_a_changed_abstract_is_re_embedded_and_reaches_every_server(fake_embedder):
    glaciers = make_paper("Glaciers", abstract="Ice sheets melt under warming oceans.")
    make_paper("Proteins", abstract="Folding chains of amino acids into shapes.")
    embed_papers(fake_embedder)
    first, second = _server("first"), _server("second")
    first.current()
    second.current()
    built = second.vectors_applied

    glaciers.abstract = "Tulips, windmills and canals of the lowlands."
    glaciers.save()
    report = embed_papers(fake_embedder)

    assert report.embedded == 1
    stored = PaperEmbedding.objects.get(paper=glaciers).as_array()
    for server in (first, second):
        found = server.current().search(stored, 1)
        assert int(found.keys[0]) == glaciers.pk
        assert float(found.distances[0]) < 0.01
    # Caught up with the one changed vector, not rebuilt.
    assert second.vectors_applied == built + 1
    assert second.builds == 1


def test_a_change_to_no_vector_moves_the_index_on_without_rewriting_it(fake_embedder):
    """A lab tag or a venue changes a paper's search document, not its vector: the vector
    file stays as it is; a deleted paper's vector leaves it."""
    glaciers = make_paper("Glaciers", abstract="Ice sheets melt under warming oceans.")
    proteins = make_paper("Proteins", abstract="Folding chains of amino acids into shapes.")
    embed_papers(fake_embedder)
    server = _server("server")
    server.current()
    file_before = server.read_state().file

    glaciers.tags.add(make_tag("ICLR 2024", TagKind.VENUE))  # a search change, same vector
    assert (
        int(
            server.current()
            .search(PaperEmbedding.objects.get(paper=glaciers).as_array(), 1)
            .keys[0]
        )
        == glaciers.pk
    )
    assert server.read_state().file == file_before
    assert server.vectors_applied == 2  # nothing re-added

    deleted = proteins.pk
    proteins.delete()
    assert not server.current().contains(deleted)
    assert server.read_state().file != file_before


def test_an_unchanged_title_and_abstract_is_not_embedded_again(fake_embedder):
    paper = make_paper("Glaciers", abstract="Ice sheets melt.")
    embed_papers(fake_embedder)
    embedded_before = list(fake_embedder.texts_embedded)

    paper.year = 2020
    paper.save()
    report = embed_papers(fake_embedder, [paper.pk])

    assert report.embedded == 0 and report.unchanged == 1
    assert fake_embedder.texts_embedded == embedded_before
    assert embed_papers(fake_embedder, force=True).embedded == 1


def test_saving_a_changed_abstract_embeds_it_once_committed(
    fake_embedder, settings, django_capture_on_commit_callbacks
):
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    with django_capture_on_commit_callbacks(execute=True):
        paper = make_paper("Glaciers", abstract="Ice sheets melt.")
    first = PaperEmbedding.objects.get(paper=paper)

    paper.abstract = "Sea levels rise."
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        paper.save()

    assert len(callbacks) == 1
    changed = PaperEmbedding.objects.get(paper=paper)
    assert changed.text_hash != first.text_hash
    assert not np.allclose(changed.as_array(), first.as_array())


def test_a_save_that_changes_neither_title_nor_abstract_queues_nothing(
    fake_embedder, django_capture_on_commit_callbacks
):
    paper = make_paper("Glaciers", abstract="Ice sheets melt.")
    with django_capture_on_commit_callbacks() as callbacks:
        paper.save(update_fields=["year"])
    assert callbacks == []


def test_nearest_ids_and_neighbours_rank_by_vector(fake_embedder):
    glaciers = make_paper("Glaciers melting", abstract="Ice sheets melt under warm oceans.")
    ice = make_paper("Ice sheet dynamics", abstract="How ice sheets melt and flow.")
    make_paper("Protein folding", abstract="Chains of amino acids fold into shapes.")
    embed_papers(fake_embedder)

    assert search.nearest_ids("ice sheets melt", 1)[0][0] in {glaciers.pk, ice.pk}
    ranked = search.neighbours(glaciers.pk, 2)
    assert [pk for pk, _score in ranked][0] == ice.pk
    assert glaciers.pk not in [pk for pk, _score in ranked]
    assert ranked[0][1] > ranked[1][1]


def test_the_query_vector_is_cached(fake_embedder):
    make_paper("Glaciers", abstract="Ice sheets melt.")
    embed_papers(fake_embedder)
    before = len(fake_embedder.texts_embedded)
    search.nearest_ids("melting ice", 5)
    search.nearest_ids("melting ice", 5)
    assert len(fake_embedder.texts_embedded) == before + 1


def test_without_the_extra_semantic_search_is_off_and_nothing_raises(settings):
    settings.SEMANTIC_SEARCH = "auto"
    settings.SEMANTIC_EMBEDDER = "tests.semantic_helpers.missing_extra"
    embedder_module.reset()
    paper = make_paper("Glaciers", abstract="Ice sheets melt.")
    paper.abstract = "Sea levels rise."
    paper.save()

    assert semantic.available() is False
    assert search.nearest_ids("ice", 5) == []
    assert search.neighbours(paper.pk, 5) == []
    with pytest.raises(CommandError, match="Semantic search is off"):
        call_command("embed_papers")


def test_the_setting_off_never_loads_the_model(settings, fake_embedder):
    settings.SEMANTIC_SEARCH = "off"
    assert semantic.available() is False


def test_the_command_embeds_and_reports_its_rate(fake_embedder, capsys):
    make_paper("Glaciers", abstract="Ice sheets melt.")
    make_paper("Proteins", abstract="Amino acids fold.")
    call_command("embed_papers", "--batch", "1")
    out = capsys.readouterr().out
    assert "Embedded 2 papers (0 unchanged)" in out and "papers/s" in out
    call_command("embed_papers")
    assert "Embedded 0 papers (2 unchanged)" in capsys.readouterr().out


REAL_MODEL = all(
    importlib.util.find_spec(name) is not None for name in ("onnxruntime", "tokenizers", "usearch")
)


@pytest.mark.skipif(not REAL_MODEL, reason="the `semantic` extra is not installed")
def test_a_paraphrased_question_finds_its_paper_by_meaning(settings, client):
    settings.SEMANTIC_SEARCH = "auto"
    embedder_module.reset()
    if not Path(settings.SEMANTIC_ONNX_PATH).exists():
        pytest.skip("the model file is not built (make semantic)")
    distillation = make_paper(
        "Knowledge Distillation for Compact Models",
        abstract="We train a compact student model to match the softened output "
        "distribution of a large pretrained teacher, transferring its knowledge.",
    )
    for title, abstract in [
        ("Graph Neural Networks for Molecules", "Message passing over atoms predicts bonds."),
        ("Diffusion Models for Audio", "A denoising score model generates speech waveforms."),
        ("Offline Reinforcement Learning", "Policies learned from logged trajectories."),
        ("Semantic Segmentation Benchmarks", "Dense labelling of urban street scenes."),
    ]:
        make_paper(title, abstract=abstract)
    model = embedder_module.get_embedder()
    assert model is not None
    embed_papers(model)

    question = "making a small network learn from a bigger one it imitates"
    found = search.nearest_ids(question, 3)

    assert found[0][0] == distillation.pk
    assert np.isclose(np.linalg.norm(model.embed(["x"])[0]), 1.0, atol=1e-5)
    # The list page: the paper shares none of the question's words, and is listed first,
    # marked as found by meaning.
    html = client.get(reverse("papers:list"), {"q": question}).content.decode()
    assert html.index("Knowledge Distillation for Compact Models") < html.index("</ol>")
    assert "Close in meaning only" in html
    assert "search by meaning is off" not in html


def test_an_unexported_model_file_leaves_semantic_search_off(settings, tmp_path):
    settings.SEMANTIC_SEARCH = "auto"
    settings.SEMANTIC_ONNX_PATH = tmp_path / "missing.onnx"
    embedder_module.reset()
    if importlib.util.find_spec("onnxruntime") is None:
        pytest.skip("the `semantic` extra is not installed")
    assert semantic.available() is False
    assert search.nearest_ids("ice", 5) == []


def test_a_search_with_nothing_changed_costs_one_query(fake_embedder, django_assert_num_queries):
    glaciers = make_paper("Glaciers", abstract="Ice sheets melt.")
    make_paper("Proteins", abstract="Amino acids fold.")
    embed_papers(fake_embedder)
    search.nearest_ids("ice", 5)  # builds the index

    with django_assert_num_queries(1):  # the change log's position
        search.nearest_ids("amino acids", 5)
    with django_assert_num_queries(2):  # and the paper's own vector
        search.neighbours(glaciers.pk, 5)


def test_embedding_costs_the_same_queries_per_batch(fake_embedder, django_assert_num_queries):
    for n in range(4):
        make_paper(f"Paper {n}", abstract=f"Abstract {n}.")
    embed_papers(fake_embedder, batch=2)
    # Per batch: the papers, their stored hashes; the ids first: 1 + 2 per batch when unchanged.
    with django_assert_num_queries(1 + 2 * 2):
        embed_papers(fake_embedder, batch=2)


def test_update_vector_index_builds_it_before_serving(fake_embedder, capsys):
    make_paper("Glaciers", abstract="Ice sheets melt.")
    embed_papers(fake_embedder)
    call_command("update_vector_index")
    assert "vector index up to date, 1 papers" in capsys.readouterr().out


def test_make_runs_update_embeds_new_papers_and_says_meaning_is_on(fake_embedder, capsys):
    make_paper("Glaciers", abstract="Ice sheets melt.")
    make_paper("Proteins", abstract="Amino acids fold.")
    call_command("update_vector_index", "--embed")
    out = capsys.readouterr().out
    assert "Search by meaning is on (" in out
    assert "2 papers embedded, vector index up to date, 2 papers" in out


def test_without_the_model_the_line_says_how_to_turn_meaning_on(settings, capsys):
    settings.SEMANTIC_SEARCH = "auto"
    settings.SEMANTIC_EMBEDDER = "tests.semantic_helpers.missing_extra"
    embedder_module.reset()
    call_command("update_vector_index", "--embed")
    assert "Search by meaning is off: `make semantic` turns it on" in capsys.readouterr().out


def test_the_timer_run_succeeds_quietly_when_semantic_search_is_off(capsys):
    call_command("embed_papers", "--skip-if-off")
    assert "Semantic search is off: nothing embedded." in capsys.readouterr().out
    with pytest.raises(CommandError, match="Semantic search is off"):
        call_command("embed_papers")


def test_each_model_has_its_own_bar_and_the_setting_replaces_the_searchs(settings):
    settings.SEMANTIC_MIN_COSINE = None
    mpnet = calibration.MIN_COSINE["all-mpnet-base-v2"]
    assert mpnet != calibration.MIN_COSINE["all-MiniLM-L6-v2"]
    # int8 weights share their model's bar; a model no one measured gets the default.
    assert calibration.min_cosine("all-mpnet-base-v2-int8") == mpnet
    assert calibration.min_cosine("some-other-model") == calibration.DEFAULT
    assert (
        calibration.min_neighbour_cosine("all-mpnet-base-v2-int8")
        == (calibration.MIN_NEIGHBOUR_COSINE["all-mpnet-base-v2"])
    )

    settings.SEMANTIC_MIN_COSINE = -1.0
    assert calibration.min_cosine("all-mpnet-base-v2-int8") == -1.0
    # Similar papers keep the model's bar.
    assert (
        calibration.min_neighbour_cosine("all-mpnet-base-v2")
        == (calibration.MIN_NEIGHBOUR_COSINE["all-mpnet-base-v2"])
    )


def test_the_site_lists_the_neighbours_the_models_bar_lets_through(
    fake_embedder, settings, monkeypatch
):
    settings.SEMANTIC_MIN_COSINE = None
    melting = make_paper("Glaciers", abstract="Ice sheets melt.")
    make_paper("Proteins", abstract="Amino acids fold.")
    embed_papers(fake_embedder)
    cosines = dict(search.nearest_ids("melting ice sheets", 5))
    assert cosines[melting.pk] > 0

    monkeypatch.setitem(calibration.MIN_COSINE, fake_embedder.name, cosines[melting.pk] - 0.01)
    assert providers.nearest("melting ice sheets", 5) == [melting.pk]
    monkeypatch.setitem(calibration.MIN_COSINE, fake_embedder.name, cosines[melting.pk] + 0.01)
    assert providers.nearest("melting ice sheets", 5) == []
