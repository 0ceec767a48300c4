// Server-sent events over fetch (POST bodies and Authorization headers, which EventSource lacks),
// with Last-Event-ID resumption, built on @microsoft/fetch-event-source.

import { fetchEventSource } from "../vendor/fetch-event-source/index.js";
import { authHeaders, toApiError } from "./api.js";

class FatalStreamError extends Error {}

/**
 * Stream events from `path`. `onEvent({event, id, data})` gets each event with `data` parsed as JSON;
 * the promise resolves when the server ends the stream or `signal` aborts, and rejects with an
 * ApiError on an HTTP error. A GET stream that drops is retried with backoff, resuming after the last
 * id; a POST is never re-sent (it would start a second turn): its promise rejects so the caller can
 * reattach through the matching GET replay endpoint.
 */
export function streamEvents(path, { method = "GET", json, signal, lastEventId, onEvent, onOpen, retryMs = 1000 }) {
  const retry = method === "GET";
  let delay = retryMs;
  // fetch-event-source itself sends Last-Event-ID on reconnects after the first event with an id.
  const headers = authHeaders({ Accept: "text/event-stream" });
  if (json !== undefined) headers["Content-Type"] = "application/json";
  if (lastEventId) headers["Last-Event-ID"] = String(lastEventId);
  return fetchEventSource(path, {
    method,
    signal,
    openWhenHidden: true,
    body: json !== undefined ? JSON.stringify(json) : undefined,
    headers,
    async onopen(response) {
      if (!response.ok) throw new FatalStreamError("http", { cause: await toApiError(response) });
      delay = retryMs;
      if (onOpen) onOpen(response);
    },
    onmessage(message) {
      if (!message.data) return;
      onEvent({ event: message.event || "message", id: message.id, data: JSON.parse(message.data) });
    },
    onclose() {},
    onerror(error) {
      if (error instanceof FatalStreamError) throw error.cause;
      if (!retry) throw error;
      delay = Math.min(delay * 2, 15000);
      return delay;
    },
  });
}
