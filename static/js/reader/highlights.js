// Highlights in the reader, against the highlights app's JSON endpoints (docs/highlights.md):
// select text → "Highlight" (or the h key) → an optional note, Enter → saved with the member's
// remembered visibility (private or lab) and drawn: three actions. The lab's highlights are
// drawn on their pages (who made them, a link to their thread); a click on one shows its note,
// and the member's own can be switched between private and lab in one click, edited or
// deleted. Quotes show with the PDF's line breaks joined (item.quote, highlights/quotes.py).
// Positions are pagetext.js's.
// A highlight the server asks to anchor again (a new file) is looked for by its quote; the place
// found, or orphaned=1, is reported when the server lets this member move it (its author or a
// curator: item.can_anchor), else only drawn there; orphaned ones stay listed in the sidebar.

import { relocate } from "./pagetext.js";
import { openSidebar } from "./keys.js";

export class Highlights {
  constructor(viewer, root) {
    this.viewer = viewer;
    this.root = root;
    this.listUrl = root.dataset.highlightsUrl;
    this.itemUrl = root.dataset.highlightUrl; // ".../0/edit/": 0 and "edit" replaced per call
    this.csrf = root.querySelector("[name=csrfmiddlewaretoken]")?.value ?? "";
    this.list = root.querySelector("[data-highlight-list]");
    this.items = new Map();
    this.marks = new Map(); // id -> elements drawn
    this.canAnnotate = false;
    this.defaultVisibility = "private";
    this.button = this.makeButton();
    this.popover = document.createElement("div");
    this.popover.className = "reader-popover";
    this.popover.setAttribute("role", "dialog");
    this.popover.setAttribute("aria-label", "Highlight");
    this.popover.hidden = true;
    root.append(this.popover);
    viewer.onPageText((view) => this.drawPage(view));
    document.addEventListener("selectionchange", () => this.selectionChanged());
    viewer.container.addEventListener("click", (event) => this.clicked(event));
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && !this.popover.hidden) this.closePopover();
      else if (isHighlightKey(event) && !this.button.hidden) {
        event.preventDefault();
        this.compose();
      }
    });
  }

  async load() {
    let data;
    try {
      const response = await fetch(this.listUrl, { headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      data = await response.json();
    } catch (error) {
      this.list.replaceChildren(note("Highlights could not be loaded."));
      console.warn("Reader: highlights", error);
      return;
    }
    this.canAnnotate = Boolean(data.can_annotate);
    this.defaultVisibility = data.default_visibility || "private";
    for (const item of data.highlights) this.items.set(item.id, item);
    this.showList();
    this.list.dataset.loaded = "true";
    for (const view of this.viewer.views) if (view.textLayer) this.drawPage(view);
    await this.anchorAgain();
  }

  // Highlights made on another version of the file: found again by their quote. Its author
  // (or a curator) reports the place, which settles it for all; another member's reader only
  // draws it where it was found, for this visit.
  async anchorAgain() {
    for (const item of [...this.items.values()]) {
      if (!item.needs_anchor) continue;
      const place = await relocate(item, this.viewer.views.length, (n) => this.viewer.pageText(n));
      let fields = { orphaned: "1" };
      if (place) {
        const pageText = await this.viewer.pageText(place.page);
        const { prefix, suffix } = pageText.quote(place.start, place.end);
        fields = { page: place.page, start: place.start, end: place.end, prefix, suffix };
      }
      if (!item.can_anchor) {
        if (place) this.replace({ ...item, ...fields, needs_anchor: false });
        continue;
      }
      const saved = await this.post(this.url(item.id, "anchor"), fields);
      if (saved.ok) this.replace(saved.data);
    }
  }

  url(id, action) {
    return this.itemUrl.replace(/\/0\/edit\/$/, `/${id}/${action}/`);
  }

  async post(url, fields) {
    const response = await fetch(url, {
      method: "POST",
      headers: { "X-CSRFToken": this.csrf, Accept: "application/json" },
      body: new URLSearchParams(Object.entries(fields).map(([k, v]) => [k, String(v)])),
    });
    let data = {};
    try {
      data = await response.json();
    } catch {
      data = { errors: { __all__: [`The server answered ${response.status}.`] } };
    }
    return { ok: response.ok, data };
  }

  replace(item) {
    this.undraw(item.id);
    this.items.set(item.id, item);
    const view = this.viewer.views[item.page - 1];
    if (view?.textLayer) this.drawPage(view);
    this.showList();
  }

  undraw(id) {
    for (const element of this.marks.get(id) ?? []) element.remove();
    this.marks.delete(id);
  }

  drawPage(view) {
    for (const item of this.items.values()) {
      if (item.page !== view.number || item.orphaned || item.needs_anchor) continue;
      this.undraw(item.id);
      const kind = item.visibility === "lab" ? "is-lab" : "is-private";
      const elements = view.mark(item.start, item.end, `reader-highlight ${kind}`);
      for (const element of elements) {
        element.dataset.highlightId = String(item.id);
        element.title = item.mine ? "Your highlight" : `Highlighted by ${item.author}`;
      }
      this.marks.set(item.id, elements);
    }
  }

  showList() {
    const items = [...this.items.values()].sort(
      (a, b) => Number(a.orphaned) - Number(b.orphaned) || a.page - b.page || a.start - b.start,
    );
    if (!items.length) {
      this.list.replaceChildren(note(this.canAnnotate ? "None yet: select text to highlight it." : "None."));
      return;
    }
    this.list.replaceChildren(
      ...items.map((item) => {
        const entry = document.createElement("li");
        entry.id = `highlight-item-${item.id}`;
        if (item.orphaned) entry.classList.add("is-orphaned");
        const link = document.createElement("a");
        link.href = `#highlight-${item.id}`;
        link.textContent = `“${shorten(item.quote, 80)}”`;
        const where = document.createElement("span");
        where.className = "muted";
        where.textContent = item.orphaned
          ? " — not found in this version of the PDF"
          : ` — p. ${item.page}${item.mine ? "" : `, ${item.author}`}${item.visibility === "lab" ? "" : ", private"}`;
        entry.append(link, where);
        if (item.mine) entry.append(" ", this.visibilitySwitch(item));
        if (item.note) entry.append(paragraph(item.note, "reader-highlight-note"));
        return entry;
      }),
    );
  }

  async show(id) {
    const item = this.items.get(id);
    if (!item) return;
    if (item.orphaned || item.needs_anchor) {
      openSidebar(this.root);
      document.getElementById(`highlight-item-${id}`)?.scrollIntoView({ block: "nearest" });
      return;
    }
    await this.viewer.reveal(item.page, item.start);
    const first = this.marks.get(id)?.[0];
    if (first) this.openPopover(item, first.getBoundingClientRect());
  }

  // The "Highlight" button by the selection, for a member, over one page's text.
  makeButton() {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "reader-highlight-button";
    button.textContent = "Highlight";
    button.title = "Highlight the selected text (h)";
    button.hidden = true;
    button.addEventListener("mousedown", (event) => event.preventDefault()); // keep the selection
    button.addEventListener("click", () => this.compose());
    this.root.append(button);
    return button;
  }

  selectedPlace() {
    const selection = document.getSelection();
    if (!selection || selection.isCollapsed || !selection.rangeCount) return null;
    const range = selection.getRangeAt(0);
    const pageDiv = startElement(range).closest?.(".reader-page");
    const view = pageDiv && this.viewer.views[Number(pageDiv.dataset.pageNumber) - 1];
    if (!view?.textLayer || !this.viewer.container.contains(pageDiv)) return null;
    const start = view.pointOf(range.startContainer, range.startOffset);
    // A selection running on into the next page ends with this one.
    const end = view.div.contains(range.endContainer)
      ? view.pointOf(range.endContainer, range.endOffset)
      : view.pageText.length;
    if (end <= start || !view.pageText.slice(start, end).trim()) return null;
    return { view, range, start, end };
  }

  selectionChanged() {
    const place = this.canAnnotate && this.popover.hidden ? this.selectedPlace() : null;
    if (!place) {
      this.button.hidden = true;
      return;
    }
    const rects = place.range.getClientRects();
    const last = rects[rects.length - 1] ?? place.range.getBoundingClientRect();
    this.button.hidden = false;
    placeNear(this.button, last);
  }

  compose() {
    const place = this.selectedPlace();
    this.button.hidden = true;
    if (!place) return;
    const { view, start, end } = place;
    const quote = view.pageText.quote(start, end);
    const rect = place.range.getBoundingClientRect();
    const form = this.visibilityForm({ note: "", visibility: this.defaultVisibility }, "Save highlight");
    form.prepend(paragraph(`“${shorten(joinLines(quote.exact), 200)}”`, "reader-popover-quote"));
    // Enter saves, as the third action; Shift+Enter starts a new line of the note.
    form.elements.note.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const fields = { page: view.number, ...quote, ...formFields(form) };
      const saved = await this.post(this.listUrl, fields);
      if (!saved.ok) return showErrors(form, saved.data.errors);
      this.defaultVisibility = saved.data.visibility;
      document.getSelection()?.removeAllRanges();
      this.closePopover();
      this.replace(saved.data);
    });
    this.openWith(form, rect);
  }

  clicked(event) {
    if (!document.getSelection()?.isCollapsed) return;
    for (const [id, elements] of this.marks) {
      for (const element of elements) {
        const box = element.getBoundingClientRect();
        if (
          event.clientX >= box.left && event.clientX <= box.right &&
          event.clientY >= box.top && event.clientY <= box.bottom
        ) {
          this.openPopover(this.items.get(id), box);
          return;
        }
      }
    }
  }

  // A highlight's note, who made it, its thread; the member's own can be changed or deleted.
  openPopover(item, rect) {
    const body = document.createElement("div");
    body.append(paragraph(`“${shorten(item.quote, 200)}”`, "reader-popover-quote"));
    const who = item.mine ? "You" : item.author;
    const about = paragraph(`${who} · ${item.visibility === "lab" ? "shared with the lab" : "private"} · p. ${item.page} `, "muted");
    if (item.mine) about.append(this.visibilitySwitch(item));
    body.append(about);
    if (item.note) body.append(paragraph(item.note, "reader-highlight-note"));
    if (item.visibility === "lab" && item.thread_url) {
      const link = document.createElement("a");
      link.href = item.thread_url;
      link.textContent = item.replies ? `Replies (${item.replies})` : "Reply";
      body.append(link);
    }
    if (item.mine) {
      const form = this.visibilityForm(item, "Save");
      form.addEventListener("submit", async (event) => {
        event.preventDefault();
        const saved = await this.post(this.url(item.id, "edit"), formFields(form));
        if (!saved.ok) return showErrors(form, saved.data.errors);
        this.closePopover();
        this.replace(saved.data);
      });
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "secondary";
      remove.textContent = "Delete";
      remove.addEventListener("click", async () => {
        const done = await this.post(this.url(item.id, "delete"), {});
        if (!done.ok) return showErrors(form, done.data.errors);
        this.undraw(item.id);
        this.items.delete(item.id);
        this.closePopover();
        this.showList();
      });
      form.querySelector(".reader-popover-actions").append(remove);
      body.append(form);
    } else {
      body.append(this.closeButton());
    }
    this.openWith(body, rect);
  }

  // One click: private ↔ lab, through the edit endpoint (making it private withdraws its thread).
  visibilitySwitch(item) {
    const toggle = document.createElement("button");
    toggle.type = "button";
    toggle.className = "link reader-visibility-switch";
    const next = item.visibility === "lab" ? "private" : "lab";
    toggle.textContent = next === "lab" ? "Share with the lab" : "Make private";
    toggle.addEventListener("click", async () => {
      const saved = await this.post(this.url(item.id, "edit"), { visibility: next });
      if (!saved.ok) {
        toggle.textContent = Object.values(saved.data.errors ?? {}).flat().join(" ") || "Not saved.";
        return;
      }
      this.defaultVisibility = saved.data.visibility;
      const wasOpen = !this.popover.hidden;
      this.closePopover();
      this.replace(saved.data);
      if (wasOpen) await this.show(item.id);
    });
    return toggle;
  }

  visibilityForm(item, label) {
    const form = document.createElement("form");
    form.className = "reader-popover-form";
    const id = `hl-note-${item.id ?? "new"}`;
    const noteLabel = document.createElement("label");
    noteLabel.htmlFor = id;
    noteLabel.textContent = "Note (optional)";
    const textarea = document.createElement("textarea");
    textarea.id = id;
    textarea.name = "note";
    textarea.rows = 3;
    textarea.value = item.note || "";
    const choice = document.createElement("fieldset");
    const legend = document.createElement("legend");
    legend.textContent = "Who sees it";
    choice.append(legend);
    for (const [value, text] of [["private", "Only me"], ["lab", "The lab"]]) {
      const label = document.createElement("label");
      const radio = document.createElement("input");
      radio.type = "radio";
      radio.name = "visibility";
      radio.value = value;
      radio.checked = item.visibility === value;
      label.append(radio, ` ${text}`);
      choice.append(label);
    }
    const errors = document.createElement("p");
    errors.className = "reader-popover-errors";
    errors.setAttribute("role", "alert");
    const actions = document.createElement("div");
    actions.className = "reader-popover-actions";
    const save = document.createElement("button");
    save.type = "submit";
    save.textContent = label;
    actions.append(save, this.closeButton());
    form.append(noteLabel, textarea, choice, errors, actions);
    return form;
  }

  closeButton() {
    const close = document.createElement("button");
    close.type = "button";
    close.className = "secondary";
    close.textContent = "Close";
    close.addEventListener("click", () => this.closePopover());
    return close;
  }

  openWith(content, rect) {
    this.popover.replaceChildren(content);
    this.popover.hidden = false;
    placeNear(this.popover, rect);
    this.popover.querySelector("textarea, a, button")?.focus({ preventScroll: true });
  }

  closePopover() {
    this.popover.hidden = true;
    this.popover.replaceChildren();
  }
}

