// A GET Server-Sent Events stream over fetch with the page's bearer token.
//
// Not common/sse.js: fetch-event-source retries a dropped stream silently, but the inbox must know
// the moment it is disconnected to say "Reconnecting…" instead of pretending to be live. The inbox
// only needs GET streams, which feed.js re-opens itself with backoff.

import { authHeaders, toApiError } from "../common/api.js";

/** Read `path` until the server ends it or `signal` aborts; `onEvent({event, id, data})` per event,
 * `onOpen()` once connected. Rejects with an ApiError on an HTTP error, or a TypeError offline. */
export async function readStream(path, { signal, onEvent, onOpen }) {
  const response = await fetch(path, { signal, headers: authHeaders({ Accept: "text/event-stream" }) });
  if (!response.ok) throw await toApiError(response);
  onOpen();
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let event = { event: "message", id: null, data: [] };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end).replace(/\r$/, "");
      buffer = buffer.slice(end + 1);
      if (line === "") {
        if (event.data.length) onEvent({ event: event.event, id: event.id, data: JSON.parse(event.data.join("\n")) });
        event = { event: "message", id: null, data: [] };
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") event.data.push(text);
        else if (field === "event") event.event = text;
        else if (field === "id") event.id = text;
      }
    }
  }
}
