// Progressive enhancement for the paper list form (it works without this file):
// - a ticked/unticked facet or a changed sort/page size submits the form at once;
// - typing in the author box hides the listed authors whose name does not match, and
//   asks the server for more matches after a pause (the form's Find button does the same).
// The form's results and facets may be swapped in place by htmx (see search_as_you_type.js),
// so listeners are delegated from the document rather than bound to elements that get
// replaced; the submit goes through requestSubmit(), which htmx intercepts when it is loaded:
// one request per change, never a page load racing an htmx request.
(function () {
  "use strict";

  var FORM = "form[data-autosubmit]";
  if (!document.querySelector(FORM)) {
    return;
  }
  document.documentElement.classList.add("js");
  var narrow = window.matchMedia("(max-width: 52rem)");

  // On a narrow screen the filters start folded so the results come first.
  var panel = document.querySelector(FORM + " details[data-collapse-narrow]");
  if (panel && narrow.matches) {
    panel.open = false;
  }
  // A swap brings a new (open) panel: keep it as the member left it.
  var panelOpen = null;
  document.addEventListener("htmx:beforeSwap", function () {
    var current = document.querySelector(FORM + " details[data-collapse-narrow]");
    panelOpen = current ? current.open : null;
  });
  document.addEventListener("htmx:afterSwap", function () {
    var swapped = document.querySelector(FORM + " details[data-collapse-narrow]");
    if (swapped && panelOpen !== null) {
      swapped.open = panelOpen;
    }
  });

  function submit(form) {
    if (typeof form.requestSubmit === "function") {
      form.requestSubmit();
    } else {
      form.submit();
    }
  }

  document.addEventListener("change", function (event) {
    var target = event.target;
    var form = target.closest && target.closest(FORM);
    if (form && target.form === form && target.matches("input[type=checkbox], select")) {
      submit(form);
    }
  });

  var timer = null;
  var FOCUS_KEY = "facets:find-box-focus";

  // Typing continues where it left off, in the box it was in (authors or keywords), after the
  // page reloaded with the server's matches (without htmx: with it, the box keeps its focus).
  var focused = window.sessionStorage && window.sessionStorage.getItem(FOCUS_KEY);
  if (focused) {
    window.sessionStorage.removeItem(FOCUS_KEY);
    var box = document.getElementById(focused);
    if (box && box.matches(FORM + " input[data-filter-list]")) {
      box.focus();
      box.setSelectionRange(box.value.length, box.value.length);
    }
  }

  document.addEventListener("input", function (event) {
    var box = event.target;
    var form = box.closest && box.closest(FORM);
    if (!form || !box.matches("input[data-filter-list]")) {
      return;
    }
    var needle = box.value.trim().toLowerCase();
    var list = document.getElementById(box.getAttribute("data-filter-list"));
    if (list) {
      list.querySelectorAll(".facet-value").forEach(function (item) {
        var label = item.querySelector(".facet-label");
        var checkbox = item.querySelector("input");
        var match = !needle || (label && label.textContent.toLowerCase().indexOf(needle) !== -1);
        item.hidden = !(match || (checkbox && checkbox.checked));
      });
    }
    window.clearTimeout(timer);
    timer = window.setTimeout(function () {
      // The value the page was rendered with: the server's matches are for it.
      if (box.isConnected && box.value.trim() !== box.defaultValue.trim()) {
        if (window.sessionStorage && !window.htmx) {
          window.sessionStorage.setItem(FOCUS_KEY, box.id);
        }
        submit(form);
      }
    }, 600);
  });
})();
