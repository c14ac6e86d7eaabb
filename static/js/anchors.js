// Comments anchored in the abstract (annotations/anchors.py says what an anchor is).
//
// Positions are counted in the abstract's plain text: the .abstract-text element's
// textContent before math.js typesets it, which is what annotations.anchors.plain_text gives
// on the server (math as its source, with delimiters). The paper page loads this script
// right after that element and without `defer`, so it runs while the page is parsed, before
// the deferred math.js typesets; afterwards it maps the typeset page back onto that text:
// text outside KaTeX's output is found in order, and each KaTeX element covers the source its
// <annotation> holds plus the delimiters around it.
//
// Selecting text in the abstract shows a "Comment on this" button; it fills the comment
// form's hidden quote fields (start sent in code points, as Python counts). Each attached
// anchor listed in the comments (data-anchor-quote) is highlighted as mark#anchor-N; a mark
// scrolls to its comment. When the page's text no longer maps onto the plain text, nothing
// is highlighted and the comments still show their quotes.
(function () {
  "use strict";

  var CONTEXT = 64; // annotations.models.QUOTE_CONTEXT_LENGTH
  var abstract = document.querySelector(".abstract-text");
  if (!abstract || abstract.hasAttribute("data-math-typeset")) {
    return; // typeset already: the plain text can no longer be read off the page
  }
  var plain = abstract.textContent;
  var pending = null; // the anchor the button would use
  var button = null;

  function isMath(element) {
    return element.classList.contains("katex") || element.classList.contains("katex-display");
  }

  // The abstract's pieces in order: {node, start, end} for its text and for each typeset
  // expression; null when the page's text does not map onto the plain text.
  function pieces() {
    var found = [];
    var cursor = 0;
    var failed = false;
    (function walk(parent) {
      for (var child = parent.firstChild; child && !failed; child = child.nextSibling) {
        if (child.nodeType === Node.TEXT_NODE) {
          if (!child.data) {
            continue;
          }
          var at = plain.startsWith(child.data, cursor) ? cursor : plain.indexOf(child.data, cursor);
          if (at === -1) {
            failed = true;
            return;
          }
          found.push({ node: child, start: at, end: at + child.data.length });
          cursor = at + child.data.length;
        } else if (child.nodeType === Node.ELEMENT_NODE && isMath(child)) {
          var source = child.querySelector("annotation");
          var tex = source ? source.textContent : "";
          var texAt = tex ? plain.indexOf(tex, cursor) : -1;
          if (texAt === -1) {
            failed = true;
            return;
          }
          var closer = /^\s*(\$\$|\$|\\\)|\\\])/.exec(plain.slice(texAt + tex.length));
          var end = texAt + tex.length + (closer ? closer[0].length : 0);
          found.push({ node: child, start: cursor, end: end });
          cursor = end;
        } else if (child.nodeType === Node.ELEMENT_NODE) {
          walk(child);
        }
      }
    })(abstract);
    return failed ? null : found;
  }

  // A boundary of the selection as a position in the plain text.
  function position(list, container, offset, isEnd) {
    var point = document.createRange();
    point.setStart(container, offset);
    var i;
    for (i = 0; i < list.length; i += 1) {
      var piece = list[i];
      if (piece.node === container && container.nodeType === Node.TEXT_NODE) {
        return piece.start + offset;
      }
      if (piece.node !== container && piece.node.contains(container)) {
        return isEnd ? piece.end : piece.start; // inside typeset math: all of it
      }
    }
    // Between pieces: after the last piece before the point, or at the first one after it.
    for (i = 0; i < list.length; i += 1) {
      if (point.comparePoint(list[i].node, 0) > 0) {
        return isEnd ? (i > 0 ? list[i - 1].end : 0) : list[i].start;
      }
    }
    return isEnd && list.length ? list[list.length - 1].end : plain.length;
  }

  function codePoints(text) {
    return Array.from(text).length;
  }

  function selectedAnchor() {
    var selection = window.getSelection();
    if (!selection || selection.rangeCount === 0 || selection.isCollapsed) {
      return null;
    }
    var range = selection.getRangeAt(0);
    if (!abstract.contains(range.startContainer) || !abstract.contains(range.endContainer)) {
      return null;
    }
    var list = pieces();
    if (!list) {
      return null;
    }
    var start = position(list, range.startContainer, range.startOffset, false);
    var end = position(list, range.endContainer, range.endOffset, true);
    while (start < end && /\s/.test(plain[start])) {
      start += 1;
    }
    while (end > start && /\s/.test(plain[end - 1])) {
      end -= 1;
    }
    if (end <= start) {
      return null;
    }
    return {
      quote: plain.slice(start, end),
      prefix: plain.slice(Math.max(0, start - CONTEXT), start),
      suffix: plain.slice(end, end + CONTEXT),
      start: codePoints(plain.slice(0, start)),
      rect: range.getBoundingClientRect(),
    };
  }

  function form() {
    return document.querySelector("form[data-anchor-form]");
  }

  function setQuote(anchor) {
    var target = form();
    if (!target) {
      return;
    }
    var values = anchor || { quote: "", prefix: "", suffix: "", start: "" };
    target.elements.quote.value = values.quote;
    target.elements.quote_prefix.value = values.prefix;
    target.elements.quote_suffix.value = values.suffix;
    target.elements.quote_start.value = String(values.start);
    var preview = target.querySelector("[data-anchor-preview]");
    preview.querySelector("[data-anchor-preview-text]").textContent = values.quote;
    preview.hidden = !anchor;
    if (anchor && target.elements.body) {
      target.elements.body.focus();
    }
  }

  function hideButton() {
    if (button) {
      button.hidden = true;
    }
    pending = null;
  }

  function showButton(anchor) {
    if (!button) {
      button = document.createElement("button");
      button.type = "button";
      button.className = "anchor-button";
      button.textContent = "Comment on this";
      // Keep the selection: a press on the button would otherwise clear it first.
      button.addEventListener("mousedown", function (event) {
        event.preventDefault();
      });
      button.addEventListener("click", function () {
        var anchor = pending;
        hideButton();
        setQuote(anchor);
      });
      document.body.appendChild(button);
    }
    pending = anchor;
    button.style.top = window.scrollY + anchor.rect.bottom + 6 + "px";
    button.style.left = window.scrollX + anchor.rect.left + "px";
    button.hidden = false;
  }

  document.addEventListener("selectionchange", function () {
    var anchor = form() ? selectedAnchor() : null;
    if (anchor) {
      showButton(anchor);
    } else {
      hideButton();
    }
  });

  document.addEventListener("click", function (event) {
    if (event.target.closest("[data-anchor-drop]")) {
      setQuote(null);
    }
  });

  // The occurrence of `quote` whose context matches best, then nearest the hint; -1 if none.
  function locate(quote, prefix, suffix, hint) {
    var best = -1;
    var bestScore = null;
    for (var at = plain.indexOf(quote); at !== -1; at = plain.indexOf(quote, at + 1)) {
      var context = 0;
      var before = plain.slice(Math.max(0, at - prefix.length), at);
      while (context < before.length && before[before.length - 1 - context] === prefix[prefix.length - 1 - context]) {
        context += 1;
      }
      var after = plain.slice(at + quote.length, at + quote.length + suffix.length);
      for (var i = 0; i < after.length && after[i] === suffix[i]; i += 1) {
        context += 1;
      }
      var distance = isNaN(hint) ? 0 : Math.abs(at - hint);
      if (bestScore === null || context > bestScore[0] || (context === bestScore[0] && distance < bestScore[1])) {
        best = at;
        bestScore = [context, distance];
      }
    }
    return best;
  }

  function unmark() {
    abstract.querySelectorAll("mark.anchor").forEach(function (mark) {
      var parent = mark.parentNode;
      while (mark.firstChild) {
        parent.insertBefore(mark.firstChild, mark);
      }
      parent.removeChild(mark);
    });
    abstract.normalize();
  }

  function mark(node, commentId, first) {
    var wrapper = document.createElement("mark");
    wrapper.className = "anchor";
    wrapper.setAttribute("data-comment", commentId);
    wrapper.tabIndex = 0;
    wrapper.title = "Go to the comment";
    if (first) {
      wrapper.id = "anchor-" + commentId;
    }
    node.parentNode.insertBefore(wrapper, node);
    wrapper.appendChild(node);
  }

  // Wraps plain[start, end) in marks: the text in it, and typeset math wholly inside it.
  function highlight(start, end, commentId) {
    var list = pieces();
    if (!list) {
      return false;
    }
    var first = true;
    list.forEach(function (piece) {
      var from = Math.max(start, piece.start);
      var to = Math.min(end, piece.end);
      if (from >= to) {
        return;
      }
      var node = piece.node;
      if (node.nodeType === Node.TEXT_NODE) {
        if (to < piece.end) {
          node.splitText(to - piece.start);
        }
        if (from > piece.start) {
          node = node.splitText(from - piece.start);
        }
      } else if (from > piece.start || to < piece.end) {
        return; // part of an expression: leave its typesetting whole
      }
      mark(node, commentId, first);
      first = false;
    });
    return !first;
  }

  function highlightAll() {
    unmark();
    if (!pieces()) {
      return; // fall back: no highlights, each comment still shows its quote
    }
    document.querySelectorAll("[data-anchor-quote]").forEach(function (comment) {
      var id = comment.id.replace("comment-", "");
      var quote = comment.getAttribute("data-anchor-quote");
      var start = locate(
        quote,
        comment.getAttribute("data-anchor-prefix") || "",
        comment.getAttribute("data-anchor-suffix") || "",
        parseInt(comment.getAttribute("data-anchor-start"), 10)
      );
      var placed = start !== -1 && highlight(start, start + quote.length, id);
      var link = comment.querySelector(".anchor-link");
      if (!placed && link) {
        link.removeAttribute("href"); // nothing to go to
      }
    });
  }

  function goToComment(event) {
    var target = event.target.closest("mark.anchor");
    if (!target || (event.type === "keydown" && event.key !== "Enter")) {
      return;
    }
    var comment = document.getElementById("comment-" + target.getAttribute("data-comment"));
    if (comment) {
      comment.scrollIntoView({ block: "center" });
      comment.classList.add("anchor-target");
      window.setTimeout(function () {
        comment.classList.remove("anchor-target");
      }, 2000);
    }
  }
  abstract.addEventListener("click", goToComment);
  abstract.addEventListener("keydown", goToComment);

  // math.js has typeset the abstract by then (it runs as a deferred script).
  document.addEventListener("DOMContentLoaded", highlightAll);
  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.closest && target.closest("#paper-comments, .comment")) {
      highlightAll();
    }
  });
})();
