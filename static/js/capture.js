// The capture page (templates/annotations/capture.html): the one-click bookmarklet opens it
// with its key in the URL's fragment (#key=...), which no server and no Referer sees. The key
// is moved into the form, dropped from the address bar and history, and the form posted: the
// server adds without a press only when the key is the member's (annotations.views.capture).
// Without a key (the ask-first bookmarklet, or any other site opening this page) nothing is
// posted until the member presses Add.
(function () {
  "use strict";
  var form = document.querySelector("[data-capture-form]");
  var match = /^#key=([A-Za-z0-9_-]{20,100})$/.exec(window.location.hash);
  if (!match) return;
  history.replaceState(null, "", window.location.pathname + window.location.search);
  if (!form || form.querySelector("[role=alert]")) return;
  form.elements.key.value = match[1];
  form.submit();
})();
