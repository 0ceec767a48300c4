// Left panel, bottom: documents grouped by set (with the set's colour), live ingestion progress,
// delete with confirmation, and the upload form.

import { useState } from "../vendor/preact/hooks.mjs";
import { api } from "../common/api.js";
import { safeColor, versionLabel } from "./format.js";
import { html } from "../common/html.js";
import { TrashIcon } from "./icons.js";
import { ProgressBar, indexingNote, useIngestProgress } from "./ingest-progress.js";
import { UploadForm } from "./upload.js";

// The feature spec's names for the two document types (and the support knowledge base); each has its
// accent colour (gold for a regulatory source, green for a company policy) on its tag.
const DOC_TYPES = { regulatory_source: "Regulatory source", company_policy: "Company policy", knowledge_base: "Knowledge base" };

export function Documents({ groups, error, sets, onChanged }) {
  const [uploading, setUploading] = useState(false);
  const count = (groups || []).reduce((n, g) => n + g.documents.length, 0);
  return html`
    <section class="section documents" aria-labelledby="docs-h">
      <div class="section-head">
        <h2 id="docs-h">Documents ${groups && html`<span class="count">${count}</span>`}</h2>
        <button type="button" class="small" aria-expanded=${uploading} onClick=${() => setUploading(!uploading)}>
          ${uploading ? "Close" : "+ Upload"}
        </button>
      </div>
      ${uploading && html`<${UploadForm} sets=${sets} onUploaded=${onChanged} onDone=${() => setUploading(false)} />`}
      ${error && html`<p class="error" role="alert">Could not load documents: ${error}</p>`}
      ${groups === null && !error && html`<p class="muted loading">Loading documents…</p>`}
      ${groups?.length === 0 && html`<p class="empty">No documents yet. Upload a PDF to ask questions about it.</p>`}
      ${(groups || []).map(
        (group) => html`
          <div class="doc-group" key=${group.set_id || "none"}>
            <h3 class="set-name">
              <span class="swatch" style=${{ background: safeColor(group.set_color) }} aria-hidden="true"></span>
              ${group.set_name || "No set"}
            </h3>
            <ul class="list">
              ${group.documents.map(
                (doc) => html`<${DocItem} key=${doc.id} doc=${doc} color=${safeColor(group.set_color)} onChanged=${onChanged} />`,
              )}
            </ul>
          </div>
        `,
      )}
    </section>
  `;
}

function DocItem({ doc, color, onChanged }) {
  const [confirming, setConfirming] = useState(false);
  const [failure, setFailure] = useState(null);
  const progress = useIngestProgress(doc, (end) => {
    if (end.status === "failed") setFailure(end.error || "ingestion failed");
    onChanged();
  });
  const remove = async () => {
    await api(`/v1/documents/${doc.id}`, { method: "DELETE" });
    onChanged();
  };
  const error = failure || (doc.status === "failed" ? doc.error || "ingestion failed" : null);
  return html`
    <li class=${`item doc type-${doc.doc_type}`} data-testid="doc-item" data-doc-id=${doc.id} data-status=${doc.status} data-set-color=${color}>
      <span class="doc-mark" style=${{ background: color }} aria-hidden="true"></span>
      <div class="doc-body">
        <span class="item-title" title=${doc.display_name}>${doc.title}</span>
        <span class="item-sub">${versionLabel(doc.version)}${doc.page_count ? ` · ${doc.page_count} p.` : ""}
          <span class="doc-type" data-testid="doc-type">${DOC_TYPES[doc.doc_type] || doc.doc_type.replace("_", " ")}</span></span>
        ${progress && doc.status !== "ready" && !error && html`<${ProgressBar} progress=${progress} title=${doc.title} />`}
        ${error && html`<span class="doc-error" role="status">Failed: ${error}</span>`}
        ${!error && doc.warning && html`<span class="doc-warning" data-testid="doc-warning">${doc.warning}</span>`}
        ${!error && indexingNote(progress) &&
          html`<span class="doc-indexing" role="status" data-testid="doc-indexing">${indexingNote(progress)}</span>`}
      </div>
      ${confirming
        ? html`<span class="confirm" role="group" aria-label=${`Confirm deleting ${doc.title}`}>
            <button type="button" class="small danger" onClick=${remove}>Delete</button>
            <button type="button" class="small ghost" onClick=${() => setConfirming(false)}>Keep</button>
          </span>`
        : html`<button type="button" class="icon" aria-label=${`Delete ${doc.title}`} title="Delete" onClick=${() => setConfirming(true)}><${TrashIcon} /></button>`}
    </li>
  `;
}
