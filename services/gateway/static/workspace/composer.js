// The input: a small contenteditable editor with @-mentions (chips that cannot be half-edited),
// Enter to send, Shift+Enter for a new line, Stop while an answer runs. It emits the TipTap JSON
// the API takes (tiptap.js); see the README for why this is not TipTap itself. While PalAssist waits
// for a text answer or for documents to be tagged, what is sent answers it (`role`, pending-answer.js).

import { useEffect, useMemo, useRef, useState } from "../vendor/preact/hooks.mjs";
import { AttachmentChips, useAttachments } from "./attachments.js";
import { html } from "../common/html.js";
import { MentionMenu } from "./mention-menu.js";
import { filterMentions, mentionCandidates } from "./mentions.js";
import { ROLE_HINT } from "./pending-answer.js";
import { chatRequest, serializeEditor } from "./tiptap.js";

/** The "@query" being typed just before the caret, if any. */
function mentionQuery() {
  const selection = window.getSelection();
  if (!selection.rangeCount || !selection.isCollapsed) return null;
  const { startContainer: node, startOffset: offset } = selection.getRangeAt(0);
  if (node.nodeType !== Node.TEXT_NODE) return null;
  const before = node.data.slice(0, offset);
  // Spaces are allowed ("@data retention"): the menu simply closes once nothing matches any more.
  const match = before.match(/(^|\s)@([^@\n]{0,60})$/);
  return match ? { node, start: offset - match[2].length - 1, end: offset, query: match[2] } : null;
}

function chip(candidate) {
  const span = document.createElement("span");
  span.className = `mention mention-${candidate.category}`;
  span.contentEditable = "false";
  span.dataset.mention = "true";
  span.dataset.id = candidate.id;
  span.dataset.label = candidate.label;
  span.dataset.category = candidate.category;
  span.textContent = `@${candidate.label}`;
  return span;
}

// Documents tagged one by one that one request can use (services/resolver/nodes.py); a set is a
// scope and is not counted.
export const MAX_TAGGED_DOCUMENTS = 5;

const countTagged = (root) => root.querySelectorAll('[data-mention][data-category="document"]').length;
// What can answer "📄 Tag specific documents": documents and sets only.
const TAGGABLE = new Set(["document", "set"]);

/** Put "@" at the end of the editor with the caret after it, so the menu opens on every candidate. */
function startMention(root) {
  root.focus();
  const text = root.textContent;
  const node = document.createTextNode(text && !/\s$/.test(text) ? " @" : "@");
  root.append(node);
  const caret = document.createRange();
  caret.setStart(node, node.data.length);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(caret);
}

