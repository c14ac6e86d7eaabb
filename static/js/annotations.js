// Progressive enhancement for annotation forms; every form works without this file.
(function () {
  "use strict";

  // Forms that delete something carry data-confirm="question": ask before a plain submit.
  // htmx-driven forms ask through their own hx-confirm attribute instead.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    var question = form.getAttribute("data-confirm");
    if (!question || form.hasAttribute("hx-post")) return;
    if (!window.confirm(question)) {
      event.preventDefault();
      return;
    }
    // Asked here, so the server need not ask again (it does for a submit without this file).
    if (!form.querySelector("input[name=confirmed]")) {
      var confirmed = document.createElement("input");
      confirmed.type = "hidden";
      confirmed.name = "confirmed";
      confirmed.value = "yes";
      form.appendChild(confirmed);
    }
  });

  // Messages (htmx flashes and Django's messages, both marked data-flash) are for the moment
  // they answer: they go when the person next acts on the page or after a while, and are
  // never kept in a snapshot (htmx history, back/forward cache) that could show them again.
  var FLASH_SECONDS = 8;

  function clearFlashes() {
    document.querySelectorAll("[data-flash]").forEach(function (flash) { flash.remove(); });
  }

  // Errors stay until the next action: they may take longer to read and act on.
  function expireFlashes() {
    document.querySelectorAll("[data-flash]:not([data-flash-timed])").forEach(function (flash) {
      flash.setAttribute("data-flash-timed", "");
      if (flash.matches(".flash-error") || flash.querySelector(".error")) return;
      window.setTimeout(function () { flash.remove(); }, FLASH_SECONDS * 1000);
    });
  }

  document.addEventListener("DOMContentLoaded", expireFlashes);
  document.addEventListener("htmx:afterSettle", expireFlashes);
  // The next request made from the page replaces what the last message said; a section that
  // loads itself as it scrolls into view (the Cite section) is not the person acting, and
  // focusing a message can scroll one into view.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (elt && elt.matches && elt.matches("[hx-trigger~='revealed']")) return;
    clearFlashes();
  });
  document.addEventListener("htmx:beforeHistorySave", clearFlashes);
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) clearFlashes();
  });
  // Typing somewhere else (starting the next thing) also dismisses a message already read.
  document.addEventListener("input", clearFlashes);

  // A section htmx swaps whole (a comment or reply posted or refused, a note added) comes
  // back with only the sent form's text: what the member was still typing in its other boxes
  // (a comment half-written while replying) is put back into the same boxes.
  var drafts = null;
  document.addEventListener("htmx:beforeSwap", function (event) {
    drafts = null;
    var target = event.detail && event.detail.target;
    var config = event.detail && event.detail.requestConfig;
    var sent = config && config.elt;  // the element that made the request
    if (!target || !target.querySelectorAll) return;
    var form = sent && sent.closest ? sent.closest("form") : null;
    target.querySelectorAll("textarea[id]").forEach(function (box) {
      if (!box.value.trim() || (form && form.contains(box))) return;
      drafts = drafts || {};
      drafts[box.id] = box.value;
    });
  });
  document.addEventListener("htmx:afterSwap", function () {
    if (!drafts) return;
    Object.keys(drafts).forEach(function (id) {
      var box = document.getElementById(id);
      if (!box || box.value) return;
      box.value = drafts[id];
      var disclosure = box.closest("details");
      if (disclosure) disclosure.open = true;  // a reply box: shown again, as it was
    });
    drafts = null;
  });

  // An htmx request that fails is not swapped in (htmx's default): without a word here the
  // button would seem to do nothing. Say why next to what was used, with what was typed kept.
  var FAILURES = {
    401: "You are no longer logged in, so this was not saved. Copy what you typed, then " +
      "reload the page to log in again.",
    403: "This page is out of date, so this was not saved. Copy what you typed, then " +
      "reload the page and try again.",
    404: "This is no longer there (deleted in another tab, or by someone else?). Reload the page.",
  };
  function sayFailed(event, message) {
    var config = event.detail && event.detail.requestConfig;
    var source = (config && config.elt) || (event.detail && event.detail.elt);
    if (!(source instanceof Element) || !source.isConnected) return;
    var flash = document.createElement("p");
    flash.className = "flash flash-error";
    flash.setAttribute("role", "alert");
    flash.setAttribute("data-flash", "");
    flash.setAttribute("data-flash-timed", "");  // stays until the next action
    flash.textContent = message;
    // A form: at its top; a link or button: right after it.
    source.insertAdjacentElement(source.tagName === "FORM" ? "afterbegin" : "afterend", flash);
  }
  // A limit reached (429): its page says which and when to try again (templates/429.html).
  function limitMessage(xhr) {
    var page = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
    var said = page.querySelector("main p");
    return said ? said.textContent.trim() : "";
  }
  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail && event.detail.xhr;
    var status = xhr ? xhr.status : 0;
    if (status === 429) {
      sayFailed(event, limitMessage(xhr) || "Too many requests for now. Try again later.");
      return;
    }
    sayFailed(event, FAILURES[status] ||
      "Something went wrong on the server, so this was not saved. Try again in a moment.");
  });
  document.addEventListener("htmx:sendError", function (event) {
    sayFailed(event, "The site could not be reached, so this was not saved. Try again.");
  });

  // After htmx swaps a section, move focus to its message so screen readers announce it.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    var section = target && target.id ? document.getElementById(target.id) : null;
    var flash = section ? section.querySelector(".flash") : null;
    // Unless htmx put the focus on a control the answer marked autofocus (a moved item's
    // button): the keyboard stays where the member goes on working.
    var active = document.activeElement;
    if (active && active.hasAttribute("autofocus") && section.contains(active)) return;
    if (flash) {
      flash.setAttribute("tabindex", "-1");
      flash.focus();
    }
  });
})();

// The header's member menu (a <details data-menu>): Escape or a click elsewhere closes it.
(function () {
  "use strict";

  function openMenus() {
    return document.querySelectorAll("details[data-menu][open]");
  }

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape") return;
    openMenus().forEach(function (menu) {
      var inside = menu.contains(document.activeElement);
      menu.open = false;
      if (inside) menu.querySelector("summary").focus();
    });
  });

  document.addEventListener("click", function (event) {
    openMenus().forEach(function (menu) {
      if (!(event.target instanceof Node) || !menu.contains(event.target)) menu.open = false;
    });
  });
})();

// The paper page's panel is sticky where that helps: one shorter than the window stays at the
// top; a longer one scrolls with the page until its end is in view, then stays there, so every
// part of it (the comment box last) is reached by scrolling the page, never inside a box.
(function () {
  "use strict";

  var panel = document.querySelector(".paper-workspace > .annotations");
  if (!panel || !("ResizeObserver" in window)) return;
  var GAP = 8;

  function place() {
    var top = Math.min(GAP, window.innerHeight - panel.offsetHeight - GAP);
    panel.style.setProperty("--panel-top", top + "px");
  }

  panel.classList.add("is-sticky");
  place();
  new ResizeObserver(place).observe(panel);
  window.addEventListener("resize", place);
})();
