// The JSON API client every page uses: bearer token, the gateway's error shape, and one signal
// ("pp:unauthorized") when the token is missing, expired or revoked so the page can ask again.

import { getToken } from "./auth.js";
import { refreshSession } from "./session.js";

export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export function authHeaders(extra = {}) {
  const token = getToken();
  return token ? { Authorization: `Bearer ${token}`, ...extra } : { ...extra };
}

/** fetch() against the gateway; `json` is sent as a JSON body; returns parsed JSON (or null for 204). */
export async function api(path, options = {}) {
  let response = await fetch(path, requestInit(options));
  // An expired access token is renewed once with the refresh token (accounts sign-in only).
  if (response.status === 401 && (await refreshSession())) response = await fetch(path, requestInit(options));
  if (!response.ok) throw await toApiError(response);
  if (response.status === 204) return null;
  const type = response.headers.get("content-type") || "";
  return type.includes("json") ? response.json() : response.text();
}

function requestInit({ method = "GET", json, body, headers = {}, signal }) {
  const init = { method, signal, headers: authHeaders(headers) };
  if (json !== undefined) {
    init.body = JSON.stringify(json);
    init.headers["Content-Type"] = "application/json";
  } else if (body !== undefined) {
    init.body = body;
  }
  return init;
}

export async function toApiError(response) {
  let code = "http_error";
  let message = `${response.status} ${response.statusText}`;
  let details;
  try {
    const body = await response.json();
    if (body && body.error) ({ code, message, details } = body.error);
  } catch {
    // not JSON: keep the status line
  }
  if (response.status === 401) window.dispatchEvent(new CustomEvent("pp:unauthorized", { detail: message }));
  return new ApiError(response.status, code, message, details);
}
