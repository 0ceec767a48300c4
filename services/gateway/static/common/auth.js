// Sign-in by token. Opening a page as `…#token=<JWT>` stores the token in sessionStorage (per tab,
// gone when the tab closes) and removes it from the address bar so it is not bookmarked or shared.

const KEY = "pp.token";

export function adoptTokenFromHash() {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const token = params.get("token");
  if (!token) return;
  sessionStorage.setItem(KEY, token);
  params.delete("token");
  const rest = params.toString();
  history.replaceState(null, "", window.location.pathname + window.location.search + (rest ? `#${rest}` : ""));
}

export function getToken() {
  return sessionStorage.getItem(KEY);
}

export function setToken(token) {
  sessionStorage.setItem(KEY, token.trim());
}

export function signOut() {
  sessionStorage.removeItem(KEY);
}

/** The token's claims, for display only: the gateway verifies every request itself. */
export function tokenClaims(token = getToken()) {
  try {
    const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(payload));
  } catch {
    return null;
  }
}
