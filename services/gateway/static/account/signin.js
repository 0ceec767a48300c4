// Sign in with email and password (or a provider, or a pasted token); a first sign-in goes on to onboarding.

import { useEffect, useState } from "../vendor/preact/hooks.mjs";
import { api } from "../common/api.js";
import { landingAfter, saveSession, takeSignInReason } from "../common/session.js";
import { html } from "../common/html.js";
import { Field } from "./field.js";
import { AccountFrame } from "./frame.js";
import { SsoButtons } from "./sso-buttons.js";
import { useSsoReturn } from "./sso-return.js";
import { TokenForm } from "./token-form.js";
import { useForm } from "./use-form.js";

export function SignInPage() {
  const [reason] = useState(takeSignInReason);
  const ssoMessage = useSsoReturn();
  const [config, setConfig] = useState(null);
  useEffect(() => {
    api("/v1/auth/config").then(setConfig, () => setConfig({ signup_open: false, sso: [] }));
  }, []);
  const form = useForm({ email: "", password: "" }, async (values) => {
    const session = await api("/v1/auth/signin", { method: "POST", json: values });
    saveSession(session);
    window.location.assign(landingAfter(session));
  });
  return html`
    <${AccountFrame} title="Sign in" intro="Document-grounded answers about your policies and regulations.">
      ${reason && html`<p class="notice" role="status">${reason} Please sign in again.</p>`}
      ${ssoMessage && html`<p class="form-error" role="alert" data-testid="sso-error">${ssoMessage}</p>`}
      <form onSubmit=${form.onSubmit} novalidate>
        <${Field} id="email" label="Email" type="email" autocomplete="username" data-testid="signin-email"
          error=${form.fields.email} ...${form.bind("email")} />
        <${Field} id="password" label="Password" type="password" autocomplete="current-password"
          data-testid="signin-password" error=${form.fields.password} ...${form.bind("password")} />
        ${form.error && html`<p class="form-error" role="alert" data-testid="signin-error">${form.error}</p>`}
        <button type="submit" class="primary wide" disabled=${form.busy} data-testid="signin-submit">
          ${form.busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      ${config && html`<${SsoButtons} options=${config.sso} />`}
      ${config?.signup_open && html`<p class="switch">New here? <a href="/signup">Create an account</a></p>`}
      <${TokenForm} />
    <//>
  `;
}
