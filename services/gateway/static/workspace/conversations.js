// Left panel, top: conversations newest first, paged by keyset cursor; rename and delete in place.

import { useEffect, useState } from "../vendor/preact/hooks.mjs";
import { api } from "../common/api.js";
import { plainPreview, relativeTime } from "./format.js";
import { html } from "../common/html.js";
import { PencilIcon, TrashIcon } from "./icons.js";

const PAGE = 30;

export function Conversations({ version, activeId, onOpen, onDeleted }) {
  const [items, setItems] = useState(null);
  const [next, setNext] = useState(null);
  const [error, setError] = useState(null);

  const load = async (before = null) => {
    try {
      const query = new URLSearchParams({ limit: String(PAGE) });
      if (before) query.set("before", before);
      const page = await api(`/v1/conversations?${query}`);
      setItems((current) => (before ? [...(current || []), ...page.items] : page.items));
      setNext(page.next_before);
      setError(null);
    } catch (e) {
      setError(e.message);
    }
  };
  useEffect(() => {
    load();
  }, [version]);

  const remove = async (id) => {
    await api(`/v1/conversations/${id}`, { method: "DELETE" });
    setItems((list) => list.filter((c) => c.thread_id !== id));
    onDeleted(id);
  };
  const rename = async (id, title) => {
    const updated = await api(`/v1/conversations/${id}`, { method: "PATCH", json: { title } });
    setItems((list) => list.map((c) => (c.thread_id === id ? updated : c)));
  };

  return html`
    <section class="section conversations" aria-labelledby="conv-h">
      <div class="section-head">
        <h2 id="conv-h">Conversations</h2>
        <button type="button" class="small" onClick=${() => onOpen(null)}>+ New chat</button>
      </div>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${items === null && !error && html`<p class="muted loading">Loading conversations…</p>`}
      ${items?.length === 0 && html`<p class="empty">No conversations yet. Ask something in the chat to start one.</p>`}
      <ul class="list">
        ${(items || []).map(
          (c) => html`<${ConversationItem} key=${c.thread_id} item=${c} active=${c.thread_id === activeId}
            onOpen=${onOpen} onRename=${rename} onDelete=${remove} />`,
        )}
      </ul>
      ${next && html`<button type="button" class="ghost small more" onClick=${() => load(next)}>Load older</button>`}
    </section>
  `;
}

function ConversationItem({ item, active, onOpen, onRename, onDelete }) {
  const [mode, setMode] = useState("view");
  const [title, setTitle] = useState(item.title || "");
  const label = item.title || "Untitled conversation";
  if (mode === "rename") {
    const save = async (event) => {
      event.preventDefault();
      if (title.trim()) await onRename(item.thread_id, title.trim());
      setMode("view");
    };
    return html`<li class="item editing">
      <form onSubmit=${save} class="inline-form">
        <input aria-label="New title" value=${title} maxlength="200" onInput=${(e) => setTitle(e.target.value)}
          onKeyDown=${(e) => e.key === "Escape" && setMode("view")} ref=${(el) => el && el.focus()} />
        <button type="submit" class="small primary">Save</button>
      </form>
    </li>`;
  }
  return html`
    <li class=${`item ${active ? "active" : ""}`} data-testid="conversation-item" data-thread-id=${item.thread_id}>
      <button type="button" class="item-main" aria-current=${active ? "true" : undefined} onClick=${() => onOpen(item.thread_id)}>
        <span class="item-title">${label}</span>
        <span class="item-sub">${plainPreview(item.last_message_preview)}</span>
        <span class="item-time">${item.status === "running" ? "answering…" : relativeTime(item.last_message_at || item.created_at)}</span>
      </button>
      ${mode === "confirm"
        ? html`<span class="confirm" role="group" aria-label="Confirm delete">
            <button type="button" class="small danger" onClick=${() => onDelete(item.thread_id)}>Delete</button>
            <button type="button" class="small ghost" onClick=${() => setMode("view")}>Keep</button>
          </span>`
        : html`<span class="item-actions">
            <button type="button" class="icon" aria-label=${`Rename ${label}`} title="Rename" onClick=${() => setMode("rename")}><${PencilIcon} /></button>
            <button type="button" class="icon" aria-label=${`Delete ${label}`} title="Delete" onClick=${() => setMode("confirm")}><${TrashIcon} /></button>
          </span>`}
    </li>
  `;
}
