"""Run mutmut 3 on one of the scopes in pyproject.toml's [tool.mutmut-scopes] (see
docs/mutation-testing.md).

mutmut reads one configuration, [tool.mutmut] of the pyproject.toml where it runs, and keeps
its working copy and verdicts in mutants/ there. So that each scope keeps its own, this makes
build/mutmut/<scope>/: links to the project's files, and a pyproject.toml holding the
project's pytest settings and the scope as [tool.mutmut]. Then it runs mutmut there with the
arguments given:

    .venv/bin/python tools/mutmut_scope.py search-text run --max-children 1
    .venv/bin/python tools/mutmut_scope.py search-text results
    .venv/bin/python tools/mutmut_scope.py search-text show <mutant name>

The access rules' scope is [tool.mutmut] itself: plain `mutmut run` at the top runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Not linked: the scope's own files, and what mutmut must not copy or walk.
_NOT_LINKED = {
    ".git",
    ".venv",
    ".pytest_cache",
    ".ruff_cache",
    "build",
    "mutants",
    "pyproject.toml",
}


def _toml_value(value: object) -> str:
    # The settings are strings, numbers, booleans and lists of them; JSON writes each of those
    # as TOML reads it (TOML's basic strings use JSON's escapes).
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, str | bool | int | float):
        return json.dumps(value)
    raise TypeError(f"cannot write {value!r} as a mutmut or pytest setting")


def _toml_table(name: str, table: dict[str, object]) -> str:
    lines = [f"[{name}]"]
    lines += [f"{key} = {_toml_value(value)}" for key, value in table.items()]
    return "\n".join(lines) + "\n"


def prepare(scope: str) -> Path:
    """build/mutmut/<scope>/ with links to the project and the scope's pyproject.toml."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    scopes = config["tool"].get("mutmut-scopes", {})
    if scope not in scopes:
        sys.exit(f"No scope {scope!r} in [tool.mutmut-scopes]; there are: {', '.join(scopes)}")
    workdir = ROOT / "build" / "mutmut" / scope
    workdir.mkdir(parents=True, exist_ok=True)
    for entry in ROOT.iterdir():
        link = workdir / entry.name
        if entry.name not in _NOT_LINKED and not link.is_symlink():
            link.symlink_to(entry)
    (workdir / "pyproject.toml").write_text(
        "# Written by tools/mutmut_scope.py from the project's pyproject.toml: do not edit.\n\n"
        + _toml_table("tool.pytest.ini_options", config["tool"]["pytest"]["ini_options"])
        + "\n"
        + _toml_table("tool.mutmut", scopes[scope]),
        encoding="utf-8",
    )
    return workdir


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    workdir = prepare(argv[0])
    if len(argv) == 1:
        print(workdir)
        return 0
    env = {"DJANGO_SECRET_KEY": "mutation-testing-only", **os.environ}
    return subprocess.call([sys.executable, "-m", "mutmut", *argv[1:]], cwd=workdir, env=env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
