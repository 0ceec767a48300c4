// The tenant's live ticket queue: GET /v1/tickets/events sends a snapshot of the waiting tickets
// and then every change. The server closing the stream (a restart, a proxy timeout) just means
// "connect again": each connection starts with a fresh snapshot, so nothing is missed.

import { streamEvents } from "../common/sse.js";

const RECONNECT_MS = 1500;

/**
 * Follow the queue until `signal` aborts. `onSnapshot(tickets)` replaces the queue, `onTicket(ticket)`
 * updates one ticket, `onLive(bool)` reports the connection; rejects on 401/403 (sign in again).
 */
export async function followQueue({ signal, onSnapshot, onTicket, onLive }) {
  while (!signal.aborted) {
    try {
      await streamEvents("/v1/tickets/events", {
        signal,
        onOpen: () => onLive(true),
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
    await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
  }
}
