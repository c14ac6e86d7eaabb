// One page of the reader: a box of the page's size (reserved before anything is drawn, so
// nothing jumps), its canvas drawn only while it is near the viewport, the selectable text
// layer, and a layer for highlights and find matches.

import { PageText } from "./pagetext.js";

export class PageView {
  constructor(viewer, number, baseSize) {
    this.viewer = viewer;
    this.number = number;
    this.baseSize = baseSize; // {width, height} at scale 1, page 1's until this page is loaded
    this.page = null;
    this.pageText = null;
    this.textLayer = null;
    this.textReady = null;
    this.renderTask = null;
    this.renderedScale = 0;
    this.near = false; // within a screen of the viewport (set by the viewer's observer)
    this.div = document.createElement("div");
    this.div.className = "reader-page";
    this.div.dataset.pageNumber = String(number);
    this.div.setAttribute("role", "region");
    this.div.setAttribute("aria-label", `Page ${number}`);
    this.canvas = document.createElement("canvas");
    this.canvas.setAttribute("aria-hidden", "true");
    this.marks = document.createElement("div");
    this.marks.className = "reader-marks";
    this.textDiv = document.createElement("div");
    this.textDiv.className = "textLayer";
    this.div.append(this.canvas, this.marks, this.textDiv);
  }

  setScale(scale) {
    this.div.style.width = `${Math.floor(this.baseSize.width * scale)}px`;
    this.div.style.height = `${Math.floor(this.baseSize.height * scale)}px`;
    this.div.style.setProperty("--total-scale-factor", String(scale));
    if (this.textLayer) this.textLayer.update({ viewport: this.page.getViewport({ scale }) });
  }

  async load() {
    if (!this.page) {
      this.page = await this.viewer.pdf.getPage(this.number);
      const { width, height } = this.page.getViewport({ scale: 1 });
      if (width !== this.baseSize.width || height !== this.baseSize.height) {
        this.baseSize = { width, height };
        this.setScale(this.viewer.scale);
      }
    }
    return this.page;
  }

  async text() {
    if (!this.pageText) {
      const page = await this.load();
      this.textContent ??= await page.getTextContent();
      this.pageText ??= new PageText(this.textContent.items);
    }
    return this.pageText;
  }

  // Draw the canvas at the viewer's scale (and the text layer once); a page drawn at this scale
  // already is left alone.
  async render() {
    const scale = this.viewer.scale;
    if (this.renderedScale === scale || this.renderTask) return;
    const page = await this.load();
    const viewport = page.getViewport({ scale });
    const ratio = window.devicePixelRatio || 1;
    const canvas = document.createElement("canvas");
    canvas.setAttribute("aria-hidden", "true");
    canvas.width = Math.floor(viewport.width * ratio);
    canvas.height = Math.floor(viewport.height * ratio);
    this.renderTask = page.render({
      canvas,
      viewport,
      transform: ratio === 1 ? undefined : [ratio, 0, 0, ratio, 0, 0],
    });
    try {
      await this.renderTask.promise;
      // Swapped in whole once drawn: the old picture stays until the new one is ready.
      this.canvas.replaceWith(canvas);
      this.canvas = canvas;
      this.renderedScale = scale;
      this.div.dataset.rendered = "true";
    } catch (error) {
      if (error?.name !== "RenderingCancelledException") throw error;
    } finally {
      this.renderTask = null;
    }
    // Zoomed while drawing: draw again at the new scale if the page is still in view.
    if (this.near && this.renderedScale !== this.viewer.scale) this.render();
    this.buildTextLayer(viewport);
  }

  buildTextLayer(viewport) {
    if (this.textReady) return this.textReady;
    this.textReady = (async () => {
      await this.text();
      const { TextLayer } = this.viewer.pdfjs;
      this.textLayer = new TextLayer({
        textContentSource: this.textContent,
        container: this.textDiv,
        viewport,
      });
      await this.textLayer.render();
      const end = document.createElement("div");
      end.className = "endOfContent";
      this.textDiv.append(end);
      this.viewer.pageTextReady(this);
    })();
    return this.textReady;
  }

  // Far from the viewport: give the canvas's memory back (the box keeps its size).
  release() {
    this.renderTask?.cancel();
    if (this.renderedScale) {
      this.canvas.width = 0;
      this.canvas.height = 0;
      this.renderedScale = 0;
      delete this.div.dataset.rendered;
    }
  }

  // The text layer's DOM range for code points [start, end) of the page text.
  domRange(start, end) {
    const spans = this.textLayer?.textDivs;
    if (!spans || !this.pageText) return null;
    const text = this.pageText;
    const point = (unit) => {
      const index = text.itemAt(unit);
      const node = spans[index]?.firstChild;
      const offset = Math.min(unit - text.itemStarts[index], node?.length ?? 0);
      return node ? [node, offset] : null;
    };
    const from = point(text.toUnit(start));
    const to = point(text.toUnit(end));
    if (!from || !to) return null;
    const range = document.createRange();
    range.setStart(...from);
    range.setEnd(...to);
    return range;
  }

  // Code points of a DOM boundary point in this page's text layer.
  pointOf(node, offset) {
    const spans = this.textLayer?.textDivs ?? [];
    const text = this.pageText;
    const index = spans.indexOf(node.parentNode);
    if (node.nodeType === Node.TEXT_NODE && index !== -1) {
      return text.toPoint(text.itemStarts[index] + offset);
    }
    const probe = document.createRange();
    probe.setStart(node, offset);
    for (let i = 0; i < spans.length; i++) {
      if (spans[i].isConnected && probe.comparePoint(spans[i], 0) >= 0) {
        return text.toPoint(text.itemStarts[i]);
      }
    }
    return text.length;
  }

  // Boxes of a range in percent of the page, so they scale with it.
  boxes(start, end) {
    const range = this.domRange(start, end);
    if (!range) return [];
    const page = this.div.getBoundingClientRect();
    return [...range.getClientRects()]
      .filter((rect) => rect.width > 0.5 && rect.height > 0.5)
      .map((rect) => ({
        left: (100 * (rect.left - page.left)) / page.width,
        top: (100 * (rect.top - page.top)) / page.height,
        width: (100 * rect.width) / page.width,
        height: (100 * rect.height) / page.height,
      }));
  }

  // Mark a range on this page: elements placed in percent over the text, under its layer.
  mark(start, end, className) {
    const elements = this.boxes(start, end).map((box) => {
      const element = document.createElement("span");
      element.className = className;
      element.style.left = `${box.left}%`;
      element.style.top = `${box.top}%`;
      element.style.width = `${box.width}%`;
      element.style.height = `${box.height}%`;
      this.marks.append(element);
      return element;
    });
    return elements;
  }
}
