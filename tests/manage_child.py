"""`manage.py` run in a child process, for the tests that need a process of their own: a
second app server on the same database, a command killed half-way, settings read as a
production server reads them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

BASE_DIR = Path(__file__).resolve().parent.parent


def run_manage(
    env: dict[str, str], *args: str, timeout: float = 120, **kwargs: Any
) -> subprocess.CompletedProcess:
    """`manage.py args` in the repository with exactly `env`, its output captured as text."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kwargs,
    )
