// The PDF reader (templates/pdfs/reader.html, docs/pdfs.md "Reader"): PDF.js from
// static/vendor/pdfjs/, its pages drawn only near the viewport, zoom, find, the outline, keys,
// #page=N and #highlight-ID, and the lab's highlights (highlights.js).
//
// The document's own JavaScript never runs: PDF.js runs it only through its viewer's scripting
// sandbox (pdf.sandbox.mjs: neither vendored nor used, this is not PDF.js's viewer; the
// equivalent of enableScripting: false), and isEvalSupported: false keeps PDF.js itself from
// compiling code with eval/new Function, which the CSP forbids anyway.

import { PageView } from "./pages.js";
import { Finder } from "./find.js";
import { setUpKeys } from "./keys.js";
import { showOutline } from "./outline.js";
import { Highlights } from "./highlights.js";

const ZOOMS = [0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2, 2.5, 3];
const PAGE_GAP = 12; // px between pages (reader.css's .reader-page margin)

class Viewer {
  constructor(root) {
    this.root = root;
    this.container = root.querySelector("[data-pages]");
    this.status = root.querySelector("[data-status]");
    this.pageInput = root.querySelector("#reader-page");
    this.zoomOutput = root.querySelector("[data-zoom]");
    this.views = [];
    this.scale = 1;
    this.textListeners = [];
    this.currentPage = 1;
  }

  async open() {
    const { dataset } = this.root;
    // The worker (the larger half of PDF.js) starts loading now, beside the library rather
    // than after it; PDF.js talks to it through workerPort.
    const worker = new Worker(dataset.workerUrl, { type: "module" });
    this.pdfjs = await import(dataset.pdfjsUrl);
    this.pdfjs.GlobalWorkerOptions.workerPort = worker;
    const assets = dataset.assetsUrl;
    this.pdf = await this.pdfjs.getDocument({
      url: dataset.pdfUrl,
      isEvalSupported: false,
      enableXfa: false,
      wasmUrl: `${assets}wasm/`,
      standardFontDataUrl: `${assets}standard_fonts/`,
      cMapUrl: `${assets}cmaps/`,
      iccUrl: `${assets}iccs/`,
    }).promise;
    const first = await this.pdf.getPage(1);
    const { width, height } = first.getViewport({ scale: 1 });
    this.scale = this.fitScale(width, { atMost: 1.5 });
    this.root.querySelector("[data-page-count]").textContent = String(this.pdf.numPages);
    this.status.remove();
    const fragment = document.createDocumentFragment();
    for (let n = 1; n <= this.pdf.numPages; n++) {
      const view = new PageView(this, n, { width, height });
      view.setScale(this.scale);
      this.views.push(view);
      fragment.append(view.div);
    }
    this.container.append(fragment);
    this.container.removeAttribute("aria-busy");
    this.showZoom();
    this.observe();
    this.container.addEventListener("scroll", () => this.trackPage(), { passive: true });
    this.root.dataset.ready = "true";
  }

  fitScale(pageWidth, { atMost = 4 } = {}) {
    const room = this.container.clientWidth - 2 * PAGE_GAP;
    return Math.max(0.25, Math.min(atMost, room / pageWidth));
  }

  // Pages are drawn when within a screen of the viewport and let go when far from it, so a
  // 300-page file opens as fast as a 3-page one and keeps a handful of canvases.
  observe() {
    const near = new IntersectionObserver(
      (entries) => {
        for (const entry of entries) {
          const view = this.views[Number(entry.target.dataset.pageNumber) - 1];
          view.near = entry.isIntersecting;
          if (entry.isIntersecting) view.render().catch((error) => this.fail(error));
          else view.release();
        }
      },
      { root: this.container, rootMargin: "100% 0px" },
    );
    for (const view of this.views) near.observe(view.div);
  }

  fail(error) {
    console.warn("Reader:", error);
  }

