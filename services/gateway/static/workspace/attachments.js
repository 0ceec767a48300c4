// Files dropped or pasted on the composer: each is uploaded to the user's library at once (as the
// upload form does), shown as a chip, and sent with the message as `attachment_ids`, so the turn is
// about them and waits until they are read (docs/langgraph-clients.md, "Files attached").

import { useState } from "../vendor/preact/hooks.mjs";
import { api } from "../common/api.js";
import { html } from "../common/html.js";

const stem = (name) => name.replace(/\.[^.]+$/, "") || name;

async function uploadOne(file) {
  const form = new FormData();
  form.append("file", file);
  form.append("title", stem(file.name));
  try {
    return (await api("/v1/documents", { method: "POST", body: form })).id;
  } catch (error) {
    // The same bytes are already in the library under another title: that document is the attachment.
    if (error.code === "duplicate_document" && error.details?.existing?.id) return error.details.existing.id;
    throw error;
  }
}

export function useAttachments() {
  const [files, setFiles] = useState([]);
  const update = (key, change) => setFiles((list) => list.map((f) => (f.key === key ? { ...f, ...change } : f)));
  const add = (fileList) => {
    for (const file of fileList) {
      const key = `${file.name}-${Date.now()}-${Math.random()}`;
      setFiles((list) => [...list, { key, name: file.name, id: null, error: null }]);
      uploadOne(file).then(
        (id) => update(key, { id }),
        (error) => update(key, { error: error.message }),
      );
    }
  };
  const remove = (key) => setFiles((list) => list.filter((f) => f.key !== key));
  const clear = () => setFiles([]);
  const uploading = files.some((f) => !f.id && !f.error);
  const ids = files.filter((f) => f.id).map((f) => f.id);
  return { files, add, remove, clear, uploading, ids };
}

export function AttachmentChips({ attachments }) {
  if (!attachments.files.length) return null;
  return html`<ul class="attachments" data-testid="attachments">
    ${attachments.files.map(
      (f) => html`<li key=${f.key} class=${f.error ? "error" : ""} data-testid="attachment" data-ready=${f.id ? "true" : "false"}>
        📎 ${f.name} <span class="muted">${f.error ? `— ${f.error}` : f.id ? "" : "— uploading…"}</span>
        <button type="button" class="small ghost" aria-label=${`Remove ${f.name}`} onClick=${() => attachments.remove(f.key)}>×</button>
      </li>`,
    )}
  </ul>`;
}
