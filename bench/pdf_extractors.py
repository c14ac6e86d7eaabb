"""pypdf against pdfminer.six on a directory of real papers: pages/s, peak memory, and what the
text looks like (ligature characters left, lines broken by a hyphen, the two-column order).

Each library reads each file in a child process of its own, so the peak memory (the child's
maximum resident set) is the library's and the file's, not the sum of a run. pdfminer.six is not
a dependency of the project: install it by hand to compare (`pip install pdfminer.six`).

    python -m bench.pdf_extractors /path/to/pdfs            # both libraries, every *.pdf
    python -m bench.pdf_extractors /path/to/pdfs --show 2   # also print page 2 of each file
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

LIBRARIES = ("pypdf", "pdfminer")  # pdfminer.six's import name

_CHILD = r"""
import json, resource, sys, time
library, path = sys.argv[1], sys.argv[2]
start = time.perf_counter()
if library == "pypdf":
    import pypdf
    pages = [page.extract_text() or "" for page in pypdf.PdfReader(path).pages]
else:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer
    pages = [
        "".join(el.get_text() for el in page if isinstance(el, LTTextContainer))
        for page in extract_pages(path)
    ]
seconds = time.perf_counter() - start
peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"pages": pages, "seconds": seconds, "peak_kib": peak_kib}))
"""

_LIGATURES = re.compile("[\ufb00-\ufb06]")
# A word cut at the end of a line: "classi-\nfication".
_HYPHENATED = re.compile(r"[a-z]-\n[a-z]")


def read(library: str, path: Path) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", _CHILD, library, str(path)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    return json.loads(result.stdout)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("--show", type=int, default=0, help="print this page (1-based) of each")
    args = parser.parse_args(argv)
    files = sorted(args.directory.glob("*.pdf"))
    libraries = [name for name in LIBRARIES if importlib.util.find_spec(name) is not None]
    for name in sorted(set(LIBRARIES) - set(libraries)):
        print(f"{name} is not installed: left out")
    totals = {library: {"pages": 0, "seconds": 0.0, "peak": 0} for library in libraries}
    print("| file | library | pages | pages/s | peak MiB | ligatures | hyphen breaks |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for path in files:
        for library in libraries:
            out = read(library, path)
            text = "\n".join(out["pages"])
            pages = len(out["pages"])
            peak = out["peak_kib"] // 1024
            total = totals[library]
            total["pages"] += pages
            total["seconds"] += out["seconds"]
            total["peak"] = max(total["peak"], peak)
            print(
                f"| {path.name[:40]} | {library} | {pages} | {pages / out['seconds']:.1f} "
                f"| {peak} | {len(_LIGATURES.findall(text))} | {len(_HYPHENATED.findall(text))} |"
            )
            if args.show and args.show <= pages:
                print(f"--- {library}, page {args.show} ---\n{out['pages'][args.show - 1][:3000]}")
    for library, total in totals.items():
        rate = total["pages"] / total["seconds"] if total["seconds"] else 0
        print(
            f"{library}: {total['pages']} pages in {total['seconds']:.1f} s, {rate:.1f} pages/s, "
            f"peak {total['peak']} MiB (one file in one process, interpreter included)"
        )


if __name__ == "__main__":
    main()
