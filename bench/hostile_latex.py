"""Time `render_latex_text` on hostile abstracts, at the catalogue's limit and at larger sizes.

    python -m bench.hostile_latex [--old REV] [--timeout 60]

Each case runs in a child process with a time limit, so a quadratic renderer shows as "> limit"
instead of hanging the run. `--old REV` also times papers/latex.py as it was at git revision REV
(e.g. the commit before the linear scanner) next to the current one.
"""

from __future__ import annotations

import argparse
import importlib.util
import multiprocessing
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from papers.text import MAX_ABSTRACT

ROOT = Path(__file__).resolve().parent.parent

# name -> (build(count), count at the size reported in the issue)
CASES = {
    "\\( unclosed": (lambda k: "\\(" * k, 80_000),
    "\\[ unclosed": (lambda k: "\\[" * k, 80_000),
    "$": (lambda k: "$" * k, 100_000),
    "{": (lambda k: "{" * k, 100_000),
    "\\textit{ unclosed": (lambda k: "\\textit{" * k, 18_000),
    "\\textit{ closed": (lambda k: "\\textit{" * k + "x" + "}" * k, 18_000),
    "\\emph{ closed": (lambda k: "\\emph{" * k + "x" + "}" * k, 5_000),
    "\\cite{ unclosed": (lambda k: "\\cite{" * k, 20_000),
    "$a\\$ unclosed": (lambda k: "$a" + "\\$" * k, 80_000),
}


def _count_for_limit(build) -> int:
    """The most repetitions that fit in MAX_ABSTRACT characters."""
    unit = len(build(2)) - len(build(1))
    return max(1, (MAX_ABSTRACT - len(build(0))) // unit)


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"latex_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _time_one(module_path: str, case: str, count: int, result) -> None:
    source = CASES[case][0](count)
    render = _load(Path(module_path)).render_latex_text
    start = time.perf_counter()
    render(source)
    result.value = time.perf_counter() - start


def measure(module_path: Path, case: str, count: int, timeout: float) -> float | None:
    """Seconds for one call, or None if it did not finish within `timeout`."""
    result = multiprocessing.Value("d", -1.0)
    child = multiprocessing.Process(target=_time_one, args=(str(module_path), case, count, result))
    child.start()
    child.join(timeout)
    if child.is_alive():
        child.terminate()
        child.join()
        return None
    if child.exitcode != 0:
        raise RuntimeError(f"{module_path} failed on {case!r} (exit code {child.exitcode})")
    return result.value


def _old_module(revision: str, directory: Path) -> Path:
    source = subprocess.run(
        ["git", "show", f"{revision}:papers/latex.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = directory / "latex_old.py"
    path.write_text(source)
    return path


def _cell(seconds: float | None, timeout: float) -> str:
    return f"> {timeout:g} s" if seconds is None else f"{seconds * 1000:.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", help="git revision whose papers/latex.py to time as well")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per call")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as directory:
        modules = {"new": ROOT / "papers" / "latex.py"}
        if args.old:
            modules = {"old": _old_module(args.old, Path(directory)), **modules}
        print("| input | chars | " + " | ".join(modules) + " |")
        print("|---|---:|" + "---:|" * len(modules))
        for case, (build, issue_count) in CASES.items():
            for count in (_count_for_limit(build), issue_count):
                cells = [
                    _cell(measure(path, case, count, args.timeout), args.timeout)
                    for path in modules.values()
                ]
                print(
                    f"| `{case}` ×{count:,} | {len(build(count)):,} | " + " | ".join(cells) + " |"
                )
                sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
