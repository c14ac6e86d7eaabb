// Progressive enhancement for the paper list form (it works without this file):
// - a ticked/unticked facet submits the form at once; a sort or page size chosen with the
//   mouse too, but one chosen with the keyboard only on Enter or on leaving the menu (arrow
//   keys change a closed menu's value and fire "change" at each step: submitting then would
//   reload the results at every option passed on the way to the wanted one);
// - after the results are replaced, the control that had the focus has it again: htmx
//   restores it by id after its swap, and after a page load (without htmx) this file does;
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
  // Until here CSS (site.css) showed the open panel folded already: nothing moves now.
  if (panel) panel.setAttribute("data-folded", "");
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

  var FOCUS_KEY = "facets:focus";

  // Submits the form for a change made in `control`. Without htmx the page reloads: the
  // control's id is kept so the new page can give it the focus back.
  function submitFrom(control) {
    if (window.sessionStorage && !window.htmx && control.id) {
      window.sessionStorage.setItem(FOCUS_KEY, control.id);
    }
    submit(control.form);
  }

  function ours(control) {
    var form = control.closest && control.closest(FORM);
    return Boolean(form && control.form === form);
  }

  // The value each menu last asked the results for, until the swap replaces the menu.
  var asked = new WeakMap();

  // A menu's choice differs from the one the results show (the option rendered selected) or,
  // once it asked for new results, from the one it asked for.
  function menuChanged(menu) {
    var chosen = menu.options[menu.selectedIndex];
    if (!chosen) {
      return false;
    }
    return asked.has(menu) ? asked.get(menu) !== chosen.value : !chosen.defaultSelected;
  }

  function submitMenu(menu) {
    if (menuChanged(menu)) {
      // The results asked for now are the ones shown from here on: leaving the menu after
      // this does not ask again. Not by marking the option selected in the page: htmx keeps
      // this page as it is for the back button, whose menu would then show the new choice
      // over the old results, and picking that choice again would ask for nothing.
      asked.set(menu, menu.options[menu.selectedIndex].value);
      submitFrom(menu);
    }
  }

  // Whether each menu's latest change came from stepping with keys (true) or not (false).
  var byKeyboard = new WeakMap();

  // Keys that open a menu's list, where a choice is committed with Enter or a click.
  function opensList(event) {
    var arrow = event.key === "ArrowDown" || event.key === "ArrowUp";
    return event.key === " " || event.key === "F4" || (event.altKey && arrow);
  }

  document.addEventListener("keydown", function (event) {
    var menu = event.target;
    if (!menu.matches || !menu.matches("select") || !ours(menu)) {
      return;
    }
    if (event.key === "Enter") {
      event.preventDefault();
      submitMenu(menu);
    } else if (event.key !== "Tab") {
      byKeyboard.set(menu, !opensList(event));
    }
  });
  document.addEventListener("pointerdown", function (event) {
    var menu = event.target.closest && event.target.closest("select");
    if (menu) {
      byKeyboard.set(menu, false);
    }
  });
  document.addEventListener("focusout", function (event) {
    var menu = event.target;
    // A menu replaced by the results it asked for loses the focus too: nothing to submit.
    if (menu.matches && menu.matches("select") && menu.isConnected && ours(menu)) {
      submitMenu(menu);
    }
  });

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (!target.matches || !ours(target)) {
      return;
    }
    if (target.matches("input[type=checkbox]")) {
      submitFrom(target);
    } else if (target.matches("select") && !byKeyboard.get(target)) {
      submitMenu(target);
    }
  });

  var timer = null;

  // The focus goes back to the control that had it (a facet, a menu, a find box, where typing
  // continues) after the page reloaded with new results (without htmx, which restores it).
  var focused = window.sessionStorage && window.sessionStorage.getItem(FOCUS_KEY);
  if (focused) {
    window.sessionStorage.removeItem(FOCUS_KEY);
    var control = document.getElementById(focused);
    if (control && control.matches(FORM + " input, " + FORM + " select")) {
      control.focus();
      if (control.matches("input[data-filter-list]")) {
        control.setSelectionRange(control.value.length, control.value.length);
      }
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
        submitFrom(box);
      }
    }, 600);
  });
})();
