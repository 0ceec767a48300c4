// For scripts and operators: paste a token minted by `policypal token` (or printed by `policypal up`).
// Open by default (the `up` link and scripts sign in with tokens); its summary folds it away.

import { useState } from "../vendor/preact/hooks.mjs";
import { setToken, tokenClaims } from "../common/auth.js";
import { html } from "../common/html.js";

export function TokenForm() {
  const [value, setValue] = useState("");
  const [error, setError] = useState(null);
  const submit = (event) => {
    event.preventDefault();
    if (!tokenClaims(value.trim())) {
      setError("That does not look like a PolicyPal token (three dot-separated parts).");
      return;
    }
    setToken(value);
    window.location.assign("/");
  };
  return html`
    <details class="token-form" open>
      <summary>Use an access token instead</summary>
      <form onSubmit=${submit}>
        <label for="token">Access token</label>
        <textarea id="token" rows="3" value=${value} onInput=${(e) => setValue(e.target.value)}
          placeholder="eyJhbGciOi…" required></textarea>
        ${error && html`<p class="form-error" role="alert">${error}</p>`}
        <button type="submit" class="wide">Open the workspace</button>
        <p class="hint">Open the link <code>policypal up</code> prints, or mint one with <code>policypal token</code>.</p>
      </form>
    </details>
  `;
}
