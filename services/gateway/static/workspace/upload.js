// Upload: file, title, version, document type and set; the new document then shows its progress
// in the list (the bar follows GET /v1/documents/{id}/events).

import { useEffect, useState } from "../vendor/preact/hooks.mjs";
import { api } from "../common/api.js";
import { safeColor } from "./format.js";
import { html } from "../common/html.js";

const TYPES = [
  ["regulatory_source", "Regulatory source"],
  ["company_policy", "Company policy"],
  ["knowledge_base", "Knowledge base"],
];

export function UploadForm({ sets, onUploaded, onDone }) {
  const [file, setFile] = useState(null);
  const [title, setTitle] = useState("");
  const [version, setVersion] = useState("1");
  const [docType, setDocType] = useState("regulatory_source");
  const [setName, setSetName] = useState("");
  const [palette, setPalette] = useState([]);
  const [color, setColor] = useState(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [duplicate, setDuplicate] = useState(null); // the library's document with the same bytes
  useEffect(() => {
    api("/v1/sets/palette").then(setPalette, () => setPalette([])); // without it the set gets the next colour
  }, []);
  // A new set name is a new set: its colour is chosen here, once (feature spec §2); an existing
  // set keeps its own.
  const newSet = setName.trim() && !sets.some((s) => s.name === setName.trim());
  const chosen = color || palette[sets.length % Math.max(palette.length, 1)] || null;

  const pick = (event) => {
    const chosen = event.target.files[0] || null;
    setFile(chosen);
    if (chosen && !title) setTitle(chosen.name.replace(/\.[^.]+$/, "").replace(/[-_]+/g, " "));
  };
  const submit = async (event, keepDuplicate = false) => {
    event?.preventDefault();
    if (!file) return setError("Choose a file first.");
    const form = new FormData();
    form.set("file", file);
    form.set("title", title.trim() || file.name);
    form.set("version", version.trim() || "1");
    form.set("doc_type", docType);
    if (setName.trim()) form.set("set_name", setName.trim());
    if (keepDuplicate) form.set("keep_duplicate", "true");
    setBusy(true);
    setError(null);
    setDuplicate(null);
    try {
      if (newSet && chosen) await api("/v1/sets", { method: "POST", json: { name: setName.trim(), color: chosen } });
      await api("/v1/documents", { method: "POST", body: form });
      onUploaded();
      onDone();
    } catch (e) {
      if (e.code === "duplicate_document") {
        setDuplicate(e.details.existing);
        onUploaded(); // a set made for this upload now exists: "Keep both" must not make it again
      }
      else setError(e.message);
    } finally {
      setBusy(false);
    }
  };
  return html`
    <form class="upload card" onSubmit=${submit} aria-label="Upload a document">
      <label for="up-file">File (PDF, Word, PowerPoint, Excel, text, Markdown, HTML, EPUB)</label>
      <input id="up-file" type="file" data-testid="upload-input" accept=".pdf,.docx,.pptx,.xlsx,.txt,.md,.markdown,.html,.htm,.epub,.xps" onChange=${pick} />
      <label for="up-title">Title</label>
      <input id="up-title" value=${title} maxlength="300" required onInput=${(e) => setTitle(e.target.value)} />
      <div class="row">
        <div>
          <label for="up-version">Version</label>
          <input id="up-version" value=${version} maxlength="100" onInput=${(e) => setVersion(e.target.value)} />
        </div>
        <div>
          <label for="up-type">Type</label>
          <select id="up-type" value=${docType} onChange=${(e) => setDocType(e.target.value)}>
            ${TYPES.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
          </select>
        </div>
      </div>
      <label for="up-set">Set <span class="muted">(optional; new names create a set)</span></label>
      <input id="up-set" list="up-sets" value=${setName} maxlength="100" onInput=${(e) => setSetName(e.target.value)} />
      <datalist id="up-sets">${sets.map((s) => html`<option value=${s.name} />`)}</datalist>
      ${newSet && palette.length > 0 &&
      html`<fieldset class="palette" data-testid="set-colours">
        <legend>Colour of the new set</legend>
        ${palette.map(
          (c) => html`<label class="swatch-pick" title=${c}>
            <input type="radio" name="set-colour" value=${c} checked=${c === chosen} onChange=${() => setColor(c)}
              aria-label=${`Set colour ${c}`} />
            <span class="swatch-dot" style=${{ background: safeColor(c) }} aria-hidden="true"></span>
          </label>`,
        )}
      </fieldset>`}
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${duplicate &&
      html`<div class="duplicate" role="alert" data-testid="upload-duplicate">
        <p>This file is already in your library as <strong>${duplicate.display_name}</strong>.</p>
        <button type="button" onClick=${onDone}>Use that one</button>
        <button type="button" data-testid="upload-keep-duplicate" onClick=${() => submit(null, true)}>Keep both</button>
      </div>`}
      <button type="submit" class="primary" disabled=${busy} data-testid="upload-submit">${busy ? "Uploading…" : "Upload"}</button>
    </form>
  `;
}
