// Page text: the coordinate system highlights are stored in (shared with the server's
// highlights app, issue 26).
//
// The text of page N (1-based) is PDF.js's `page.getTextContent()` items' `str` concatenated,
// with "\n" appended after an item whose `hasEOL` is true. A highlight's `start` and `end`
// count Unicode code points in that text (not JavaScript's UTF-16 units: "𝑥" is one), `exact`
// is the text between them, `prefix` and `suffix` up to CONTEXT code points before and after.
// The quote (exact with prefix and suffix) identifies the place; the position is only a hint
// (W3C Web Annotation: TextQuoteSelector and TextPositionSelector).

export const CONTEXT = 32;

export class PageText {
  constructor(items) {
    // Marked-content items have no `str`; getTextContent() leaves them out by default, and the
    // text layer skips them too, so item i here is the text layer's textDivs[i].
    this.items = items.filter((item) => item.str !== undefined);
    this.itemStarts = []; // UTF-16 offset of each item's first unit in `text`
    let text = "";
    for (const item of this.items) {
      this.itemStarts.push(text.length);
      text += item.str + (item.hasEOL ? "\n" : "");
    }
    this.text = text;
    // Code point index <-> UTF-16 offset, both ways, for the whole page.
    this.pointUnits = [];
    this.unitPoints = new Int32Array(text.length + 1);
    let unit = 0;
    for (const char of text) {
      for (let k = 0; k < char.length; k++) this.unitPoints[unit + k] = this.pointUnits.length;
      this.pointUnits.push(unit);
      unit += char.length;
    }
    this.unitPoints[text.length] = this.pointUnits.length;
    this.pointUnits.push(text.length);
  }

  get length() {
    return this.pointUnits.length - 1; // in code points
  }

  toUnit(point) {
    return this.pointUnits[Math.max(0, Math.min(point, this.length))];
  }

  toPoint(unit) {
    return this.unitPoints[Math.max(0, Math.min(unit, this.text.length))];
  }

  slice(startPoint, endPoint) {
    return this.text.slice(this.toUnit(startPoint), this.toUnit(endPoint));
  }

  // The selectors of the text between two code point offsets.
  quote(start, end) {
    return {
      start,
      end,
      exact: this.slice(start, end),
      prefix: this.slice(Math.max(0, start - CONTEXT), start),
      suffix: this.slice(end, Math.min(this.length, end + CONTEXT)),
    };
  }

  // The item holding a UTF-16 offset (the one before it for the "\n" after an item).
  itemAt(unit) {
    let low = 0;
    let high = this.itemStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.itemStarts[middle] <= unit) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  // Every place `exact` occurs, as [start, end] in code points.
  findAll(exact, { ignoreCase = false } = {}) {
    const found = [];
    if (!exact) return found;
    let haystack = this.text;
    let needle = exact;
    // Lower-casing keeps offsets only where it keeps lengths (it does for nearly all text).
    if (ignoreCase && haystack.toLowerCase().length === haystack.length) {
      haystack = haystack.toLowerCase();
      needle = needle.toLowerCase();
    }
    for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
      found.push([this.toPoint(at), this.toPoint(at + needle.length)]);
    }
    return found;
  }
}

// How well a place [start, end] on this page fits a stored quote: matching context counts most,
// the stored position breaks ties (several occurrences of one phrase).
export function placeScore(pageText, [start, end], { prefix = "", suffix = "", start: hint }) {
  const before = pageText.slice(Math.max(0, start - CONTEXT), start);
  const after = pageText.slice(end, end + CONTEXT);
  let score = commonSuffix(before, prefix) + commonPrefix(after, suffix);
  if (Number.isInteger(hint)) score -= Math.min(Math.abs(start - hint), 10_000) / 10_000;
  return score;
}

function commonPrefix(a, b) {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

function commonSuffix(a, b) {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

// Where a highlight's quote is now: on its stored page if it is there (the best fitting place),
// else the best fitting place on any page, the nearer page winning a tie. Returns
// {page, start, end}, or null when no page holds the quote (orphaned).
export async function relocate(highlight, pageCount, getPageText) {
  const home = Math.min(Math.max(1, highlight.page || 1), pageCount);
  const homeText = await getPageText(home);
  const atHome = best(homeText, homeText.findAll(highlight.exact), highlight);
  if (atHome) return { page: home, ...atHome };
  let found = null;
  const elsewhere = { ...highlight, start: undefined };
  for (let page = 1; page <= pageCount; page++) {
    if (page === home) continue;
    const pageText = await getPageText(page);
    const place = best(pageText, pageText.findAll(highlight.exact), elsewhere);
    if (!place) continue;
    const score = place.score - Math.abs(page - home) / (pageCount + 1);
    if (!found || score > found.score) found = { page, start: place.start, end: place.end, score };
  }
  return found && { page: found.page, start: found.start, end: found.end };
}

function best(pageText, places, hint) {
  let chosen = null;
  for (const place of places) {
    const score = placeScore(pageText, place, hint);
    if (!chosen || score > chosen.score) chosen = { start: place[0], end: place[1], score };
  }
  return chosen;
}
