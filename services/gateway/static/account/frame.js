// The card every account page sits in: the brand, a title, a line of context, then the form.

import { html } from "../common/html.js";

export function AccountFrame({ title, intro, wide = false, children }) {
  return html`
    <main class=${`account${wide ? " wide" : ""}`}>
      <section class="card">
        <p class="brand"><span class="logo" aria-hidden="true">P</span> PolicyPal</p>
        <h1>${title}</h1>
        ${intro && html`<p class="muted intro">${intro}</p>`}
        ${children}
      </section>
    </main>
  `;
}
