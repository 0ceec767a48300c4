// Answers and quotes are untrusted (model output, document text): Markdown is rendered with marked,
// sanitised with DOMPurify, and only then are `[n]` markers turned into citation buttons, built with
// DOM calls so no string from the answer ever becomes markup.

import DOMPurify from "../vendor/dompurify/purify.es.mjs";
import { marked } from "../vendor/marked/marked.esm.js";

const PURIFY = {
  FORBID_TAGS: ["style", "img", "form", "input", "button", "textarea", "select", "iframe", "svg", "math"],
  FORBID_ATTR: ["style", "class", "id"],
  RETURN_DOM_FRAGMENT: true,
};
const CITATION = /\[(\d{1,3})\]/g;

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer nofollow");
  }
});

/** A sanitised fragment of `text`; `[n]` becomes a citation button when `n` is a known citation.
 * `citations` maps n to its citation, whose source and quote the button shows on hover and focus. */
export function renderMarkdown(text, citations = new Map()) {
  const fragment = DOMPurify.sanitize(marked.parse(text || "", { gfm: true, async: false }), PURIFY);
  linkCitations(fragment, citations);
  for (const table of fragment.querySelectorAll("table")) {
    const wrap = document.createElement("div");
    wrap.className = "table-wrap";
    table.replaceWith(wrap);
    wrap.append(table);
  }
  return fragment;
}

function linkCitations(fragment, citations) {
  if (!citations.size) return;
  const walker = document.createTreeWalker(fragment, NodeFilter.SHOW_TEXT);
  const hits = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement?.closest("code, pre, a")) continue;
    CITATION.lastIndex = 0;
    if (CITATION.test(node.data)) hits.push(node);
  }
  for (const node of hits) node.replaceWith(...splitCitations(node.data, citations));
}

function splitCitations(text, citations) {
  const parts = [];
  let last = 0;
  for (const match of text.matchAll(CITATION)) {
    const n = Number(match[1]);
    if (!citations.has(n)) continue;
    if (match.index > last) parts.push(document.createTextNode(text.slice(last, match.index)));
    const button = document.createElement("button");
    button.type = "button";
    button.className = "cite";
    button.dataset.cite = String(n);
    button.dataset.testid = "citation";
    const citation = citations.get(n);
    const where = citation?.source_type === "web" ? "web" : citation?.page ? `p. ${citation.page}` : "";
    // A plain attribute, shown by CSS attr(): the quote stays text whatever it contains.
    if (citation?.quote) button.dataset.quote = `${citation.title}${where ? `, ${where}` : ""}: “${citation.quote}”`;
    const hint = document.createElement("span");
    hint.className = "visually-hidden";
    hint.textContent = citation?.title ? ` (open source: ${citation.title})` : " (open source)";
    // The feature spec's citation icons (📄 a document, 🌐 the web), numbered to match the sources panel.
    const icon = document.createElement("span");
    icon.setAttribute("aria-hidden", "true");
    icon.textContent = citation?.source_type === "web" ? "🌐" : "📄";
    button.append(icon, `${n}`, hint);
    parts.push(button);
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push(document.createTextNode(text.slice(last)));
  return parts;
}
