"""The Makefile's `make run`: what it hands the development server (read with `make -n`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def _run_commands(*args: str) -> list[str]:
    env = {key: value for key, value in os.environ.items() if key != "SITE_URL"}
    result = subprocess.run(
        ["make", "--no-print-directory", "-n", "run", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in result.stdout.splitlines() if "manage.py runserver" in line]


def test_make_run_links_emails_to_the_port_it_serves_on():
    # Password-reset links on `make run PORT=8123` must not point at the default port 8000.
    [runserver] = _run_commands("PORT=8123")
    assert "SITE_URL=http://127.0.0.1:8123 " in runserver
    assert runserver.endswith("runserver 127.0.0.1:8123")


def test_make_run_keeps_a_site_url_given_to_it():
    [runserver] = _run_commands("SITE_URL=http://devbox.lan:8000")
    assert "SITE_URL=http://devbox.lan:8000 " in runserver


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
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0
    assert "Python 3.11+ is needed" in result.stderr
    assert not venv.exists()
