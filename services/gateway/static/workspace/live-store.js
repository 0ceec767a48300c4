// Where a running answer's stream stands, kept in sessionStorage so a reload can pick it up: the
// thread, the run, and the event id just before the run's first event (a reattach replays the
// whole run, so the reloaded page shows the complete answer, not only the tail after the reload).

const KEY = "pp.live";

export function saveLive(live) {
  sessionStorage.setItem(KEY, JSON.stringify(live));
}

export function loadLive() {
  try {
    const live = JSON.parse(sessionStorage.getItem(KEY) || "null");
    return live && typeof live.threadId === "string" ? live : null;
  } catch {
    return null;
  }
}

export function clearLive() {
  sessionStorage.removeItem(KEY);
}
