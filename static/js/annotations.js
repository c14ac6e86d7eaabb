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
    if (!window.confirm(question)) event.preventDefault();
  });

  // After htmx swaps a section, move focus to its message so screen readers announce it.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    var section = target && target.id ? document.getElementById(target.id) : null;
    var flash = section ? section.querySelector(".flash") : null;
    if (flash) {
      flash.setAttribute("tabindex", "-1");
      flash.focus();
    }
  });
})();