export function Composer({ documents, sets, running, role = null, mentionRequest = 0, onSend, onStop }) {
  const editor = useRef(null);
  const [query, setQuery] = useState(null);
  const [active, setActive] = useState(0);
  const [empty, setEmpty] = useState(true);
  const [tagged, setTagged] = useState(0);
  const [problem, setProblem] = useState(null);
  const all = useMemo(() => mentionCandidates(documents, sets), [documents, sets]);
  const candidates = role === "tag" ? all.filter((c) => TAGGABLE.has(c.category)) : all;
  const full = tagged >= MAX_TAGGED_DOCUMENTS;
  const attachments = useAttachments();
  const [dragging, setDragging] = useState(false);
  // At the limit the menu offers no further document (the warning below says why); sets stay.
  const options = query ? filterMentions(full ? candidates.filter((c) => c.category !== "document") : candidates, query.query) : [];

  const refresh = () => {
    setProblem(null);
    setEmpty(!editor.current.textContent.trim());
    setTagged(countTagged(editor.current));
    const q = mentionQuery();
    setQuery(q);
    setActive(0);
  };

  const insert = (candidate) => {
    const q = mentionQuery() || query;
    if (!q) return;
    const { node, start, end } = q;
    const range = document.createRange();
    range.setStart(node, start);
    range.setEnd(node, Math.min(end, node.data.length));
    range.deleteContents();
    const mention = chip(candidate);
    const space = document.createTextNode("\u00a0");
    range.insertNode(space);
    range.insertNode(mention);
    const selection = window.getSelection();
    selection.removeAllRanges();
    const caret = document.createRange();
    caret.setStartAfter(space);
    selection.addRange(caret);
    setQuery(null);
    setEmpty(false);
    setTagged(countTagged(editor.current));
  };

  // PalAssist's "Tag specific documents" asks for the menu: open it on the same question.
  useEffect(() => {
    if (!mentionRequest) return;
    startMention(editor.current);
    refresh();
  }, [mentionRequest]);

  const send = () => {
    if (running || attachments.uploading) return;
    const request = chatRequest(serializeEditor(editor.current));
    const names = attachments.files.filter((f) => f.id).map((f) => f.name);
    if (attachments.ids.length) {
      request.attachment_ids = attachments.ids;
      // Files alone: their summary is asked for, as on /lg.
      if (!request.message) Object.assign(request, { message: `Attached: ${names.join(", ")}`, action: request.action || "summarize" });
    }
    if (!request.message) return;
    // A message that cannot answer the pending question stays in the editor, with the reason.
    const refused = onSend(request);
    if (typeof refused === "string") {
      setProblem(refused);
      return;
    }
    attachments.clear();
    editor.current.replaceChildren();
    setEmpty(true);
    setTagged(0);
    setQuery(null);
  };

  const keyDown = (event) => {
    if (options.length) {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        const step = event.key === "ArrowDown" ? 1 : -1;
        setActive((i) => (i + step + options.length) % options.length);
        return;
      }
      if (event.key === "Enter" || event.key === "Tab") {
        event.preventDefault();
        insert(options[active]);
        return;
      }
      if (event.key === "Escape") {
        event.preventDefault();
        setQuery(null);
        return;
      }
    }
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    }
  };

  // Stop hands the caret back to the message: the button is about to become Send, disabled while the
  // message is empty, which would leave keyboard focus nowhere.
  const dragOver = (event) => {
    if (![...(event.dataTransfer?.types || [])].includes("Files")) return;
    event.preventDefault();
    setDragging(true);
  };
  const drop = (event) => {
    if (!event.dataTransfer?.files?.length) return;
    event.preventDefault();
    setDragging(false);
    attachments.add(event.dataTransfer.files);
  };

  const stop = () => {
    onStop();
    editor.current.focus();
  };

  // A moment after the editor loses focus, so a pick in flight still finds its option; and only if
  // the editor is still unfocused then: a quick return (Stop, then straight back to "@…") keeps the menu.
  const closeMenuAfterBlur = () =>
    setTimeout(() => document.activeElement !== editor.current && setQuery(null), 150);

  // Pasted content arrives as plain text only: no foreign markup enters the editor. Pasted files are
  // attachments.
  const paste = (event) => {
    event.preventDefault();
    if (event.clipboardData.files?.length) {
      attachments.add(event.clipboardData.files);
      return;
    }
    const text = event.clipboardData.getData("text/plain");
    const selection = window.getSelection();
    if (!selection.rangeCount) return;
    const range = selection.getRangeAt(0);
    range.deleteContents();
    const node = document.createTextNode(text);
    range.insertNode(node);
    range.setStartAfter(node);
    range.collapse(true);
    selection.removeAllRanges();
    selection.addRange(range);
    refresh();
  };

  return html`
    <div class=${`composer ${dragging ? "dragging" : ""}`} onDragOver=${dragOver} onDragLeave=${() => setDragging(false)} onDrop=${drop}>
      <${AttachmentChips} attachments=${attachments} />
      ${options.length > 0 && html`<${MentionMenu} options=${options} active=${active} onPick=${insert} onHover=${setActive} />`}
      <div class="composer-box">
        <div class=${`editor ${empty ? "is-empty" : ""}`} ref=${editor} contenteditable="true" role="textbox" aria-multiline="true"
          aria-label="Message" aria-autocomplete="list" aria-controls=${options.length ? "mention-menu" : undefined}
          aria-activedescendant=${options.length ? `mention-${active}` : undefined}
          data-testid="chat-input" data-placeholder="Ask about your documents — type @ to tag an action, document, set or the web"
          onInput=${refresh} onKeyDown=${keyDown} onKeyUp=${(e) => ["ArrowLeft", "ArrowRight", "Home", "End"].includes(e.key) && refresh()}
          onPaste=${paste} onBlur=${closeMenuAfterBlur}></div>
        ${running
          ? html`<button type="button" class="stop" data-testid="stop" onClick=${stop} aria-label="Stop the answer">■ Stop</button>`
          : html`<button type="button" class="primary send" data-testid="send" onClick=${send} disabled=${(empty && !attachments.ids.length) || attachments.uploading} aria-label="Send">Send ↵</button>`}
      </div>
      ${problem
        ? html`<p class="composer-warning" role="alert" data-testid="composer-problem">${problem}</p>`
        : full
          ? html`<p class="composer-warning" role="status" data-testid="tag-limit">
              ${tagged} documents tagged: the most one request can use one by one. To use more, put them in a set and tag the set.
            </p>`
          : html`<p class=${`composer-hint ${role ? "answering" : ""}`} data-testid="composer-hint">
              ${role ? ROLE_HINT[role] : "Enter to send · Shift+Enter for a new line · @ to mention"}
            </p>`}
    </div>
  `;
}
