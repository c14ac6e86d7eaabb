// Triage on lists of papers (annotations/_triage.html): select all, Enter in a tag box, refused
// answers shown in place, and the keys j k x s 1-4 t o Enter / ?. Every control also works
// as a plain form without this file.
(function () {
  "use strict";

  document.documentElement.classList.add("js");

  var STATUS_KEYS = { "1": 0, "2": 1, "3": 2, "4": 3 };

  function results() {
    return Array.prototype.slice.call(document.querySelectorAll(".paper-list > .paper-item"));
  }

  function current() {
    return document.querySelector(".paper-list > .paper-item.is-current");
  }

  function setCurrent(item) {
    var previous = current();
    if (previous) {
      previous.classList.remove("is-current");
      previous.removeAttribute("aria-current");
    }
    item.classList.add("is-current");
    item.setAttribute("aria-current", "true");
    item.scrollIntoView({ block: "nearest" });
  }

  function move(step) {
    var items = results();
    if (!items.length) return;
    var index = items.indexOf(current());
    var next = index < 0 ? 0 : Math.min(items.length - 1, Math.max(0, index + step));
    setCurrent(items[next]);
  }

  function press(item, selector) {
    var control = item && item.querySelector(selector);
    if (control) control.click();
  }

  function setStatus(item, position) {
    var menu = item && item.querySelector("[data-triage-status]");
    if (!menu || !menu.options[position]) return;
    menu.selectedIndex = position;
    press(item, "[data-triage-status-set]");
  }

  function openPaper(item) {
    var link = item && item.querySelector(".paper-title a");
    if (link) window.location.assign(link.href);
  }

  function focusSearch() {
    var box = document.getElementById("q") || document.getElementById("header-q");
    if (box) box.focus();
  }

  function showHelp() {
    var help = document.getElementById("triage-help");
    if (help && !help.open) help.showModal();
  }

  function typing(target) {
    return target instanceof HTMLElement &&
      (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    if (typing(event.target)) return;
    var help = document.getElementById("triage-help");
    if (help && help.open) return; // the dialog has the keys (Esc closes it)
    var item = current();
    var key = event.key;
    var handled = true;
    if (key === "j") move(1);
    else if (key === "k") move(-1);
    else if (key === "/") focusSearch();
    else if (key === "?") showHelp();
    else if (!item) handled = false;
    else if (key === "x") press(item, "[data-triage-check]");
    else if (key === "s") press(item, "[data-triage-save]");
    else if (key in STATUS_KEYS) setStatus(item, STATUS_KEYS[key]);
    else if (key === "t") {
      var box = item.querySelector("[data-triage-tag]");
      var more = box && box.closest("details");
      if (more) more.open = true; // the tag box is in the result's "More" menu
      if (box) box.focus();
    } else if (key === "o" || (key === "Enter" && event.target === document.body)) openPaper(item);
    else handled = false;
    if (handled) event.preventDefault();
  });

  // Escape in the list's search box leaves the box for the results, search and all, so that
  // j/k/o come next (as in Gmail or GitHub; / comes back). Chromium's own Escape in a
  // type=search box empties it, and search as you type then threw the results away. The
  // box's clear button still empties it.
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.key !== "Escape" || !(target instanceof HTMLInputElement) || target.id !== "q") return;
    event.preventDefault();
    target.blur();
  });

  // A result's "More" menu: one open at a time; Escape inside it closes it and gives the
  // focus back to its summary.
  document.addEventListener("toggle", function (event) {
    var opened = event.target;
    if (!(opened instanceof HTMLDetailsElement) || !opened.open || !opened.matches(".triage-more")) return;
    document.querySelectorAll(".triage-more[open]").forEach(function (other) {
      if (other !== opened) other.open = false;
    });
  }, true);

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || !(event.target instanceof Element)) return;
    var more = event.target.closest(".triage-more[open]");
    if (!more) return;
    event.preventDefault();
    more.open = false;
    more.querySelector("summary").focus();
  });

  // Enter in a result's tag box tags that result, in its "Suggest to…" boxes suggests it (the
  // shared form's own Enter does nothing);
  // in the toolbar's tag or link box it presses that group's button.
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.key !== "Enter" || !(target instanceof HTMLInputElement)) return;
    var button = null;
    if (target.matches("[data-triage-tag]")) {
      button = target.closest(".triage").querySelector("[data-triage-tag-add]");
    } else if (target.matches("[data-triage-suggest-field]")) {
      button = target.closest(".triage").querySelector("[data-triage-suggest]");
    } else if (target.id === "bulk-tag") {
      button = document.querySelector('button[form="bulk-form"][value="tag"]');
    } else if (target.id === "bulk-link") {
      button = document.querySelector('button[form="bulk-form"][value="list"]');
    }
    if (!button) return;
    event.preventDefault();
    button.click();
  });

  // A click inside a result makes it the current one, so the keys continue from there.
  document.addEventListener("click", function (event) {
    var item = event.target instanceof Element && event.target.closest(".paper-list > .paper-item");
    if (item && item !== current()) setCurrent(item);
  });

  document.addEventListener("change", function (event) {
    var box = event.target;
    if (!(box instanceof HTMLInputElement)) return;
    if (box.matches("[data-triage-select-all]")) {
      document.querySelectorAll("[data-triage-check]").forEach(function (check) {
        check.checked = box.checked;
      });
    } else if (box.matches("[data-triage-check]") && !box.checked) {
      // "All on this page" would still send every id: it stops being true.
      var all = document.querySelector("[data-triage-select-all]");
      if (all) all.checked = false;
    }
  });

  document.addEventListener("click", function (event) {
    if (event.target instanceof Element && event.target.closest("[data-triage-help]")) showHelp();
  });

  // Refused triage actions answer 400 with the block saying why: show it like a success.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail;
    var source = detail.requestConfig && detail.requestConfig.elt;
    var triage = source instanceof Element && (source.closest(".triage") || source.id === "bulk-form");
    if (detail.xhr.status === 400 && triage) {
      detail.shouldSwap = true;
      detail.isError = false;
    }
  });

  // After a bulk action the selection is done with; the blocks come back unchecked.
  document.addEventListener("htmx:afterRequest", function (event) {
    var source = event.detail && event.detail.elt;
    if (source && source.id === "bulk-form" && event.detail.successful) {
      var all = document.querySelector("[data-triage-select-all]");
      if (all) all.checked = false;
      // The paper its link named is on the list now; a refused link stays, to be corrected.
      var link = document.getElementById("bulk-link");
      if (link) link.value = "";
    }
  });
})();
