"""Setup that works as written (issue 38, point 8): every command the README and docs/ show
works in a fresh shell after `make run`, and `manage.py migrate` alone leaves a working site.

- `make run` writes a git-ignored `.env` once (config/dotenv.py) and settings read it, the
  environment winning; the test suite never reads a developer's `.env`.
- Each documented `.venv/bin/python manage.py ...` line names a command and options it has;
  each documented `make ...` line a target the Makefile has.
- The README's fetch commands and docs/pdfs.md's `fetch_pdfs` and `extract_pdf_text` lines run
  as written, in a shell with nothing but PATH, HOME and the stand-ins' addresses, in a copy of
  the project where `make .env` (what `make run` calls) wrote the `.env`.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sqlite3
import stat
import subprocess
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command, get_commands, load_command_class
from django.db import connection
from django.test import Client

from bench.standins import VENUE, StandIn, arxiv_entries
from config import dotenv
from tests.factories import make_paper
from tests.pdf_server import GOOD_TEXT, PdfServer
from tests.test_import_cycles import project_packages
from tests.test_makefile import make

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


# --- The .env file --------------------------------------------------------------------------


def test_a_file_of_name_value_lines_is_read_as_systemd_and_a_shell_read_it():
    text = (
        "# a comment\n"
        "\n"
        "DJANGO_DEBUG=1\n"
        "export SITE_NAME='Lab papers'\n"
        'SITE_URL = "http://devbox.lan:8000"\n'
        "EMPTY=\n"
        "DJANGO_SECRET_KEY=a=b=c\n"
    )
    assert dotenv.parse(text) == {
        "DJANGO_DEBUG": "1",
        "SITE_NAME": "Lab papers",
        "SITE_URL": "http://devbox.lan:8000",
        "EMPTY": "",
        "DJANGO_SECRET_KEY": "a=b=c",
    }


@pytest.mark.parametrize("line", ["DJANGO_DEBUG", "2FA=1", "SITE NAME=x", "=1"])
def test_a_line_that_is_not_name_equals_value_is_refused_with_its_place(line):
    with pytest.raises(ImproperlyConfigured, match=r"^/srv/papers/\.env:2: expected NAME=value"):
        dotenv.parse(f"A=1\n{line}\n", "/srv/papers/.env")


def test_the_environment_wins_over_the_file_and_no_file_is_nothing(tmp_path, monkeypatch):
    env_file = tmp_path / ".env"
    env_file.write_text("SETUP_TEST_ONE=from the file\nSETUP_TEST_TWO=from the file\n")
    monkeypatch.setenv("SETUP_TEST_ONE", "from the environment")
    monkeypatch.delenv("SETUP_TEST_TWO", raising=False)
    dotenv.load(env_file)
    assert os.environ["SETUP_TEST_ONE"] == "from the environment"
    assert os.environ.pop("SETUP_TEST_TWO") == "from the file"
    dotenv.load(tmp_path / "missing.env")  # nothing to read, nothing raised


def test_the_development_file_is_written_once_for_its_owner_only(tmp_path):
    env_file = tmp_path / ".env"
    assert dotenv.write_development_file(env_file, "http://127.0.0.1:8001")
    written = env_file.read_text()
    variables = dotenv.parse(written)
    assert variables["DJANGO_DEBUG"] == "1"
    assert variables["SITE_URL"] == "http://127.0.0.1:8001"
    assert len(variables["DJANGO_SECRET_KEY"]) >= 50
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    # Never over a file that exists: a developer's edits and key stay.
    assert not dotenv.write_development_file(env_file, "http://127.0.0.1:9999")
    assert env_file.read_text() == written
    other = tmp_path / "other.env"
    dotenv.write_development_file(other, "http://127.0.0.1:8001")
    assert dotenv.parse(other.read_text())["DJANGO_SECRET_KEY"] != variables["DJANGO_SECRET_KEY"]


# --- A copy of the project, as a fresh clone sees it ---------------------------------------------


def clean_env(**extra: str) -> dict[str, str]:
    """A fresh shell: PATH and HOME, and what a command line sets itself."""
    return {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp"), **extra}


@pytest.fixture
def project(tmp_path) -> Path:
    """The project without its .env, database, media and search index. `config/` and
    `manage.py` are copied (settings find the project directory, and so `.env` and the SQLite
    file, from their own resolved path); everything else is linked."""
    copy = tmp_path / "project"
    copy.mkdir()
    for name in ("config", "manage.py", "Makefile"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, copy / name)
    linked = [*project_packages(), "templates", "static", "fixtures", "requirements"]
    for name in [*linked, ".venv", "pyproject.toml"]:
        if name != "config":
            (copy / name).symlink_to(ROOT / name)
    return copy


def python(project: Path, code: str, **env: str) -> str:
    result = subprocess.run(
        [".venv/bin/python", "-c", code],
        cwd=project,
        env=clean_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.slow
def test_settings_read_the_project_env_file_but_never_under_tests(project):
    (project / ".env").write_text("DJANGO_DEBUG=1\nSITE_NAME=Read from .env\n")
    show = "from config import settings; print(settings.SITE_NAME, settings.DEBUG)"
    assert python(project, show) == "Read from .env True"
    # The environment wins over the file.
    assert python(project, show, SITE_NAME="Lab") == "Lab True"
    # pytest sets PYTEST_VERSION before settings load (and the processes a test starts inherit
    # it); `make test`'s other steps set DJANGO_DOTENV=0: the developer's file is not read.
    assert python(project, show, PYTEST_VERSION="9", DJANGO_SECRET_KEY="x") == "Paper browser False"
    assert python(project, show, DJANGO_DOTENV="0", DJANGO_SECRET_KEY="x") == "Paper browser False"


@needs_make
def test_every_step_of_make_test_skips_the_env_file():
    lines = make("-n", "-B", "test").splitlines()
    steps = [line for line in lines if "mypy " in line or "manage.py" in line]
    steps += [line for line in lines if "-m pytest" in line]
    assert len(steps) == 3, lines
    assert all("DJANGO_DOTENV=0" in line for line in steps), steps


@needs_make
def test_make_run_writes_the_env_file_once_and_no_longer_needs_createcachetable(project):
    steps = make("-n", "run", cwd=project)
    assert "-m config.dotenv write .env SITE_URL=http://127.0.0.1:8000" in steps
    assert "createcachetable" not in steps
    make(".env", cwd=project)
    assert dotenv.parse((project / ".env").read_text())["SITE_URL"] == "http://127.0.0.1:8000"
    assert "config.dotenv" not in make("-n", "run", cwd=project)  # written once


# --- What the documents show ---------------------------------------------------------------------


@dataclass(frozen=True)
class Shown:
    """A command as a document shows it: where, and the shell text of it."""

    document: str
    line: int
    text: str

    @property
    def words(self) -> list[str]:
        words = shlex.split(self.text, comments=True)
        # NAME=value in front sets the command's environment.
        while words and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]):
            words.pop(0)
        return words

    def __str__(self) -> str:
        return f"{self.document}:{self.line}: {self.text}"


def shown_commands() -> list[Shown]:
    """Every simple command in the documents' code blocks and code spans, split at `&&`, `;`,
    pipes and redirections."""
    found = []
    for path in DOCUMENTS:
        in_block = False
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.lstrip().startswith("```"):
                in_block = not in_block
                continue
            for code in [line] if in_block else re.findall(r"`([^`]+)`", line):
                for part in re.split(r"&&|;|\|\||>>|\||>|2>&1", code):
                    shown = Shown(str(path.relative_to(ROOT)), number, part.strip())
                    try:
                        if shown.words:
                            found.append(shown)
                    except ValueError:  # an unbalanced quote: prose in a code span
                        continue
    return found


# `python manage.py ...`: a command; `manage.py fetch_pdfs` alone is its name in a sentence,
# `.venv/bin/python manage.py …` any command.
MANAGE_PY = [
    shown
    for shown in shown_commands()
    if shown.words[1:2] == ["manage.py"] and shown.words[2:3] != ["…"]
]
MAKE_LINES = [shown for shown in shown_commands() if shown.words[0] == "make"]


def test_the_documents_show_commands():
    # The extraction finds what it looks for (a positive control for the tests below).
    assert any(shown.words[2] == "fetch_openreview" for shown in MANAGE_PY)
    assert any(shown.words[:2] == ["make", "run"] for shown in MAKE_LINES)


@pytest.mark.parametrize("shown", MANAGE_PY, ids=str)
def test_each_manage_py_line_runs_the_projects_python_and_a_command_it_has(shown):
    interpreter, _, name, *arguments = shown.words
    # A fresh shell's `python` is not the one with the project's packages.
    assert interpreter == ".venv/bin/python", shown
    commands = get_commands()
    assert name in commands, f"{shown}: no command {name!r}"
    parser = load_command_class(commands[name], name).create_parser("manage.py", name)
    parser.parse_args(arguments)  # a CommandError names an option the command does not have


def make_targets() -> set[str]:
    database = make("-q", "-p", check=False)  # the rule database, nothing built
    return set(re.findall(r"^([A-Za-z0-9_./-]+):", database, re.MULTILINE))


@needs_make
def test_each_make_line_names_a_target_of_the_makefile():
    targets = make_targets()
    assert {"run", "test", "migrate", "serve", ".env"} <= targets  # a positive control
    unknown = [
        str(shown)
        for shown in MAKE_LINES
        if not {word for word in shown.words[1:] if "=" not in word} <= targets
    ]
    assert not unknown


# --- `manage.py migrate` alone: the cache table ------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_migrate_alone_makes_the_cache_table_a_page_needs():
    # The reader page of a paper with a PDF link and no stored PDF reads the cache ("asked
    # lately?", pdfs/reader.py).
    paper = make_paper(pdf_url="https://arxiv.org/pdf/2401.00001")
    page = f"/papers/{paper.pk}/read/"
    client = Client(raise_request_exception=False)
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE django_cache")
    try:
        assert client.get(page).status_code >= 500  # without the table the page fails
        call_command("migrate", verbosity=0)
        assert client.get(page).status_code == 200
    finally:
        call_command("createcachetable", verbosity=0)


# --- The fetch commands, as written, in a fresh shell ---------------------------------------------

# The order they run in: the catalogue first, then its PDFs, then their text.
RUN_AS_WRITTEN = ("fetch_openreview", "fetch_arxiv", "fetch_pdfs", "extract_pdf_text")
# The papers docs/pdfs.md names (`--paper 12 --paper 40`); the others get no PDF link.
PDF_PAPERS = (12, 40)


def fetch_lines() -> list[Shown]:
    unique = {tuple(shown.words): shown for shown in MANAGE_PY if shown.words[2] in RUN_AS_WRITTEN}
    return sorted(unique.values(), key=lambda shown: RUN_AS_WRITTEN.index(shown.words[2]))


@needs_make
@pytest.mark.slow
def test_the_fetch_commands_run_as_written_in_a_fresh_shell_after_make_run(project):
    lines = fetch_lines()
    assert [shown.words[2] for shown in lines[:2]] == ["fetch_openreview", "fetch_arxiv"]
    assert lines[0].words[3] == VENUE  # the README's venue is the one the stand-in serves
    with StandIn(notes=40, entries=10) as stand_in, PdfServer() as pdfs:
        # arXiv entries newer than the README's --since.
        stand_in.entries = arxiv_entries(10, first_day=date(2026, 12, 1))
        env = clean_env(**stand_in.urls, PDF_FETCH_EXTRA_HOSTS=pdfs.base)

        def run(command: str) -> None:
            # The documents' own text, run as a shell reads it.
            result = subprocess.run(  # noqa: S602
                command,
                shell=True,
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"
            assert "Traceback" not in result.stderr, f"{command}\n{result.stderr}"

        run("make --no-print-directory .env")  # the step of `make run` that writes .env
        run(".venv/bin/python manage.py migrate --noinput")  # make run's next step
        catalogue = [shown for shown in lines if shown.words[2] in RUN_AS_WRITTEN[:2]]
        for shown in catalogue:
            run(shown.text)
        _set_pdf_links(project, pdfs)
        for shown in lines[len(catalogue) :]:
            run(shown.text)

    database = sqlite3.connect(project / "db.sqlite3")
    with database:
        papers = database.execute("SELECT count(*) FROM papers_paper").fetchone()[0]
        texts = database.execute(
            "SELECT pdf.paper_id, text.text FROM pdfs_pdftext text "
            "JOIN pdfs_paperpdf pdf ON pdf.id = text.pdf_id ORDER BY pdf.paper_id"
        ).fetchall()
    database.close()
    assert papers == 50  # 40 OpenReview notes and 10 arXiv entries
    assert [paper for paper, _ in texts] == list(PDF_PAPERS)
    assert all(GOOD_TEXT in text for _, text in texts)


def _set_pdf_links(project: Path, pdfs: PdfServer) -> None:
    """The stand-ins' papers link PDFs on openreview.net and arxiv.org: two papers are pointed
    at the local PDF server instead, the rest lose their links, so nothing reaches outside."""
    database = sqlite3.connect(project / "db.sqlite3")
    with database:
        database.execute("UPDATE papers_paper SET pdf_url = ''")
        for paper in PDF_PAPERS:
            database.execute(
                "UPDATE papers_paper SET pdf_url = ? WHERE id = ?", (pdfs.url("/good.pdf"), paper)
            )
    database.close()
