// The tenant's live ticket queue: GET /v1/tickets/events sends a snapshot of the waiting tickets
// and then every change. The server closing the stream (a restart, a proxy timeout) just means
// "connect again": each connection starts with a fresh snapshot, so nothing is missed.

import { readStream } from "./stream.js";

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 15000;

/**
 * Follow the queue until `signal` aborts. `onSnapshot(tickets)` replaces the queue, `onTicket(ticket)`
 * updates one ticket, `onLive(bool)` reports the connection; rejects on 401/403 (sign in again).
 */
export async function followQueue({ signal, onSnapshot, onTicket, onLive }) {
  let delay = FIRST_RETRY_MS;
  while (!signal.aborted) {
    try {
      await readStream("/v1/tickets/events", {
        signal,
        onOpen: () => {
          delay = FIRST_RETRY_MS;
          onLive(true);
        },
        onEvent: ({ event, data }) => {
          if (event === "snapshot") onSnapshot(data.tickets);
          else if (event === "ticket") onTicket(data.ticket);
        },
      });
    } catch (error) {
      if (signal.aborted) return;
      if (error.status === 401 || error.status === 403) throw error;
    }
    onLive(false);
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, MAX_RETRY_MS);
  }
}
