// PalReasoning: each `status` event's message as it arrives (with the documents found and the web
// query), and once the answer is in, the same steps folded into a "steps" disclosure.

import { html } from "../common/html.js";

function StepDetail({ step }) {
  return html`
    ${step.docs_found?.length > 0 && html`<span class="step-docs">${step.docs_found.map((d) => html`<span class="chip">📄 ${d.title}</span>`)}</span>`}
    ${step.web_query && html`<span class="step-web"><span aria-hidden="true">🔍</span> “${step.web_query}”</span>`}
  `;
}

export function StatusLine({ steps }) {
  const current = steps.at(-1);
  return html`
    <div class="status-line" data-testid="status-line" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true"></span>
      <span class="status-now">${current ? current.message : "Starting…"}</span>
      <ol class="status-trail">
        ${steps.map((s, i) => html`<li key=${i} data-node=${s.node} class=${i === steps.length - 1 ? "now" : "done"}>${s.message}<${StepDetail} step=${s} /></li>`)}
      </ol>
    </div>
  `;
}

export function Steps({ steps }) {
  return html`
    <details class="steps">
      <summary>${steps.length} steps</summary>
      <ol>${steps.map((s, i) => html`<li key=${i} data-node=${s.node}>${s.message}<${StepDetail} step=${s} /></li>`)}</ol>
    </details>
  `;
}