  trackPage() {
    const middle = this.container.scrollTop + this.container.clientHeight / 3;
    let page = 1;
    for (const view of this.views) {
      if (view.div.offsetTop <= middle) page = view.number;
      else break;
    }
    if (page !== this.currentPage) {
      this.currentPage = page;
      if (document.activeElement !== this.pageInput) this.pageInput.value = String(page);
    }
  }

  goToPage(number, { offset = 0 } = {}) {
    const n = Math.min(Math.max(1, Math.round(number) || 1), this.views.length);
    const view = this.views[n - 1];
    this.container.scrollTop = view.div.offsetTop - PAGE_GAP + offset;
    this.currentPage = n;
    this.pageInput.value = String(n);
    return view;
  }

  setScale(scale) {
    const clamped = Math.min(4, Math.max(0.25, scale));
    if (!this.views.length || clamped === this.scale) return;
    // Keep the same place of the same page at the top of the view.
    const view = this.views[this.currentPage - 1];
    const into = (this.container.scrollTop - view.div.offsetTop) / view.div.offsetHeight;
    this.scale = clamped;
    for (const each of this.views) each.setScale(clamped);
    this.container.scrollTop = view.div.offsetTop + into * view.div.offsetHeight;
    for (const each of this.views) {
      if (each.renderedScale) {
        each.renderedScale = -1; // stale: drawn again at once if still near
        each.render().catch((error) => this.fail(error));
      }
    }
    this.showZoom();
  }

  zoom(step) {
    const index = ZOOMS.findIndex((zoom) => zoom >= this.scale - 0.001);
    const at = index === -1 ? ZOOMS.length - 1 : index;
    const exact = Math.abs(ZOOMS[at] - this.scale) < 0.001;
    const next = step > 0 ? (exact ? at + 1 : at) : at - 1;
    this.setScale(ZOOMS[Math.min(ZOOMS.length - 1, Math.max(0, next))]);
  }

  fitWidth() {
    this.setScale(this.fitScale(this.views[this.currentPage - 1].baseSize.width));
  }

  showZoom() {
    this.zoomOutput.textContent = `${Math.round(this.scale * 100)}%`;
  }

  // Page text for find and anchoring, without drawing the page.
  pageText(number) {
    return this.views[number - 1].text();
  }

  onPageText(listener) {
    this.textListeners.push(listener);
    for (const view of this.views) if (view.textLayer) listener(view);
  }

  pageTextReady(view) {
    for (const listener of this.textListeners) listener(view);
  }

  // Scroll a range of a page into view (drawing the page first); resolves to its PageView.
  async reveal(pageNumber, start) {
    const view = this.goToPage(pageNumber);
    await view.render();
    await view.buildTextLayer(view.page.getViewport({ scale: this.scale }));
    const range = view.domRange(start, start + 1);
    const rect = range?.getBoundingClientRect();
    if (rect && rect.height) {
      const box = this.container.getBoundingClientRect();
      this.container.scrollTop += rect.top - box.top - box.height / 3;
    }
    return view;
  }

  // #page=N or #highlight-ID: where the address points.
  async followHash(highlights) {
    const hash = decodeURIComponent(window.location.hash.slice(1));
    const page = /^page=(\d+)$/.exec(hash);
    if (page) {
      this.goToPage(Number(page[1]));
      return;
    }
    const highlight = /^highlight-(\d+)$/.exec(hash);
    if (highlight) await highlights.show(Number(highlight[1]));
  }
}

async function start() {
  const root = document.querySelector(".reader[data-pdf-url]");
  if (!root) return;
  const viewer = new Viewer(root);
  try {
    await viewer.open();
  } catch (error) {
    viewer.status.textContent =
      "This PDF could not be opened here. Use “Stored PDF” on the paper's page to download it.";
    viewer.container.removeAttribute("aria-busy");
    console.warn("Reader:", error);
    return;
  }
  const finder = new Finder(viewer, root);
  const highlights = new Highlights(viewer, root);
  setUpKeys(viewer, finder, root);
  showOutline(viewer, root.querySelector("[data-outline]"));
  await highlights.load();
  await viewer.followHash(highlights);
  window.addEventListener("hashchange", () => viewer.followHash(highlights));
}

start();
