// Settings: the account, and the company profile the agent's answers are tailored to.

import { useEffect, useState } from "../vendor/preact/hooks.mjs";
import { api } from "../common/api.js";
import { getToken } from "../common/auth.js";
import { endSession, goToSignIn } from "../common/session.js";
import { html } from "../common/html.js";
import { AccountFrame } from "./frame.js";
import { EMPTY_PROFILE, ProfileForm } from "./profile-form.js";

export function SettingsPage() {
  const [me, setMe] = useState(null);
  const [error, setError] = useState(null);
  const [status, setStatus] = useState(null);
  useEffect(() => {
    if (!getToken()) return goToSignIn(null);
    api("/v1/me").then(setMe, (failure) => (failure.status === 401 ? goToSignIn(failure.message) : setError(failure.message)));
  }, []);
  const signOut = async () => {
    await endSession();
    window.location.assign("/signin");
  };
  return html`
    <${AccountFrame} wide title="Settings" intro="Your account and the company profile PolicyPal tailors answers to.">
      <nav class="settings-nav"><a href="/">← Back to the workspace</a></nav>
      ${error && html`<p class="form-error" role="alert">${error}</p>`}
      ${!me && !error && html`<p class="loading muted">Loading your settings…</p>`}
      ${me && html`
        <dl class="account-facts">
          <dt>Email</dt><dd>${me.email || "—"}</dd>
          <dt>Role</dt><dd>${me.role}</dd>
        </dl>
        <h2>Company profile</h2>
        <${ProfileForm} initial=${me.profile || EMPTY_PROFILE} submitLabel="Save changes" busyLabel="Saving…"
          testId="settings-save" status=${status} onSaved=${() => setStatus("Saved. New answers use this profile.")} />
        <button type="button" class="ghost wide sign-out" onClick=${signOut}>Sign out</button>
      `}
    <//>
  `;
}
