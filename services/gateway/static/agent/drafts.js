// Answers being written, kept per ticket in sessionStorage: switching tickets, a reload, or a
// colleague answering first never throws away what the agent typed.

const PREFIX = "pp.agent.draft.";

export function loadDraft(ticketId) {
  return sessionStorage.getItem(PREFIX + ticketId) || "";
}

export function saveDraft(ticketId, text) {
  if (text) sessionStorage.setItem(PREFIX + ticketId, text);
  else sessionStorage.removeItem(PREFIX + ticketId);
}
