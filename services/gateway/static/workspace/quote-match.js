// Finding a citation's quote among a PDF page's text items, so the viewer can highlight it. Both
// sides are reduced to lower-case words; the longest run of the quote's words found in order on the
// page wins (extraction may split or join lines differently from the chunker). The result says which
// characters of which items the passage covers, so a line shared with the next sentence is only
// partly highlighted.
//
// A table row is quoted as "Group: Label — Column: value · Column: value." (shared/text/tables.py),
// which the page does not print as one run: its label and each of its values (figures, or the words
// of a ruled table's cell) are matched on their own, each at its first place after the label, so the
// row's label and cells light up.

const WORD = /[\p{L}\p{N}]+/gu;

export function words(text) {
  return text.toLowerCase().normalize("NFKC").match(WORD) || [];
}

function pageWords(items) {
  const out = [];
  items.forEach((item, index) => {
    for (const match of item.str.matchAll(WORD)) {
      out.push({ w: match[0].toLowerCase().normalize("NFKC"), index, from: match.index, to: match.index + match[0].length });
    }
  });
  return out;
}

function longestRun(page, wanted) {
  let best = { start: -1, length: 0 };
  const probe = Math.min(4, wanted.length);
  for (let offset = 0; offset + probe <= wanted.length && offset < 12; offset += 1) {
    for (let i = 0; i + probe <= page.length; i += 1) {
      let n = 0;
      while (i + n < page.length && offset + n < wanted.length && page[i + n].w === wanted[offset + n]) n += 1;
      if (n >= probe && n > best.length) best = { start: i, length: n };
    }
    if (best.length) break;
  }
  return best;
}

// A row's unit, "(in millions)", follows its cells: it is the table's note, not a figure of the row.
const ROW = /^(?:[^—]*?: )?([^—:]+?) — (.+?)(?: \(in (?:thousands|millions|billions)\))?\.?$/;
const FIGURE = /^\(?[-–—]?\$?\d[\d,]*(?:\.\d+)?\)?%?$|^[-–—]$/;

const MAX_HEADER_WORDS = 8;

function headed(cell) {
  const at = cell.indexOf(": ");
  const header = at < 0 ? null : cell.slice(0, at);
  return header && header.split(" ").length <= MAX_HEADER_WORDS ? { header, value: cell.slice(at + 2) } : { header: null, value: cell };
}

/** The label and values of a row quote (figures, or a ruled table's words); null for prose. */
export function rowParts(quote) {
  const match = ROW.exec(quote.trim());
  if (!match) return null;
  const cells = match[2].split(" · ");
  const figures = cells.map((cell) => cell.split(": ").pop().trim());
  if (figures.every((v) => FIGURE.test(v))) return { label: match[1], values: figures };
  // A row of words, told from prose with a dash as shared/text/tables.py tells it: two cells or more,
  // or one under its header.
  const parts = cells.map(headed);
  if (cells.length < 2 && !parts[0].header) return null;
  return { label: match[1], values: parts.map((part) => part.value.trim()) };
}

function addRun(spans, page, start, length) {
  for (const word of page.slice(start, start + length)) {
    const span = spans.get(word.index) || { index: word.index, from: word.from, to: word.to };
    span.from = Math.min(span.from, word.from);
    span.to = Math.max(span.to, word.to);
    spans.set(word.index, span);
  }
}

function firstRunAfter(page, wanted, after) {
  for (let i = after; i + wanted.length <= page.length; i += 1) {
    if (wanted.every((w, k) => page[i + k].w === w)) return i;
  }
  return -1;
}

/** [{index, from, to}]: the item and the character range of it that the quote covers; [] if absent. */
export function matchQuote(items, quote) {
  const page = pageWords(items);
  const row = rowParts(quote.split("…")[0]);
  const wanted = words(row ? row.label : quote.replace(/…/g, " "));
  if (!wanted.length || !page.length) return [];
  const best = longestRun(page, wanted);
  if (best.start < 0) return [];
  const spans = new Map();
  addRun(spans, page, best.start, best.length);
  let after = best.start + best.length;
  for (const value of row ? row.values : []) {
    const cell = words(value);
    const at = cell.length ? firstRunAfter(page, cell, after) : -1;
    if (at >= 0) {
      addRun(spans, page, at, cell.length);
      after = at + cell.length;
    } else if (cell.length > 1) {
      // A cell's words the page's text items give in another order than the quote (a ruled cell
      // wrapped over lines): its longest run lights up.
      const run = longestRun(page, cell);
      if (run.start >= 0) addRun(spans, page, run.start, run.length);
    }
  }
  return [...spans.values()];
}
