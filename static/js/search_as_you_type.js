// Search as you type on the paper list. htmx sends the requests (the hx-* attributes of the
// form in templates/papers/paper_list.html: the form on submit, and 250 ms after the last
// keystroke in the search box) and swaps the results and facets in place, pushing each URL
// into the history. Without JavaScript the form submits as a page load. This file only:
// - adds the `typing` flag (named by data-typing-param) to requests made while typing, so the
//   last word matches as a prefix; an explicit search (Enter, the Search button) and a paste
//   drop it.
//   The URL pushed is the server's (HX-Push-Url, papers.filters.shareable_query): it keeps
//   the flag only while the flag changes the results, so reloading or sharing it shows what
//   was on screen, and leaves out the form's empty fields and bookkeeping;
// - puts the search box and the flag back in step with the URL when the back button
//   restores a page (the restored snapshot keeps the box's initial text, not what was typed);
// - repeats the new count in a live region that is not replaced by the swap.
(function () {
  "use strict";

  var FORM = "form[data-search-as-you-type]";
  if (!document.querySelector(FORM)) {
    return;
  }

  function form() {
    return document.querySelector(FORM);
  }

  function setTyping(target, on) {
    var name = target.getAttribute("data-typing-param");
    var flag = target.querySelector('input[type=hidden][name="' + name + '"]');
    if (on && !flag) {
      flag = document.createElement("input");
      flag.type = "hidden";
      flag.name = name;
      flag.value = "1";
      target.appendChild(flag);
    } else if (!on && flag) {
      flag.remove();
    }
  }

  function syncWithUrl(withBox) {
    var target = form();
    if (!target) {
      return;
    }
    var params = new URLSearchParams(window.location.search);
    var box = target.querySelector("#q");
    if (box && withBox) {
      box.value = params.get("q") || "";
    }
    setTyping(target, params.get(target.getAttribute("data-typing-param")) === "1");
  }

  // A page opened from a typed URL keeps matching that way when a facet is ticked.
  syncWithUrl(false);

  // A paste is a finished search, not a word being typed: its request goes without the flag,
  // so that a pasted arXiv, OpenReview or DOI link opens its paper (papers.views.paper_list).
  var pasted = false;
  document.addEventListener("paste", function (event) {
    var target = form();
    pasted = Boolean(target && event.target.id === "q" && target.contains(event.target));
  });

  document.addEventListener("input", function (event) {
    var target = form();
    if (target && event.target.id === "q" && target.contains(event.target)) {
      setTyping(target, !pasted);
    }
    pasted = false;
  });

  // Capture: runs before htmx reads the form's values for the request.
  document.addEventListener(
    "submit",
    function (event) {
      var button = event.submitter;
      if (event.target.matches(FORM) && button && button.hasAttribute("data-ends-typing")) {
        setTyping(event.target, false);
      }
    },
    true
  );

  document.addEventListener("htmx:historyRestore", function () {
    syncWithUrl(true);
  });

  document.addEventListener("htmx:afterSwap", function () {
    var status = document.getElementById("results-status");
    var heading = document.getElementById("results-heading");
    if (status && heading) {
      status.textContent = heading.textContent.replace(/\s+/g, " ").trim();
    }
  });
})();
