"""The docs say what the code does today (issue 38, point 9): docs/architecture.md names every
app of INSTALLED_APPS, and how many there are, in its diagram and its table of parts, and
each shared foundation where it lives; docs/performance.md holds current figures, each section
with the command that reproduces it; every `python -m bench.NAME` the documents show exists."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_import_cycles import project_packages

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
PERFORMANCE = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
NUMBERS = dict(enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven",
                          "eight", "nine", "ten", "eleven", "twelve", "thirteen"]))  # fmt: skip
FOUNDATIONS = [
    "operations/claims.py",
    "operations/queues.py",
    "papers/sources/client.py",
    "papers/identity.py",
    "papers/derived_index.py",
    "tests/access_table.py",
]


def apps() -> list[str]:
    return [package for package in project_packages() if package != "config"]


def test_architecture_counts_the_apps_and_the_packages():
    packages, count = NUMBERS[len(apps()) + 1], NUMBERS[len(apps())]
    assert f"in {packages} Python packages: the {count} apps of `INSTALLED_APPS`" in ARCHITECTURE


def test_architecture_draws_and_describes_every_app():
    diagram = ARCHITECTURE.split("```mermaid", 1)[1].split("```", 1)[0]
    for app in apps():
        assert f"{app}/" in diagram, app
        assert re.search(rf"^\| `{app}/", ARCHITECTURE, re.MULTILINE), app


def test_architecture_names_each_shared_foundation_where_it_lives():
    for path in FOUNDATIONS:
        assert (ROOT / path).is_file(), path
        assert f"`{path}`" in ARCHITECTURE, path


def test_performance_holds_sections_of_figures_each_with_its_command():
    sections = re.split(r"^## ", PERFORMANCE, flags=re.MULTILINE)[1:]
    assert len(sections) >= 5
    for section in sections:
        title = section.splitlines()[0]
        if title in {"Queries per page"}:  # asserted by the tests, not a benchmark
            continue
        command = r"(^|`)(make |\.venv/bin/python -m bench\.|bash \.ci/run)"
        assert re.search(command, section, re.MULTILINE), title
    # Current figures, not a diary of every run (the diary is in git).
    assert len(PERFORMANCE.splitlines()) < 300


def test_every_bench_module_the_documents_name_exists():
    documents = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    named = {
        (path.name, module)
        for path in documents
        for module in re.findall(r"python -m bench\.([a-z_]+)", path.read_text(encoding="utf-8"))
    }
    assert named  # a positive control
    missing = [f"{document}: bench.{module}" for document, module in sorted(named)
               if not (ROOT / "bench" / f"{module}.py").is_file()]  # fmt: skip
    assert not missing
