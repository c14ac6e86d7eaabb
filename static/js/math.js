// Typesets the math in elements marked data-math, one expression at a time, with KaTeX.
// The server (papers/latex.py) already turned text-mode LaTeX into HTML and left each math
// expression, delimiters and all, in one text node; its rules for what counts as math are
// mirrored in findMath. Each expression is rendered on its own so that one KaTeX cannot
// render (it throws "Font metrics not found" for \textbf{\texttt{x}}, which auto-render
// does not catch) stays as its source while the rest of the element is typeset.
(function () {
  "use strict";

  // Common macros authors bring from their papers; KaTeX knows \R, \N, \Z and \bm already.
  var MACROS = {
    "\\C": "\\mathbb{C}",
    "\\E": "\\mathbb{E}",
    "\\mathbbm": "\\mathbb",
    "\\bbR": "\\mathbb{R}",
    "\\eg": "\\text{e.g.}",
    "\\ie": "\\text{i.e.}",
    "\\etal": "\\text{et al.}",
    "\\wrt": "\\text{w.r.t.}",
    "\\textendash": "\\text{–}",
    "\\textemdash": "\\text{—}",
    "\\argmin": "\\operatorname*{arg\\,min}",
    "\\argmax": "\\operatorname*{arg\\,max}",
    "\\Var": "\\operatorname{Var}",
    "\\Cov": "\\operatorname{Cov}",
    "\\tr": "\\operatorname{tr}",
    "\\diag": "\\operatorname{diag}",
    "\\rank": "\\operatorname{rank}",
    "\\sign": "\\operatorname{sign}",
    "\\poly": "\\operatorname{poly}",
    "\\polylog": "\\operatorname{polylog}",
    "\\softmax": "\\operatorname{softmax}",
  };

  // Elements whose text is never math: KaTeX's output, our own marks, code and form text.
  var SKIPPED_CLASSES = ["katex", "katex-display", "math-error", "tex-literal"];
  var SKIPPED_TAGS = ["SCRIPT", "NOSCRIPT", "STYLE", "TEXTAREA", "PRE", "CODE", "OPTION"];
  var TYPESET = "data-math-typeset";

  function options(display) {
    return {
      displayMode: display,
      // Parse errors come back as a red .katex-error element, turned into ours below;
      // an unknown macro is shown in red in place and the rest of the expression typeset.
      throwOnError: false,
      errorColor: "#cc0000",
      trust: false, // no \href, \url, \includegraphics or \htmlClass from abstracts
      strict: "ignore", // no console warnings for Unicode in math
      maxSize: 10, // em: no page-sized \rule or \kern
      maxExpand: 200, // \def loops stop early
      // A fresh copy each time: \gdef in one abstract must not define macros for the next.
      macros: Object.assign({}, MACROS),
    };
  }

  // The math in `text` as {start, end, tex, display} in order, by the server's rules: $$..$$
  // (not empty), $..$ (an escaped \$ inside does not close it), \(..\) and \[..\]; an opener
  // without a closer is text. Linear: a search for a closer that found none is remembered,
  // so a thousand unclosed \( cost one search to the end, not a thousand.
  function findMath(text) {
    var found = [];
    var searches = {};

    function closer(kind, from) {
      var last = searches[kind];
      if (last && last.from <= from && (last.at === -1 || last.at >= from)) {
        return last.at;
      }
      var at = kind === "$" ? unescapedDollar(text, from) : text.indexOf(kind, from);
      searches[kind] = { from: from, at: at };
      return at;
    }

    var special = /[\\$]/g;
    var match;
    while ((match = special.exec(text)) !== null) {
      var pos = match.index;
      var end = -1;
      var display = false;
      var open = 1;
      var close = 1;
      if (text.charAt(pos) === "\\") {
        var next = text.charAt(pos + 1);
        if (next === "(" || next === "[") {
          display = next === "[";
          open = close = 2;
          end = closer(display ? "\\]" : "\\)", pos + 2);
        } else {
          special.lastIndex = pos + 2; // an escaped character (\$, \\) is text
          continue;
        }
      } else if (text.charAt(pos + 1) === "$") {
        display = true;
        open = close = 2;
        end = closer("$$", pos + 3);
      } else {
        end = closer("$", pos + 1);
      }
      if (end === -1) {
        special.lastIndex = pos + 1;
        continue;
      }
      found.push({
        start: pos,
        end: end + close,
        tex: text.slice(pos + open, end),
        display: display,
      });
      special.lastIndex = end + close;
    }
    return found;
  }

  // The next $ after an even run of backslashes: \$ is a dollar, \\$ a closer.
  function unescapedDollar(text, from) {
    var at = text.indexOf("$", from);
    while (at !== -1) {
      var backslashes = 0;
      while (at - backslashes > 0 && text.charAt(at - backslashes - 1) === "\\") {
        backslashes += 1;
      }
      if (backslashes % 2 === 0) {
        return at;
      }
      at = text.indexOf("$", at + 1);
    }
    return -1;
  }

  function failed(source, message) {
    var span = document.createElement("span");
    span.className = "math-error";
    span.title = message;
    span.textContent = source;
    return span;
  }

  // One expression as a typeset node, or its source marked math-error if KaTeX cannot.
  function renderExpression(expression, source) {
    var holder = document.createElement("span");
    try {
      window.katex.render(expression.tex, holder, options(expression.display));
    } catch (error) {
      return failed(source, String((error && error.message) || error));
    }
    var rendered = holder.firstChild;
    if (!rendered || rendered.classList.contains("katex-error")) {
      return failed(source, rendered ? rendered.title : "KaTeX rendered nothing");
    }
    return rendered;
  }

  function typesetText(node) {
    var text = node.data;
    var expressions = findMath(text);
    if (expressions.length === 0) {
      return;
    }
    var fragment = document.createDocumentFragment();
    var done = 0;
    expressions.forEach(function (expression) {
      if (expression.start > done) {
        fragment.appendChild(document.createTextNode(text.slice(done, expression.start)));
      }
      var source = text.slice(expression.start, expression.end);
      fragment.appendChild(renderExpression(expression, source));
      done = expression.end;
    });
    if (done < text.length) {
      fragment.appendChild(document.createTextNode(text.slice(done)));
    }
    node.parentNode.replaceChild(fragment, node);
  }

  function skipped(element) {
    return (
      SKIPPED_TAGS.indexOf(element.tagName) !== -1 ||
      SKIPPED_CLASSES.some(function (name) {
        return element.classList.contains(name);
      })
    );
  }

  // Typesets the text under `root`. Rendered math and error marks are skipped, so going
  // over an element again changes nothing.
  function typeset(root) {
    var texts = [];
    (function collect(parent) {
      for (var child = parent.firstChild; child; child = child.nextSibling) {
        if (child.nodeType === Node.TEXT_NODE) {
          texts.push(child);
        } else if (child.nodeType === Node.ELEMENT_NODE && !skipped(child)) {
          collect(child);
        }
      }
    })(root);
    texts.forEach(typesetText);
  }

  // Every data-math element in or around `root` (new content after an htmx swap, or the
  // page) not typeset yet; content swapped into an element already typeset is new text.
  function typesetWithin(root) {
    if (typeof window.katex === "undefined" || !root || root.nodeType !== Node.ELEMENT_NODE) {
      return;
    }
    var host = root.closest("[data-math]");
    if (host && host !== root) {
      typeset(root);
    } else if (host) {
      typeset(host);
      host.setAttribute(TYPESET, "");
    }
    root.querySelectorAll("[data-math]:not([" + TYPESET + "])").forEach(function (element) {
      typeset(element);
      element.setAttribute(TYPESET, "");
    });
  }

  window.PaperMath = { findMath: findMath, options: options, typeset: typesetWithin };

  if (typeof document.addEventListener !== "function") {
    return; // loaded outside a browser (bench/latex_survey.py runs findMath under node)
  }
  // Results loaded in place (search as you type, panel sections): htmx:load fires on each
  // new element, htmx:afterSwap on the target (which alone sees text swapped in bare).
  document.addEventListener("htmx:load", function (event) {
    typesetWithin(event.detail && event.detail.elt);
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.isConnected) {
      typesetWithin(target);
    }
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () {
      typesetWithin(document.body);
    });
  } else {
    typesetWithin(document.body);
  }
})();