// Fixed just under a rectangle of the viewport, kept on screen.
function placeNear(element, rect) {
  const margin = 8;
  const width = element.offsetWidth || 200;
  const height = element.offsetHeight || 40;
  let left = Math.min(rect.left, window.innerWidth - width - margin);
  let top = rect.bottom + margin;
  if (top + height > window.innerHeight - margin) top = Math.max(margin, rect.top - height - margin);
  element.style.left = `${Math.max(margin, left)}px`;
  element.style.top = `${top}px`;
}

// The h key highlights the selection (the reader's other keys are n, p, +, −, 0: keys.js).
function isHighlightKey(event) {
  if (event.key !== "h" || event.ctrlKey || event.metaKey || event.altKey) return false;
  return !event.target.closest?.("input, textarea, select, [contenteditable], dialog");
}

// The quote as people read it: the mirror of highlights/quotes.py (same rule, same words). A
// line-end hyphen before a lowercase letter is dropped unless either piece of the word already
// holds one or the piece before is "self" or "cross"; other line breaks become one space.
const BROKEN_WORD = /([\p{L}\p{N}_-]*?)([\p{L}\p{N}_]+)([-\u00ad])[ \t]*\n\s*([\p{L}\p{N}_]+(?:-[\p{L}\p{N}_]+)*)/gu;
const ALWAYS_HYPHENATED = new Set(["self", "cross"]);

export function joinLines(text) {
  let previous;
  do {
    previous = text;
    text = text.replace(BROKEN_WORD, (_, compound, before, hyphen, after) => {
      if (hyphen === "\u00ad") return compound + before + after;
      const keep =
        after[0] === after[0].toUpperCase() ||
        compound.includes("-") ||
        after.includes("-") ||
        ALWAYS_HYPHENATED.has(before.toLowerCase());
      return compound + before + (keep ? "-" : "") + after;
    });
  } while (text !== previous);
  return text.replace(/\s*\n\s*/g, " ").trim();
}

function startElement(range) {
  const node = range.startContainer;
  return node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
}

function formFields(form) {
  const data = new FormData(form);
  return { note: data.get("note") ?? "", visibility: data.get("visibility") ?? "private" };
}

function showErrors(form, errors = {}) {
  const messages = Object.values(errors).flat();
  form.querySelector(".reader-popover-errors").textContent =
    messages.join(" ") || "This could not be saved.";
}

function paragraph(text, className) {
  const p = document.createElement("p");
  p.className = className;
  p.textContent = text;
  return p;
}

function note(text) {
  const item = document.createElement("li");
  item.className = "muted";
  item.textContent = text;
  return item;
}

function shorten(text, length) {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}
