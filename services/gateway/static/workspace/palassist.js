// PalAssist: the run stopped to ask. One button per option (including "All of these"), a document
// picker when it asks for documents without options, and Cancel. A text question is answered in the
// composer, @-mentions included; "📄 Tag specific documents" turns this card into the instruction to
// pick them there (pending-answer.js).

import { useState } from "../vendor/preact/hooks.mjs";
import { html } from "../common/html.js";
import { TAG_DOCS } from "./pending-answer.js";

const RESUME_TYPE = { doc_choice: "doc_choice", action_choice: "action_choice", retrieval_low: "retrieval_choice", text_input: "text_input" };

export function PalAssist({ question, documents, tagging, onAnswer, onTag }) {
  const type = RESUME_TYPE[question.interrupt_type] || question.interrupt_type;
  const cancel = () => onAnswer({ type: "cancel", value: null }, "Cancel");
  // The tag option opens the @-menu instead of answering; a client without a menu answers it bare.
  const choose = (o) => (o.id === TAG_DOCS ? onTag(true) : onAnswer({ type, value: o.id }, o.label));
  let body;
  if (tagging) {
    body = html`<div class="pa-compose" data-testid="palassist-tagging">
      <p class="pa-hint">Tag the documents or sets to answer from with @ in the message box below, then Send.</p>
      <button type="button" class="ghost small" onClick=${() => onTag(false)}>Back to the options</button>
    </div>`;
  } else if (question.options?.length) {
    body = html`<div class="options">
      ${question.options.map(
        (o) => html`<button type="button" class="option" data-testid="palassist-option" data-option-id=${o.id}
          onClick=${() => choose(o)}>${o.label}</button>`,
      )}
    </div>`;
  } else if (type === "doc_choice") {
    body = html`<${DocPicker} documents=${documents} onPick=${(ids, label) => onAnswer({ type, value: ids }, label)} />`;
  } else {
    body = html`<p class="pa-hint" data-testid="palassist-compose">Answer in the message box below · type @ to tag a document or set.</p>`;
  }
  return html`
    <section class="palassist" data-testid="palassist" aria-labelledby="pa-q" data-interrupt-type=${question.interrupt_type}>
      <div class="pa-head"><span class="pa-tag">PalAssist</span><p id="pa-q">${question.message}</p></div>
      ${body}
      <button type="button" class="ghost small pa-cancel" data-testid="palassist-option" data-option-id="cancel" onClick=${cancel}>Cancel</button>
    </section>
  `;
}

function DocPicker({ documents, onPick }) {
  const ready = documents.filter((d) => d.status === "ready");
  const [chosen, setChosen] = useState([]);
  const toggle = (id) => setChosen((list) => (list.includes(id) ? list.filter((x) => x !== id) : [...list, id]));
  const label = ready.filter((d) => chosen.includes(d.id)).map((d) => d.display_name).join(", ");
  return html`
    <div class="options">
      ${ready.map(
        (d) => html`<button type="button" class=${`option ${chosen.includes(d.id) ? "on" : ""}`} aria-pressed=${chosen.includes(d.id)}
          data-testid="palassist-option" data-option-id=${d.id} onClick=${() => toggle(d.id)}>${d.display_name}</button>`,
      )}
      ${ready.length === 0 && html`<p class="muted">No ready documents to choose from — upload one first.</p>`}
      <button type="button" class="primary small" disabled=${!chosen.length} onClick=${() => onPick(chosen, label)}>Continue</button>
    </div>
  `;
}
