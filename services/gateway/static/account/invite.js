// Accept an invite: the link's `#invite=` fragment (never sent to a server) plus a new password.

import { useState } from "../vendor/preact/hooks.mjs";
import { api } from "../common/api.js";
import { landingAfter, saveSession } from "../common/session.js";
import { html } from "../common/html.js";
import { Field } from "./field.js";
import { AccountFrame } from "./frame.js";
import { useForm } from "./use-form.js";

function takeInviteToken() {
  const token = new URLSearchParams(window.location.hash.slice(1)).get("invite");
  if (token) history.replaceState(null, "", window.location.pathname);
  return token;
}

export function InvitePage() {
  const [token] = useState(takeInviteToken);
  const form = useForm({ display_name: "", password: "" }, async (values) => {
    const session = await api("/v1/auth/invites/accept", {
      method: "POST",
      json: { token, password: values.password, display_name: values.display_name.trim() || null },
    });
    saveSession(session);
    window.location.assign(landingAfter(session));
  });
  if (!token) {
    return html`<${AccountFrame} title="This invite link is incomplete"
      intro="Open the whole link your admin sent you, or ask them for a new one." />`;
  }
  return html`
    <${AccountFrame} title="Join your team on PolicyPal" intro="Choose a password to accept the invite.">
      <form onSubmit=${form.onSubmit} novalidate>
        <${Field} id="display_name" label="Your name" autocomplete="name" error=${form.fields.display_name}
          ...${form.bind("display_name")} />
        <${Field} id="password" label="Password" type="password" autocomplete="new-password"
          data-testid="signin-password" hint="At least 10 characters." error=${form.fields.password}
          ...${form.bind("password")} />
        ${form.error && html`<p class="form-error" role="alert" data-testid="signin-error">${form.error}</p>`}
        <button type="submit" class="primary wide" disabled=${form.busy} data-testid="signin-submit">
          ${form.busy ? "Joining…" : "Accept invite"}
        </button>
      </form>
    <//>
  `;
}
