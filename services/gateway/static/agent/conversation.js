// A ticket's whole conversation as the agent needs it: the customer's turns, the AI's answers with
// their confidence, the bridge message the customer got, and human answers. All text is rendered
// as text (preact escapes it); nothing from the customer or the model becomes markup.

import { html } from "../common/html.js";

function confidenceClass(score) {
  if (score >= 0.7) return "high";
  if (score >= 0.4) return "medium";
  return "low";
}

export function Confidence({ score }) {
  if (score === null || score === undefined) return null;
  return html`<span class=${`confidence ${confidenceClass(score)}`}>confidence ${Number(score).toFixed(2)}</span>`;
}

function Citations({ citations }) {
  if (!citations || !citations.length) return null;
  return html`<ol class="citations">
    ${citations.map(
      (c) => html`<li key=${c.n}>
        <strong>${c.title}</strong>${c.page ? ` · page ${c.page}` : ""}${c.quote ? html`<q>${c.quote}</q>` : null}
      </li>`,
    )}
  </ol>`;
}

function Message({ message }) {
  const meta = message.metadata || {};
  const time = new Date(message.created_at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  if (message.role === "user") {
    return html`<li class="turn customer"><span class="who">Customer · ${time}</span><p>${message.content}</p></li>`;
  }
  if (meta.kind === "escalation") {
    return html`<li class="turn bridge"><span class="who">Sent to the customer · ${time}</span><p>${message.content}</p></li>`;
  }
  if (message.role !== "assistant") return null;
  if (meta.answered_by === "human") {
    return html`<li class="turn human"><span class="who">Agent answer · ${time}</span><p>${message.content}</p></li>`;
  }
  const source = meta.answered_by === "cache" ? "AI (cached answer)" : "AI";
  return html`<li class="turn ai">
    <span class="who">${source} · ${time} <${Confidence} score=${meta.confidence_score} /></span>
    <p>${message.content}</p>
    <${Citations} citations=${meta.citations} />
  </li>`;
}

export function Conversation({ messages }) {
  return html`<ol class="conversation" aria-label="Conversation">
    ${messages.map((m) => html`<${Message} key=${m.id} message=${m} />`)}
  </ol>`;
}
