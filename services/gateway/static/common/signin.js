// Shown on the agent and admin pages when they have no usable token: how to get one, and a field to paste it.

import { useState } from "../vendor/preact/hooks.mjs";
import { setToken } from "./auth.js";
import { html } from "./html.js";

export function SignIn({ role, reason, onSignedIn }) {
  const [value, setValue] = useState("");
  const submit = (event) => {
    event.preventDefault();
    if (!value.trim()) return;
    setToken(value);
    onSignedIn();
  };
  return html`<main class="signin">
    <form class="card" onSubmit=${submit}>
      <h1>Sign in</h1>
      ${reason ? html`<p class="notice error" role="alert">${reason}</p>` : null}
      <p>
        This page needs an <strong>${role}</strong> token. Open it as <code>${location.pathname}#token=…</code> or paste
        one below; mint one with <code>policypal token --tenant <var>TENANT</var> --user <var>NAME</var> --role ${role}</code>.
      </p>
      <label for="token">Token</label>
      <textarea id="token" rows="4" value=${value} onInput=${(e) => setValue(e.currentTarget.value)}></textarea>
      <button class="primary" type="submit">Sign in</button>
    </form>
  </main>`;
}
