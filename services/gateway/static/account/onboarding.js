// First sign-in: the company profile, before the workspace.

import { getToken } from "../common/auth.js";
import { goToSignIn } from "../common/session.js";
import { html } from "../common/html.js";
import { AccountFrame } from "./frame.js";
import { EMPTY_PROFILE, ProfileForm } from "./profile-form.js";

export function OnboardingPage() {
  if (!getToken()) {
    goToSignIn(null);
    return null;
  }
  return html`
    <${AccountFrame} wide title="Tell us about your company"
      intro="PolicyPal uses this to tailor every answer to your industry and country. You can change it later in Settings.">
      <${ProfileForm} initial=${EMPTY_PROFILE} submitLabel="Continue to your workspace" busyLabel="Saving…"
        testId="onboarding-submit" onSaved=${() => window.location.assign("/")} />
    <//>
  `;
}
