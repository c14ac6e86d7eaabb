// Find in the document: every page's text (pagetext.js), drawn or not, searched without regard
// to case; Enter goes to the next match, Shift+Enter to the previous, Escape closes.

export class Finder {
  constructor(viewer, root) {
    this.viewer = viewer;
    this.form = root.querySelector("#reader-find");
    this.input = root.querySelector("#reader-find-input");
    this.status = root.querySelector("[data-find-status]");
    this.button = root.querySelector("[data-action=find]");
    this.matches = [];
    this.index = -1;
    this.query = "";
    this.marks = [];
    this.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.step(1);
    });
    this.form.addEventListener("click", (event) => {
      const action = event.target.closest("button[data-action]")?.dataset.action;
      if (action === "find-previous") this.step(-1);
      if (action === "find-close") this.close();
    });
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && event.shiftKey) {
        event.preventDefault();
        this.step(-1);
      } else if (event.key === "Escape") {
        event.preventDefault();
        this.close();
      }
    });
    // A match's page drawn later (or again, zoomed) gets its mark back.
    viewer.onPageText((view) => {
      const match = this.matches[this.index];
      if (match && match.page === view.number) this.markCurrent();
    });
  }

  open() {
    this.form.hidden = false;
    this.button.setAttribute("aria-expanded", "true");
    this.input.focus();
    this.input.select();
  }

  close() {
    this.form.hidden = true;
    this.button.setAttribute("aria-expanded", "false");
    this.clearMarks();
    this.viewer.container.focus();
  }

  async search(query) {
    this.query = query;
    this.matches = [];
    this.index = -1;
    if (!query) return;
    this.status.textContent = "Searching…";
    for (const view of this.viewer.views) {
      const pageText = await view.text();
      if (query !== this.query) return; // a newer search took over
      for (const [start, end] of pageText.findAll(query, { ignoreCase: true })) {
        this.matches.push({ page: view.number, start, end });
      }
    }
  }

  async step(direction) {
    const query = this.input.value.trim();
    if (query !== this.query) await this.search(query);
    if (!query) {
      this.status.textContent = "";
      return;
    }
    if (!this.matches.length) {
      this.status.textContent = "Not found";
      this.clearMarks();
      return;
    }
    const count = this.matches.length;
    this.index = this.index === -1 && direction < 0 ? count - 1 : (this.index + direction + count) % count;
    if (this.index < 0) this.index = 0;
    const match = this.matches[this.index];
    this.status.textContent = `${this.index + 1} of ${count} (page ${match.page})`;
    await this.viewer.reveal(match.page, match.start);
    this.markCurrent();
  }

  markCurrent() {
    this.clearMarks();
    const match = this.matches[this.index];
    const view = this.viewer.views[match.page - 1];
    this.marks = view.mark(match.start, match.end, "reader-find-match");
  }

  clearMarks() {
    for (const mark of this.marks) mark.remove();
    this.marks = [];
  }
}
