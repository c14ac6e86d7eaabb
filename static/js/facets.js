// Progressive enhancement for the paper list form (it works without this file):
// - a ticked/unticked facet or a changed sort/page size submits the form at once;
// - typing in the author box hides the listed authors whose name does not match, and
//   asks the server for more matches after a pause (the form's Find button does the same).
(function () {
  "use strict";

  var form = document.querySelector("form[data-autosubmit]");
  if (!form) {
    return;
  }
  document.documentElement.classList.add("js");

  // On a narrow screen the filters start folded so the results come first.
  var panel = form.querySelector("details[data-collapse-narrow]");
  if (panel && window.matchMedia("(max-width: 52rem)").matches) {
    panel.open = false;
  }

  function submit() {
    if (typeof form.requestSubmit === "function") {
      form.requestSubmit();
    } else {
      form.submit();
    }
  }

  form.addEventListener("change", function (event) {
    var target = event.target;
    if (target.matches("input[type=checkbox], select")) {
      submit();
    }
  });

  var box = form.querySelector("input[data-filter-list]");
  if (!box) {
    return;
  }
  var list = document.getElementById(box.getAttribute("data-filter-list"));
  var timer = null;
  var initial = box.value;
  var FOCUS_KEY = "facets:author-box-focus";

  // Typing continues where it left off after the page reloaded with the server's matches.
  if (window.sessionStorage && window.sessionStorage.getItem(FOCUS_KEY)) {
    window.sessionStorage.removeItem(FOCUS_KEY);
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  }

  box.addEventListener("input", function () {
    var needle = box.value.trim().toLowerCase();
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
      if (box.value.trim() !== initial.trim()) {
        if (window.sessionStorage) {
          window.sessionStorage.setItem(FOCUS_KEY, "1");
        }
        submit();
      }
    }, 600);
  });
})();
