// The "Cite" section's Copy buttons (templates/annotations/_citation.html): copy the text the
// button names through the clipboard API, or, where that is refused or missing (an insecure
// origin, an older browser), select the text so Ctrl+C / Cmd+C copies it.
(function () {
  "use strict";

  function say(button, message) {
    var section = button.closest(".cite");
    var status = section && section.querySelector(".cite-status");
    if (status) status.textContent = message;
  }

  function selectText(element) {
    var range = document.createRange();
    range.selectNodeContents(element);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  function fallback(button, element) {
    selectText(element);
    var copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (error) {
      copied = false;
    }
    say(button, copied ? "Copied." : "Selected: press Ctrl+C (or Cmd+C) to copy.");
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest("button[data-copy-target]");
    if (!button) return;
    var element = document.getElementById(button.getAttribute("data-copy-target"));
    if (!element) return;
    var text = element.textContent;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(
        function () { say(button, "Copied."); },
        function () { fallback(button, element); }
      );
    } else {
      fallback(button, element);
    }
  });
})();
