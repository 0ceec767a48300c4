// One answer's event stream: a new turn (POST /v1/chat), a PalAssist answer (POST /v1/chat/resume)
// or a reattach after a reload (GET /v1/threads/{id}/events from a saved position). Events of other
// runs on the thread are skipped; a stream that drops is reattached from the last event seen.

import { ApiError } from "../common/api.js";
import { streamEvents } from "../common/sse.js";
import { clearLive, saveLive } from "./live-store.js";

const TERMINAL = new Set(["response", "interrupt", "escalation", "error"]);

/**
 * Follow a run to its terminal event, calling `onEvent({event, data})` for each of its events.
 * `start` is {path, json} for a POST or null to reattach with `live` = {threadId, runId, after}.
 */
export async function followRun({ start, live = null, onEvent, signal }) {
  // A reattach replays the whole run from just before its first event (`after`).
  let state = live ? { threadId: live.threadId, runId: live.runId, after: live.after ?? null } : null;
  let finished = false;
  const handle = ({ event, id, data }) => {
    const ours = !state.runId || !data.run_id || data.run_id === state.runId;
    if (id) {
      state.seen = Number(id);
      if (ours && state.after == null) state.after = Number(id) - 1;
      saveLive(state);
    }
    if (!ours) return;
    onEvent({ event, data });
    if (TERMINAL.has(event)) finished = true;
  };
  if (start) {
    try {
      await streamEvents(start.path, {
        method: "POST",
        json: start.json,
        signal,
        onOpen(response) {
          state = { threadId: response.headers.get("X-Thread-Id"), runId: response.headers.get("X-Run-Id"), after: null };
          saveLive(state);
          onEvent({ event: "open", data: { thread_id: state.threadId, run_id: state.runId } });
        },
        onEvent: handle,
      });
    } catch (error) {
      if (error instanceof ApiError || signal?.aborted || !state) throw error;
      // the connection dropped mid-answer: the run goes on, follow it through the replay endpoint
    }
  }
  while (!finished && state && !signal?.aborted) {
    const before = state.seen ?? state.after;
    let got = 0;
    await streamEvents(`/v1/threads/${state.threadId}/events`, {
      signal,
      lastEventId: before ?? undefined,
      onEvent: (e) => {
        got += 1;
        handle(e);
      },
    });
    if (!got) break; // nothing runs on the thread any more: the history has the outcome
  }
  clearLive();
  return finished;
}
