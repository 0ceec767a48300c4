// Shown without a token: paste one (`policypal token …` mints it; `policypal up` prints a link).

import { useState } from "../vendor/preact/hooks.mjs";
import { setToken, tokenClaims } from "../common/auth.js";
import { html } from "./html.js";

export function SignIn({ reason, onSignedIn }) {
  const [value, setValue] = useState("");
  const [error, setError] = useState(null);
  const submit = (event) => {
    event.preventDefault();
    if (!tokenClaims(value.trim())) {
      setError("That does not look like a PolicyPal token (three dot-separated parts).");
      return;
    }
    setToken(value);
    onSignedIn();
  };
  return html`
    <main class="signin">
      <form class="card" onSubmit=${submit}>
        <h1><span class="logo" aria-hidden="true">P</span> PolicyPal</h1>
        <p class="muted">Document-grounded answers about your policies and regulations.</p>
        ${reason && html`<p class="notice" role="alert">${reason} Please sign in again.</p>`}
        <label for="token">Access token</label>
        <textarea id="token" rows="4" value=${value} onInput=${(e) => setValue(e.target.value)}
          placeholder="eyJhbGciOi…" required></textarea>
        ${error && html`<p class="error" role="alert">${error}</p>`}
        <button type="submit" class="primary">Sign in</button>
        <p class="hint">Run <code>policypal up</code> and open the link it prints, or mint a token with <code>policypal token</code>.</p>
      </form>
    </main>
  `;
}
