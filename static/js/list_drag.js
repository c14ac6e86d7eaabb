// Drag and drop for a list's editors: dropping a paper on another posts its new position
// through the item's own move form (htmx swaps the refreshed list in). The ↑/↓ buttons stay
// the keyboard's way, and the way without JavaScript.
(function () {
  "use strict";
  let dragged = null;

  function itemOf(target) {
    return target instanceof Element ? target.closest("[data-drag-reorder] > li[draggable]") : null;
  }

  document.addEventListener("dragstart", function (event) {
    dragged = itemOf(event.target);
    if (dragged && event.dataTransfer) {
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", dragged.id);
    }
  });

  document.addEventListener("dragover", function (event) {
    if (dragged && itemOf(event.target)) event.preventDefault();
  });

  document.addEventListener("drop", function (event) {
    const onto = itemOf(event.target);
    if (!dragged || !onto || onto === dragged) return;
    event.preventDefault();
    const items = Array.from(onto.parentElement.children);
    const form = dragged.querySelector("form[action='" + dragged.dataset.moveUrl + "']");
    dragged = null;
    if (!form) return;
    let position = form.querySelector("input[name=position]");
    if (!position) {
      position = document.createElement("input");
      position.type = "hidden";
      position.name = "position";
      form.appendChild(position);
    }
    position.value = String(items.indexOf(onto));
    form.requestSubmit();
  });

  document.addEventListener("dragend", function () {
    dragged = null;
  });
})();
