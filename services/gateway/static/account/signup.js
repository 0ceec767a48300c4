// Create an account (where the server's sign-up is open), then onboarding.

import { api } from "../common/api.js";
import { landingAfter, saveSession } from "../common/session.js";
import { html } from "../common/html.js";
import { Field } from "./field.js";
import { AccountFrame } from "./frame.js";
import { useForm } from "./use-form.js";

export function SignUpPage() {
  const form = useForm({ display_name: "", email: "", password: "" }, async (values) => {
    const session = await api("/v1/auth/signup", {
      method: "POST",
      json: { ...values, display_name: values.display_name.trim() || null },
    });
    saveSession(session);
    window.location.assign(landingAfter(session));
  });
  return html`
    <${AccountFrame} title="Create your account" intro="Ask questions about your policies and get answers with sources.">
      <form onSubmit=${form.onSubmit} novalidate>
        <${Field} id="display_name" label="Your name" autocomplete="name" data-testid="signup-name"
          error=${form.fields.display_name} ...${form.bind("display_name")} />
        <${Field} id="email" label="Work email" type="email" autocomplete="username" data-testid="signin-email"
          error=${form.fields.email} ...${form.bind("email")} />
        <${Field} id="password" label="Password" type="password" autocomplete="new-password"
          data-testid="signin-password" hint="At least 10 characters." error=${form.fields.password}
          ...${form.bind("password")} />
        ${form.error && html`<p class="form-error" role="alert" data-testid="signin-error">${form.error}</p>`}
        <button type="submit" class="primary wide" disabled=${form.busy} data-testid="signin-submit">
          ${form.busy ? "Creating your account…" : "Create account"}
        </button>
      </form>
      <p class="switch">Already have an account? <a href="/signin">Sign in</a></p>
    <//>
  `;
}
