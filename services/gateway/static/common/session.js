// Sessions from the accounts API. The access JWT lives where `#token=` links put it (sessionStorage
// "pp.token", so every page reads it one way); the refresh token sits beside it and is rotated by
// the gateway on every use. Neither ever goes into a URL.

import { setToken, signOut } from "./auth.js";

const REFRESH = "pp.refresh";
const REASON = "pp.reason";

export function saveSession(session) {
  setToken(session.access_token);
  sessionStorage.setItem(REFRESH, session.refresh_token);
}

/** Trade the refresh token for new tokens; false when there is none or the gateway refused it. */
export async function refreshSession() {
  const refreshToken = sessionStorage.getItem(REFRESH);
  if (!refreshToken) return false;
  const response = await fetch("/v1/auth/refresh", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ refresh_token: refreshToken }),
  });
  if (!response.ok) {
    sessionStorage.removeItem(REFRESH);
    return false;
  }
  saveSession(await response.json());
  return true;
}

/** Forget the session here and revoke it at the gateway. */
export async function endSession() {
  const refreshToken = sessionStorage.getItem(REFRESH);
  signOut();
  sessionStorage.removeItem(REFRESH);
  if (!refreshToken) return;
  await fetch("/v1/auth/signout", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ refresh_token: refreshToken }),
  });
}

const RETURN = "pp.return";

/** Where a fresh session goes next: onboarding first, once; then the conversation whose link brought
 * the reader to the sign-in page, if one did. */
export function landingAfter(session) {
  if (!session.onboarded) return "/onboarding";
  const back = sessionStorage.getItem(RETURN);
  sessionStorage.removeItem(RETURN);
  return back && /^\/c\/[0-9a-fA-F-]{36}$/.test(back) ? back : "/";
}

/** Send the browser to the sign-in page, telling it why (and remembering a conversation's address). */
export function goToSignIn(reason) {
  if (reason) sessionStorage.setItem(REASON, reason);
  if (window.location.pathname.startsWith("/c/")) sessionStorage.setItem(RETURN, window.location.pathname);
  window.location.assign("/signin");
}

export function takeSignInReason() {
  const reason = sessionStorage.getItem(REASON);
  sessionStorage.removeItem(REASON);
  return reason;
}
