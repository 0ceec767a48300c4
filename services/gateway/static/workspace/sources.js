// Right panel: the citations of the selected answer — title, page, the quote. A document source opens
// the PDF viewer at its page; a web source opens its address in a new tab.

import { html } from "./html.js";

export function SourcesPanel({ message, onOpen }) {
  const citations = message?.meta?.citations || [];
  return html`
    <section class="section sources" aria-labelledby="src-h">
      <div class="section-head"><h2 id="src-h">Sources</h2>${citations.length > 0 && html`<span class="count">${citations.length}</span>`}</div>
      ${!message && html`<p class="empty">The passages an answer is based on appear here. Click a [n] marker or a source to open the document at that line.</p>`}
      ${message && !citations.length && html`<p class="empty">This answer cites no sources.</p>`}
      <ol class="source-list">
        ${citations.map(
          (c) => html`
            <li key=${c.n}>
              <button type="button" class="source" data-testid="source-item" data-n=${c.n} onClick=${() => onOpen(c)}>
                <span class="source-head">
                  <span class="source-n">${c.n}</span>
                  <span class="source-title">${c.title}</span>
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
