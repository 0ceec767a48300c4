// One open ticket: its conversation, the AI's unsent attempt, and the agent's answer form.
// Resolving sends the answer to the customer; when a colleague was faster, the gateway's 409 is
// shown as such and the draft stays where it is.

import { useEffect, useState } from "../vendor/preact/hooks.mjs";
import { api } from "../common/api.js";
import { Confidence, Conversation } from "./conversation.js";
import { loadDraft, saveDraft } from "./drafts.js";
import { html } from "../common/html.js";

function AiAttempt({ ticket, onUse }) {
  if (ticket.ai_confidence === null || ticket.ai_confidence === undefined) return null;
  if (!ticket.ai_answer) {
    return html`<section class="attempt" aria-label="The AI's attempt">
      <header><span>The AI found nothing in the knowledge base to answer this with</span><${Confidence} score=${ticket.ai_confidence} /></header>
    </section>`;
  }
  return html`<section class="attempt" aria-label="The AI's unsent answer">
    <header>
      <span>The AI's own answer — not sent, graded too unsure</span>
      <${Confidence} score=${ticket.ai_confidence} />
    </header>
    <p>${ticket.ai_answer}</p>
    <button type="button" class="link" onClick=${() => onUse(ticket.ai_answer)}>Start from this answer</button>
  </section>`;
}

function Outcome({ outcome, ticket }) {
  if (!outcome) return null;
  if (outcome.kind === "sent") {
    return html`<p class="notice success" role="status">Sent. The customer sees your answer now, and it will answer the same question next time.</p>`;
  }
  if (outcome.kind === "taken") {
    return html`<div class="notice warning" role="alert">
      <strong>Already answered by a colleague</strong>${ticket.resolved_by ? ` (${ticket.resolved_by})` : ""}. Your draft is kept below.
      ${ticket.human_answer ? html`<blockquote>${ticket.human_answer}</blockquote>` : null}
    </div>`;
  }
  return html`<p class="notice error" role="alert">${outcome.message}</p>`;
}

function AnswerForm({ ticket, draft, setDraft, busy, onResolve }) {
  const open = ticket.status === "pending_human";
  const submit = (event) => {
    event.preventDefault();
    if (draft.trim()) onResolve();
  };
  const keys = (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) submit(event);
  };
  return html`<form class="answer" onSubmit=${submit}>
    <label for="answer">Your answer to the customer</label>
    <textarea
      id="answer"
      data-testid="ticket-answer"
      rows="5"
      maxlength="8000"
      placeholder=${open ? "Write the answer the customer will see…" : "This ticket is no longer waiting."}
      value=${draft}
      onInput=${(e) => setDraft(e.currentTarget.value)}
      onKeyDown=${keys}
    ></textarea>
    <div class="answer-actions">
      <span class="hint">Ctrl+Enter sends · the answer also teaches the assistant</span>
      <button type="submit" class="primary" data-testid="ticket-resolve" disabled=${busy || !draft.trim()}>
        ${busy ? "Sending…" : "Send answer & resolve"}
      </button>
    </div>
  </form>`;
}

export function TicketView({ ticketId, onResolved }) {
  const [detail, setDetail] = useState(null);
  const [error, setError] = useState(null);
  const [draft, setDraftState] = useState(() => loadDraft(ticketId));
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState(null);

  const refresh = () =>
    api(`/v1/tickets/${ticketId}`)
      .then((d) => setDetail(d))
      .catch((e) => setError(e.message));

  useEffect(() => {
    setDetail(null);
    setError(null);
    setOutcome(null);
    setDraftState(loadDraft(ticketId));
    refresh();
  }, [ticketId]);

  const setDraft = (text) => {
    setDraftState(text);
    saveDraft(ticketId, text);
  };

  const resolve = async () => {
    setBusy(true);
    setOutcome(null);
    try {
      await api(`/v1/tickets/${ticketId}/resolve`, { method: "POST", json: { answer: draft.trim() } });
      setDraft("");
      setOutcome({ kind: "sent" });
      onResolved(ticketId);
    } catch (e) {
      setOutcome(e.status === 409 && e.code === "not_waiting" ? { kind: "taken" } : { kind: "error", message: e.message });
    } finally {
      setBusy(false);
      refresh();
    }
  };

  if (error) return html`<section class="detail" data-testid="ticket-open"><p class="notice error">${error}</p></section>`;
  if (!detail) return html`<section class="detail" data-testid="ticket-open" aria-busy="true"><p class="muted">Loading…</p></section>`;
  const { ticket, messages } = detail;
  return html`<section class="detail" data-testid="ticket-open" data-ticket-id=${ticket.id} aria-label=${`Ticket ${ticket.number}`}>
    <header class="detail-head">
      <div>
        <h2>Ticket #${ticket.number}</h2>
        <p class="muted">from ${ticket.origin || "an unknown site"} · opened ${new Date(ticket.created_at).toLocaleString()}</p>
      </div>
      <span class=${`status ${ticket.status}`}>${ticket.status.replace("_", " ")}</span>
    </header>
    <${Conversation} messages=${messages} />
    ${ticket.status === "pending_human" ? html`<${AiAttempt} ticket=${ticket} onUse=${(text) => setDraft(text)} />` : null}
    <${Outcome} outcome=${outcome} ticket=${ticket} />
    <${AnswerForm} ticket=${ticket} draft=${draft} setDraft=${setDraft} busy=${busy} onResolve=${resolve} />
  </section>`;
}
