// Right panel: the citations of the selected answer — title, page, the quote. A document source opens
// the PDF viewer at its page; a web source opens its address in a new tab.
//
// The panel collapses to a peek strip (the count of sources, one click to open). It opens by itself
// when an answer with sources arrives; below 1,024 px it is a drawer over the chat, reached from the
// strip (a bar above the chat on a phone).

import { html } from "../common/html.js";
import { DocIcon, GlobeIcon } from "./icons.js";

export function SourcesPanel({ message, open, onToggle, onOpen }) {
  const citations = message?.meta?.citations || [];
  if (!open) {
    return html`
      <button type="button" class="peek" data-testid="sources-peek" aria-expanded="false"
        data-count=${citations.length} onClick=${onToggle} title="Show sources">
        <span class="peek-icon" aria-hidden="true">❮</span>
        <span class="peek-label">Sources</span>
        ${citations.length > 0 && html`<span class="peek-count">${citations.length}</span>`}
      </button>
    `;
  }
  return html`
    <section class="section sources" id="sources-panel" aria-labelledby="src-h" data-testid="sources-panel">
      <div class="section-head">
        <h2 id="src-h">Sources</h2>${citations.length > 0 && html`<span class="count">${citations.length}</span>`}
        <button type="button" class="icon collapse" data-testid="sources-collapse" aria-expanded="true" aria-controls="sources-panel"
          aria-label="Hide sources" title="Hide sources" onClick=${onToggle}>❯</button>
      </div>
      ${!message && html`<p class="empty">The passages an answer is based on appear here. Click a [n] marker or a source to open the document at that line.</p>`}
      ${message && !citations.length && html`<p class="empty">This answer cites no sources.</p>`}
      <ol class="source-list">
        ${citations.map(
          (c) => html`
            <li key=${c.n}>
              <button type="button" class="source" data-testid="source-item" data-n=${c.n} onClick=${() => onOpen(c)}>
                <span class="source-head">
                  <span class="source-n">${c.n}</span>
                  <span class="source-title">${c.source_type === "web" ? html`<${GlobeIcon} />` : html`<${DocIcon} />`} ${c.title}</span>
                  <span class="source-where">${c.source_type === "web" ? "web ↗" : c.page ? `p. ${c.page}` : ""}</span>
                </span>
                <span class="source-quote">“${c.quote}”</span>
                ${c.source_type === "web" && html`<span class="visually-hidden">(opens a new tab)</span>`}
              </button>
            </li>
          `,
        )}
      </ol>
    </section>
  `;
}
