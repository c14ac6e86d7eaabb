"""Our BibTeX export read by pandoc's citeproc, as a member pasting it into a paper would use
it (issue 27, point 4): capitals of proper nouns survive a sentence-case style (APA) and math
becomes the Greek letter. Needs the `pandoc` program (Debian's package; .ci/run installs it)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from annotations.export_data import ExportPaper
from annotations.exports import bibtex_entry

CSL_DIR = Path(__file__).resolve().parent.parent / "annotations" / "csl"

pytestmark = pytest.mark.skipif(shutil.which("pandoc") is None, reason="pandoc is not installed")

TITLES = [
    "Sequential Monte Carlo Samplers for Bayesian Deep Learning",
    "Learning the Schrödinger Bridge with Diffusion Models",
    r"$\alpha$TC-VAE: On the Relationship between Disentanglement and Diversity",
]


def _rendered(tmp_path, style: str) -> str:
    papers = [
        ExportPaper(n, title, year=2024, authors=["Sylvain Le Corff", "Ada Lovelace"])
        for n, title in enumerate(TITLES, start=1)
    ]
    entries = [bibtex_entry(paper) for paper in papers]
    (tmp_path / "refs.bib").write_text("\n".join(entries), encoding="utf-8")
    keys = [entry.split("{", 1)[1].split(",", 1)[0] for entry in entries]
    (tmp_path / "doc.md").write_text(
        "---\nnocite: |\n  " + ", ".join(f"@{key}" for key in keys) + "\n---\n", encoding="utf-8"
    )
    result = subprocess.run(
        [
            "pandoc",
            "doc.md",
            "--citeproc",
            "--bibliography=refs.bib",
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


@pytest.mark.parametrize("style", ["apa.csl", "ieee.csl"])
def test_pandoc_keeps_proper_nouns_capitalised_and_prints_the_greek_letter(tmp_path, style):
    text = _rendered(tmp_path, style)
    for words in ("Monte Carlo", "Bayesian", "Schrödinger", "αTC-VAE"):
        assert words in text, (words, text)
    assert "$" not in text
    assert "monte carlo" not in text and "bayesian" not in text
    assert "Le Corff" in text
