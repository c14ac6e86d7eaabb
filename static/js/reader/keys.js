// The reader's toolbar and keys: n / p, ← / → and PageDown / PageUp move a page, Home / End
// go to the first or last, + / − zoom, 0 fits the width, Ctrl+F (Cmd+F) opens our find (the
// browser's own cannot see pages not drawn yet). Keys typed into a field are the field's.

export function setUpKeys(viewer, finder, root) {
  const actions = {
    prev: () => viewer.goToPage(viewer.currentPage - 1),
    next: () => viewer.goToPage(viewer.currentPage + 1),
    first: () => viewer.goToPage(1),
    last: () => viewer.goToPage(viewer.views.length),
    "zoom-in": () => viewer.zoom(1),
    "zoom-out": () => viewer.zoom(-1),
    fit: () => viewer.fitWidth(),
    find: () => finder.open(),
    sidebar: () => toggleSidebar(root),
  };
  root.querySelector(".reader-toolbar").addEventListener("click", (event) => {
    const button = event.target.closest("button[data-action]");
    if (button && actions[button.dataset.action]) actions[button.dataset.action]();
  });
  const pageInput = root.querySelector("#reader-page");
  pageInput.addEventListener("change", () => viewer.goToPage(Number(pageInput.value)));
  pageInput.addEventListener("keydown", (event) => {
    if (event.key === "Enter") viewer.goToPage(Number(pageInput.value));
  });

  const byKey = {
    n: "next",
    p: "prev",
    ArrowRight: "next",
    ArrowLeft: "prev",
    PageDown: "next",
    PageUp: "prev",
    Home: "first",
    End: "last",
    "+": "zoom-in",
    "=": "zoom-in",
    "-": "zoom-out",
    "−": "zoom-out",
    0: "fit",
  };
  document.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "f") {
      event.preventDefault();
      finder.open();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    if (event.target.closest("input, textarea, select, [contenteditable], dialog, .annotations")) return;
    const action = byKey[event.key];
    if (!action) return;
    event.preventDefault();
    actions[action]();
  });
}

function toggleSidebar(root) {
  const sidebar = root.querySelector("#reader-sidebar");
  const button = root.querySelector("[data-action=sidebar]");
  sidebar.hidden = !sidebar.hidden;
  button.setAttribute("aria-expanded", String(!sidebar.hidden));
}

export function openSidebar(root) {
  if (root.querySelector("#reader-sidebar").hidden) toggleSidebar(root);
}
