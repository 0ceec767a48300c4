// Middle panel: the conversation, the live answer with its PalReasoning line, PalAssist above
// the input, and the composer (Stop while an answer runs).

import { useEffect, useRef, useState } from "../vendor/preact/hooks.mjs";
import { Composer } from "./composer.js";
import { html } from "../common/html.js";
import { LiveAnswer, Message } from "./message.js";
import { PalAssist } from "./palassist.js";
import { answerFromRequest, composerRole } from "./pending-answer.js";

export function ChatPanel({ thread, documents, sets, selectedId, onSelect, onCite }) {
  const scroller = useRef(null);
  const running = Boolean(thread.live);
  useEffect(() => {
    const el = scroller.current;
    if (el && el.scrollHeight - el.scrollTop - el.clientHeight < 160) el.scrollTop = el.scrollHeight;
  }, [thread.messages.length, thread.live?.text, thread.live?.steps.length, thread.pending]);
  useEffect(() => {
    if (scroller.current) scroller.current.scrollTop = scroller.current.scrollHeight;
  }, [thread.threadId, thread.loading]);

  // "📄 Tag specific documents" was chosen: the composer's next message names the documents.
  const [tagging, setTagging] = useState(false);
  const [mentionRequest, setMentionRequest] = useState(0);
  useEffect(() => setTagging(false), [thread.pending]);
  const question = thread.pending && !running ? thread.pending : null;
  const role = composerRole(question, tagging);
  const onTag = (on) => {
    setTagging(on);
    if (on) setMentionRequest((n) => n + 1);
  };
  const onSend = (request) => {
    if (!role) {
      thread.send(request);
      return undefined;
    }
    const answer = answerFromRequest(role, request);
    if (answer.problem) return answer.problem;
    thread.answer(answer.resumeValue, answer.label);
    return undefined;
  };

  const empty = !thread.messages.length && !running && !thread.loading && !thread.loadError;
  return html`
    <div class="chat">
      ${thread.threadId && !thread.loadError &&
      html`<header class="chat-head">
        <h1 class="chat-title" data-testid="chat-title">${thread.title || "Untitled conversation"}</h1>
      </header>`}
      <div class="messages" ref=${scroller} aria-live="off">
        ${thread.loading && html`<p class="muted loading center">Loading conversation…</p>`}
        ${thread.loadError &&
        html`<div class="load-error" role="alert" data-testid="load-error">
          <p>${thread.loadError}</p>
          <button type="button" class="small" onClick=${thread.retry}>Try again</button>
          <button type="button" class="small ghost" onClick=${() => thread.open(null)}>Start a new chat</button>
        </div>`}
        ${empty && html`<${Welcome} hasDocuments=${documents.length > 0} />`}
        ${thread.messages.map((m, i) => {
          const idle = !running && !thread.loading;
          const lastUser = idle && m.role === "user" && i === lastIndex(thread.messages, "user");
          const lastAnswer = idle && m.role === "assistant" && i === thread.messages.length - 1;
          return html`<${Message} key=${m.id} message=${m} selected=${m.id === selectedId} onSelect=${onSelect} onCite=${onCite}
            onRegenerate=${lastAnswer ? thread.regenerate : null} onResend=${lastUser ? thread.resend : null} />`;
        })}
        ${running && html`<${LiveAnswer} live=${thread.live} />`}
      </div>
      ${question &&
      html`<${PalAssist} question=${question} documents=${documents} tagging=${tagging} onAnswer=${thread.answer} onTag=${onTag} />`}
      <${Composer} documents=${documents} sets=${sets} running=${running} role=${role} mentionRequest=${mentionRequest}
        onSend=${onSend} onStop=${thread.stop} />
    </div>
  `;
}

function Welcome({ hasDocuments }) {
  return html`
    <div class="welcome">
      <h1>What would you like to know?</h1>
      <p class="muted">
        ${hasDocuments
          ? "Type @ to tag an action, a document, a set or the web — or just ask."
          : "Upload a policy or regulation on the left, then ask about it here."}
      </p>
      <ul class="tips">
        <li><strong>@Inquire</strong> a question answered from your documents, with citations</li>
        <li><strong>@Summarize</strong> one or more documents, section by section</li>
        <li><strong>@Compare</strong> two versions or two policies side by side</li>
        <li><strong>@Audit</strong> a document against pasted requirements</li>
      </ul>
    </div>
  `;
}

function lastIndex(messages, role) {
  return messages.map((m) => m.role).lastIndexOf(role);
}
