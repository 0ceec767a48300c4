// The waiting tickets, newest escalation first, each with the customer's question and how long
// they have waited. Selecting one opens it on the right.

import { html } from "../common/html.js";
import { useNow, waited } from "./time.js";

function host(origin) {
  try {
    return new URL(origin).host;
  } catch {
    return origin || "";
  }
}

export function Queue({ tickets, selectedId, onSelect, live }) {
  const now = useNow();
  return html`
    <nav class="queue" aria-label="Waiting tickets">
      <div class="queue-head">
        <h2>Waiting for an answer</h2>
        <span class="count" aria-label="${tickets.length} waiting">${tickets.length}</span>
      </div>
      <p class=${`live ${live ? "on" : "off"}`} role="status">
        <span class="dot"></span>${live ? "Live — new questions appear here" : "Reconnecting…"}
      </p>
      ${tickets.length === 0
        ? html`<div class="empty">
            <p class="empty-title">All caught up</p>
            <p>No customer is waiting. Escalated questions appear here the moment they happen.</p>
          </div>`
        : html`<ul class="tickets">
            ${tickets.map(
              (t) => html`<li key=${t.id}>
                <button
                  class=${`ticket ${t.id === selectedId ? "selected" : ""}`}
                  data-testid="ticket-item"
                  data-ticket-id=${t.id}
                  aria-current=${t.id === selectedId ? "true" : undefined}
                  onClick=${() => onSelect(t.id)}
                >
                  <span class="ticket-top">
                    <span class="number">#${t.number}</span>
                    <span class="site">${host(t.origin)}</span>
                    <span class="waited" title=${new Date(t.updated_at).toLocaleString()}>${waited(t.updated_at, now)}</span>
                  </span>
                  <span class="question">${t.question || "(no question recorded)"}</span>
                </button>
              </li>`,
            )}
          </ul>`}
    </nav>
  `;
}
