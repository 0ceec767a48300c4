// Finding a citation's quote among a PDF page's text items, so the viewer can highlight it. Both
// sides are reduced to lower-case words; the longest run of the quote's words found in order on the
// page wins (extraction may split or join lines differently from the chunker).

const WORD = /[\p{L}\p{N}]+/gu;

export function words(text) {
  return (text.toLowerCase().normalize("NFKC").match(WORD) || []);
}

/** Indexes of the items covering the quote, or [] when it is not on the page. */
export function matchQuote(items, quote) {
  const page = [];
  items.forEach((item, index) => {
    for (const w of words(item.str)) page.push({ w, index });
  });
  const wanted = words(quote.replace(/…/g, " "));
  if (!wanted.length || !page.length) return [];
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
  if (best.start < 0) return [];
  const covered = new Set();
  for (let i = best.start; i < best.start + best.length; i += 1) covered.add(page[i].index);
  return [...covered];
}
