// One entry of the conversation: the user's message, an answer (Markdown with citations, badges,
// steps, audit findings), a PalAssist note, a choice the user made, or an error.

import { useState } from "../vendor/preact/hooks.mjs";
import { html } from "../common/html.js";
import { Markdown } from "./markdown-view.js";
import { AnswerMeta } from "./badges.js";
import { Findings } from "./findings.js";
import { StatusLine, Steps } from "./status-line.js";
import { messageTime } from "./format.js";

function Stamp({ at }) {
  return at ? html`<time class="stamp" datetime=${at} title=${new Date(at).toLocaleString()} data-testid="message-time">${messageTime(at)}</time>` : null;
}

export function Message({ message, selected, onSelect, onCite, onRegenerate, onResend }) {
  const { role } = message;
  if (role === "user") return html`<${UserMessage} message=${message} onResend=${onResend} />`;
  if (role === "choice") return html`<div class="msg user choice"><div class="bubble">${message.content}</div><${Stamp} at=${message.at} /></div>`;
  if (role === "system") {
    const kind = message.meta.kind === "pal_assist" ? "PalAssist asked" : "Note";
    return html`<div class="msg system"><span class="system-kind">${kind}</span> ${message.content}</div>`;
  }
  if (role === "error") return html`<div class="msg error-msg" role="alert"><strong>Unable to process request.</strong> ${message.content}</div>`;
  return html`<${Answer} message=${message} selected=${selected} onSelect=${onSelect} onCite=${onCite} onRegenerate=${onRegenerate} />`;
}

// The last message of the user can be edited and sent again: it replaces that turn (a new branch).
function UserMessage({ message, onResend }) {
  const [draft, setDraft] = useState(null);
  if (draft !== null) {
    const submit = (event) => {
      event.preventDefault();
      if (draft.trim()) onResend(draft.trim(), message);
      setDraft(null);
    };
    return html`
      <form class="msg user editing" onSubmit=${submit} data-testid="edit-message">
        <label class="visually-hidden" for="edit-last">Edit your message</label>
        <textarea id="edit-last" rows="3" value=${draft} onInput=${(e) => setDraft(e.target.value)}></textarea>
        <div class="edit-actions">
          <button type="submit" class="small">Resend</button>
          <button type="button" class="small ghost" onClick=${() => setDraft(null)}>Cancel</button>
        </div>
      </form>`;
  }
  return html`<div class="msg user"><div class="bubble">${message.content}</div>
    ${onResend && html`<button type="button" class="small ghost msg-action" onClick=${() => setDraft(message.content)}>Edit and resend</button>`}
    <${Stamp} at=${message.at} /></div>`;
}

function Answer({ message, selected, onSelect, onCite, onRegenerate }) {
  const meta = message.meta;
  const citations = meta.citations || [];
  const findings = meta.findings?.findings ? meta.findings : null;
  const cite = (n) => {
    onSelect(message.id);
    const citation = citations.find((c) => c.n === n);
    if (citation) onCite(citation);
  };
  return html`
    <article class=${`msg assistant ${selected ? "selected" : ""}`} data-testid="message-assistant" data-message-id=${message.id}
      onFocusIn=${() => onSelect(message.id)} onClick=${() => onSelect(message.id)}>
      ${message.steps?.length > 0 && html`<${Steps} steps=${message.steps} />`}
      ${meta.stopped && html`<p class="stopped-note">Stopped — this is what had been written by then.</p>`}
      ${findings
        ? html`<${Findings} report=${findings} />
            <details class="report"><summary>Full report</summary>
              <${Markdown} text=${message.content} citations=${citations} onCite=${cite} />
            </details>`
        : html`<${Markdown} text=${message.content || (meta.stopped ? "" : "(no answer)")} citations=${citations} onCite=${cite} />`}
      <div class="answer-foot"><${AnswerMeta} meta=${meta} /><${Stamp} at=${message.at} />
        ${onRegenerate && html`<button type="button" class="small ghost msg-action" onClick=${onRegenerate}>Regenerate</button>`}</div>
    </article>
  `;
}

// While streaming, the text is rendered paragraph by paragraph: finished paragraphs keep their DOM
// and only the growing last one is parsed again, so each frame costs one paragraph, not the whole
// answer (a long answer would otherwise re-render thousands of tokens per frame).
const PARAGRAPH_BREAK = /\n{2,}(?=\S)/;

export function LiveAnswer({ live }) {
  const blocks = live.text ? live.text.split(PARAGRAPH_BREAK) : [];
  return html`
    <article class="msg assistant live" data-testid="message-assistant" data-live="true" aria-busy="true">
      <${StatusLine} steps=${live.steps} />
      ${blocks.length > 0 && html`<div class="md-blocks">${blocks.map((text, i) => html`<${Markdown} key=${i} text=${text} citations=${NO_CITATIONS} />`)}</div>`}
    </article>
  `;
}

const NO_CITATIONS = [];
