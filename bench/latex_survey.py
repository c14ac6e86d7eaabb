"""Count the LaTeX that shows as source after rendering: real titles and abstracts, every one
run through papers.latex as the pages run it.

    python -m bench.latex_survey /work/shared/seeds/*.txt fixtures/*
    python -m bench.latex_survey /work/shared/corpus/iclr2024.jsonl

For each file (any format the importer reads): how many titles and abstracts carry math, and
which backslash commands are left in the rendered text outside math (what a reader would see
as source). With `--katex` (needs node), also every math expression typed by KaTeX with the
options and macros of static/js/math.js: how many throw (the element would be left raw by
auto-render), fail to parse, or show an unknown macro in red.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The math the browser typesets, in the text the reader gets (delimiters as in math.js).
_MATH_RE = re.compile(r"\$\$.+?\$\$|\\\(.*?\\\)|\\\[.*?\\\]|\$(?:[^$\\]|\\.)+\$", re.S)
_COMMAND_RE = re.compile(r"\\(?:[A-Za-z]+|[^A-Za-z\s])")
_HAS_MATH_RE = re.compile(r"\$|\\\(|\\\[")


class _TextOf(HTMLParser):
    """The text of rendered HTML as the browser shows it, without the literal-dollar spans."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.literal_depth = 0

    def handle_starttag(self, tag, attrs):
        if tag == "span" and ("class", "tex-literal") in attrs:
            self.literal_depth += 1
        elif tag == "br":
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag == "span" and self.literal_depth:
            self.literal_depth -= 1

    def handle_data(self, data):
        self.parts.append("·" if self.literal_depth else data)


def shown_text(rendered: str) -> str:
    parser = _TextOf()
    parser.feed(rendered)
    parser.close()
    return "".join(parser.parts)


@dataclass
class Counts:
    texts: int = 0
    with_math: int = 0
    with_leftovers: int = 0
    with_math_and_leftovers: int = 0
    leftovers: Counter = field(default_factory=Counter)
    examples: dict[str, str] = field(default_factory=dict)
    shown: list[str] = field(default_factory=list)

    def add(self, source: str, rendered: str) -> None:
        self.texts += 1
        text = shown_text(rendered)
        self.shown.append(text)
        if _HAS_MATH_RE.search(source):
            self.with_math += 1
        outside = _MATH_RE.sub(" ", text)
        commands = _COMMAND_RE.findall(outside)
        if commands:
            self.with_leftovers += 1
            self.with_math_and_leftovers += bool(_HAS_MATH_RE.search(source))
        for command in commands:
            self.leftovers[command] += 1
            if command not in self.examples:
                at = outside.find(command)
                self.examples[command] = outside[max(0, at - 30) : at + 40].replace("\n", " ")


def survey(paths: list[str]) -> dict[str, Counts]:
    from papers.importing.formats import read_records
    from papers.latex import render_latex_inline, render_latex_text

    titles, abstracts = Counts(), Counts()
    for path in paths:
        for record in read_records(Path(path)):
            titles.add(record.title, render_latex_inline(record.title))
            abstracts.add(record.abstract, render_latex_text(record.abstract))
    return {"titles": titles, "abstracts": abstracts}


# Runs under node: KaTeX and static/js/math.js as the browser loads them, on every expression
# math.js would find in each text. Prints, per set of options, JSON counts.
_KATEX_SCRIPT = r"""
const fs = require("fs"), vm = require("vm");
global.window = global;
global.document = { compatMode: "CSS1Compat" };
global.katex = require(process.argv[1] + "/static/vendor/katex/katex.min.js");
vm.runInThisContext(fs.readFileSync(process.argv[1] + "/static/js/math.js", "utf8"));
const texts = JSON.parse(fs.readFileSync(0, "utf8"));
const result = {};
for (const [name, withMacros] of [["math.js", true], ["KaTeX defaults, no macros", false]]) {
  const counts = { expressions: 0, thrown: 0, parse_errors: 0, unknown_macros: {},
                   texts_with_thrown: 0, examples: {} };
  for (const text of texts) {
    let thrown = false;
    for (const expression of PaperMath.findMath(text)) {
      counts.expressions += 1;
      const options = PaperMath.options(expression.display);
      if (!withMacros) options.macros = {};
      const source = text.slice(expression.start, expression.end);
      let html;
      try { html = katex.renderToString(expression.tex, options); }
      catch (error) {
        thrown = true; counts.thrown += 1; counts.examples[error.message] = source; continue;
      }
      if (html.includes("katex-error")) {
        counts.parse_errors += 1;
        counts.examples[html.match(/title="([^"]*)"/)[1].slice(0, 90)] = source;
      }
      for (const m of html.matchAll(/mathcolor="#cc0000"><mtext>([^<]*)/g)) {
        counts.unknown_macros[m[1]] = (counts.unknown_macros[m[1]] || 0) + 1;
      }
    }
    if (thrown) counts.texts_with_thrown += 1;
  }
  result[name] = counts;
}
process.stdout.write(JSON.stringify(result));
"""


def katex_report(results: dict[str, Counts]) -> None:
    """What KaTeX makes of every math expression, with math.js's options and without."""
    node = shutil.which("node")
    if node is None:
        print("--katex needs node on the PATH")
        return
    texts = [text for counts in results.values() for text in counts.shown]
    answer = subprocess.run(
        [node, "-e", _KATEX_SCRIPT, str(ROOT)],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        check=True,
    )
    for name, counts in json.loads(answer.stdout).items():
        unknown = ", ".join(f"{k} ×{v}" for k, v in sorted(counts["unknown_macros"].items()))
        print(
            f"KaTeX ({name}): {counts['expressions']} expressions; {counts['thrown']} throw "
            f"(auto-render would leave {counts['texts_with_thrown']} whole texts as source), "
            f"{counts['parse_errors']} fail to parse; unknown macros in red: {unknown or 'none'}"
        )
        for message, source in counts["examples"].items():
            print(f"    {source}  →  {message}")


def report(results: dict[str, Counts]) -> None:
    for name, counts in results.items():
        print(
            f"{name}: {counts.texts} texts, {counts.with_math} with math, "
            f"{counts.with_leftovers} with backslash commands left outside math "
            f"({counts.with_math_and_leftovers} of those with math; "
            f"{sum(counts.leftovers.values())} commands in all)"
        )
        for command, count in counts.leftovers.most_common():
            print(f"    {count:5}  {command:<14} …{counts.examples[command]}…")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="files the importer reads")
    parser.add_argument("--katex", action="store_true", help="also typeset the math (node)")
    args = parser.parse_args(argv)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    results = survey(args.paths)
    report(results)
    if args.katex:
        katex_report(results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
