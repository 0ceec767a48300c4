// Back from the identity provider: `?sso=done` redeems the session the gateway left in an
// HttpOnly cookie; `?sso_error=<code>` explains why the sign-in did not complete.

import { useEffect, useState } from "../vendor/preact/hooks.mjs";
import { api } from "../common/api.js";
import { landingAfter, saveSession } from "../common/session.js";

const MESSAGES = {
  sso_denied: "Your identity provider did not let you in.",
  sso_state: "The single sign-on took too long or was started in another tab. Please try again.",
  sso_invalid: "Your identity provider's answer could not be verified. Please try again or ask your admin.",
  sso_no_role: "Your identity provider account has no PolicyPal role. Ask your admin for access.",
  sso_no_email: "Your identity provider did not share your email address.",
  email_taken: "This email already has a PolicyPal account elsewhere. Ask your admin.",
  account_disabled: "This account is disabled. Ask your tenant admin.",
};

export function useSsoReturn() {
  const [message, setMessage] = useState(null);
  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    if (!params.has("sso") && !params.has("sso_error")) return;
    history.replaceState(null, "", window.location.pathname);
    const code = params.get("sso_error");
    if (code) {
      setMessage(MESSAGES[code] || "Single sign-on did not complete. Please try again.");
      return;
    }
    api("/v1/auth/sso/session", { method: "POST" }).then(
      (session) => {
        saveSession(session);
        window.location.assign(landingAfter(session));
      },
      (failure) => setMessage(failure.message),
    );
  }, []);
  return message;
}
