// One labelled input with the server's message for it underneath (linked by aria-describedby).

import { html } from "../common/html.js";

export function Field({ id, label, error, hint, multiline = false, ...input }) {
  const describedBy = error ? `${id}-error` : hint ? `${id}-hint` : undefined;
  const control = multiline
    ? html`<textarea id=${id} rows="3" aria-invalid=${error ? "true" : undefined} aria-describedby=${describedBy} ...${input}></textarea>`
    : html`<input id=${id} aria-invalid=${error ? "true" : undefined} aria-describedby=${describedBy} ...${input} />`;
  return html`
    <div class=${`field${error ? " invalid" : ""}`}>
      <label for=${id}>${label}</label>
      ${control}
      ${error && html`<p class="field-error" id=${`${id}-error`}>${error}</p>`}
      ${!error && hint && html`<p class="hint" id=${`${id}-hint`}>${hint}</p>`}
    </div>
  `;
}
