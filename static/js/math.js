// Typesets the math in elements marked data-math with the vendored KaTeX auto-render.
// The server already turned text-mode LaTeX into HTML and left math delimiters in place.
(function () {
  "use strict";

  function render() {
    if (typeof window.renderMathInElement !== "function") {
      return;
    }
    document.querySelectorAll("[data-math]").forEach(function (element) {
      window.renderMathInElement(element, {
        delimiters: [
          { left: "$$", right: "$$", display: true },
          { left: "\\[", right: "\\]", display: true },
          { left: "\\(", right: "\\)", display: false },
          { left: "$", right: "$", display: false },
        ],
        // Literal dollar signs from \$ are wrapped in this class and must stay text.
        ignoredClasses: ["tex-literal"],
        throwOnError: false,
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", render);
  } else {
    render();
  }
})();
