"""The Makefile: what `make run` hands the development server (read with `make -n`), the Python
it refuses, and how `make test` reads pytest's exit status."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from operations.schedule import PROCESS_ENVIRONMENT, Deployment, systemd_units

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _clean_env() -> dict[str, str]:
    # Under `make test PYTEST_ARGS=...` the outer make's variables reach an inner make through
    # MAKEFLAGS and the environment; the make run here must see only the arguments given to it.
    inherited = {"MAKEFLAGS", "MFLAGS", "MAKELEVEL", "PYTEST_ARGS", "SITE_URL", "HOST", "PORT"}
    return {key: value for key, value in os.environ.items() if key not in inherited}


def make(*arguments: str, cwd: Path = ROOT, check: bool = True) -> str:
    """make's output for `arguments` (tests/test_setup_as_written.py uses it too)."""
    result = subprocess.run(
        ["make", "--no-print-directory", *arguments],
        cwd=cwd,
        env=_clean_env(),
        capture_output=True,
        text=True,
        check=check,
    )
    return result.stdout


def _run_commands(*args: str) -> list[str]:
    return [line for line in make("-n", "run", *args).splitlines() if "manage.py runserver" in line]


def test_make_run_links_emails_to_the_port_it_serves_on():
    # Password-reset links on `make run PORT=8123` must not point at the default port 8000.
    [runserver] = _run_commands("PORT=8123")
    assert "SITE_URL=http://127.0.0.1:8123 " in runserver
    assert runserver.endswith("runserver 127.0.0.1:8123")


def test_make_run_keeps_a_site_url_given_to_it():
    [runserver] = _run_commands("SITE_URL=http://devbox.lan:8000")
    assert "SITE_URL=http://devbox.lan:8000 " in runserver


def test_make_serve_never_migrates_and_make_migrate_does():
    """Migrations run once per deploy (`make migrate`, from one host); a web server started
    before them refuses an unmigrated database instead of racing other hosts to migrate."""
    serve = make("-n", "serve")
    assert "manage.py migrate --check" in serve
    assert "migrate --noinput" not in serve
    assert "manage.py migrate --noinput" in make("-n", "migrate")


def test_make_refuses_to_create_the_venv_from_a_python_older_than_3_11(tmp_path):
    # Stands in for Ubuntu 22.04's python3.10: answers the version check with "too old".
    old_python = tmp_path / "python3.10"
    old_python.write_text(f"#!/bin/sh\nexec {sys.executable} -c 'import sys; sys.exit(1)'\n")
    old_python.chmod(0o755)
    venv = tmp_path / "venv"
    result = subprocess.run(
        [
            "make",
            "--no-print-directory",
            f"VENV={venv}",
            f"PYTHON={old_python}",
            f"{venv}/bin/python",
        ],
        cwd=ROOT,
        env=_clean_env(),
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "Python 3.11+ is needed" in result.stderr
    assert not venv.exists()


def _make_test_with_pytest_exiting(status: int, tmp_path: Path, *args: str):
    """`make test` with stand-in tools: ruff, mypy and makemigrations pass, pytest exits
    `status` (5: no tests collected)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("ruff", "mypy"):
        (bin_dir / tool).write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "python").write_text(
        f'#!/bin/sh\nif [ "$1 $2" = "-m pytest" ]; then exit {status}; fi\nexit 0\n'
    )
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    installed = tmp_path / "dev-installed"  # newer than the lock files: nothing to install
    installed.touch()
    return subprocess.run(
        ["make", "--no-print-directory", f"BIN={bin_dir}", f"DEV={installed}", "test", *args],
        cwd=ROOT,
        env=_clean_env(),
        capture_output=True,
        text=True,
    )


def test_make_test_passes_when_no_test_is_collected_and_says_so(tmp_path):
    # pytest's exit status 5 is no failure (CI's rule), but the output must not hide it.
    result = _make_test_with_pytest_exiting(5, tmp_path)
    assert result.returncode == 0
    assert "pytest: no tests collected" in result.stdout
    selection = tmp_path / "selection"
    selection.mkdir()
    result = _make_test_with_pytest_exiting(5, selection, "PYTEST_ARGS=-k no_such_test")
    assert result.returncode == 0
    assert "pytest: no tests collected (PYTEST_ARGS=-k no_such_test)" in result.stdout


def test_make_test_takes_a_marker_expression_and_quoted_arguments(tmp_path):
    # CI's PostgreSQL run is `make test TEST_MARKERS="not browser"`; quotes in PYTEST_ARGS must
    # not break the shell line that reports an empty selection.
    args = ["TEST_MARKERS=not browser", 'PYTEST_ARGS=-m "not slow" -k nothing']
    result = _make_test_with_pytest_exiting(5, tmp_path, *args)
    assert result.returncode == 0, result.stderr
    assert (
        'pytest: no tests collected (PYTEST_ARGS=-m "not slow" -k nothing) '
        "(TEST_MARKERS=not browser)" in result.stdout
    )


def test_make_test_fails_when_tests_fail(tmp_path):
    assert _make_test_with_pytest_exiting(1, tmp_path, "PYTEST_ARGS=-k some").returncode != 0


def test_the_servers_the_makefile_starts_get_the_units_process_environment():
    """glibc's 2 MB pages for the model's weights (operations/schedule.py): set where the
    process starts, as the systemd units set it."""
    serve = [line for line in make("-n", "serve").splitlines() if "bin/gunicorn" in line]
    worker = [line for line in make("-n", "worker").splitlines() if "task_worker" in line]
    [runserver] = _run_commands()
    for line in [*serve, *worker, runserver]:
        assert line.strip().startswith(PROCESS_ENVIRONMENT + " "), line
    assert serve and worker
    assert f"Environment={PROCESS_ENVIRONMENT}" in systemd_units(Deployment())["papers-web.service"]
