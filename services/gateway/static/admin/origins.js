// The origins allowed to embed the widget: one row each, saved together with
// PUT /v1/admin/tenants/{id}/domains. The gateway validates every origin; its 422 names the row
// (`allowed_domains.<i>`), and the message appears under that row.

import { useState } from "../vendor/preact/hooks.mjs";
import { api } from "../common/api.js";
import { html } from "../common/html.js";

function rowErrors(error) {
  const byRow = {};
  for (const item of error.details || []) {
    const match = /^allowed_domains\.(\d+)$/.exec(item.field || "");
    if (match) byRow[match[1]] = item.message.replace(/^Value error, /, "");
  }
  return byRow;
}

export function Origins({ tenant, onSaved }) {
  const [rows, setRows] = useState(tenant.allowed_domains.length ? tenant.allowed_domains : [""]);
  const [errors, setErrors] = useState({});
  const [message, setMessage] = useState(null);
  const [busy, setBusy] = useState(false);

  const edit = (index, value) => {
    setRows(rows.map((r, i) => (i === index ? value : r)));
    setMessage(null);
  };
  const remove = (index) => {
    setRows(rows.filter((_, i) => i !== index));
    setErrors({});
  };
  const save = async (event) => {
    event.preventDefault();
    const kept = rows.map((r) => r.trim()).filter(Boolean);
    setBusy(true);
    setMessage(null);
    try {
      const saved = await api(`/v1/admin/tenants/${tenant.id}/domains`, { method: "PUT", json: { allowed_domains: kept } });
      setRows(saved.allowed_domains.length ? saved.allowed_domains : [""]);
      setErrors({});
      setMessage({ ok: true, text: `Saved. ${saved.allowed_domains.length} site(s) may show the widget.` });
      onSaved(saved);
    } catch (error) {
      const byRow = rowErrors(error);
      setRows(kept.length ? kept : [""]);
      setErrors(byRow);
      setMessage({ ok: false, text: Object.keys(byRow).length ? "Some addresses are not valid origins; nothing was saved." : error.message });
    } finally {
      setBusy(false);
    }
  };

  return html`<form class="block" aria-labelledby="origins-h" onSubmit=${save} novalidate>
    <h2 id="origins-h">Allowed sites</h2>
    <p class="muted">
      The widget only opens on these origins — scheme, host and port exactly as the browser shows them, e.g.
      <code>https://shop.example</code> or <code>http://localhost:3000</code>, without a path.
    </p>
    <ul class="origins">
      ${rows.map(
        (row, i) => html`<li key=${i}>
          <div class="origin-row">
            <input
              type="url"
              data-testid="allowed-origin"
              aria-label=${`Allowed origin ${i + 1}`}
              aria-invalid=${errors[i] ? "true" : undefined}
              aria-describedby=${errors[i] ? `origin-error-${i}` : undefined}
              class=${errors[i] ? "invalid" : ""}
              placeholder="https://www.example.com"
              value=${row}
              onInput=${(e) => edit(i, e.currentTarget.value)}
            />
            <button type="button" class="remove" aria-label=${`Remove origin ${i + 1}`} onClick=${() => remove(i)}>Remove</button>
          </div>
          ${errors[i] ? html`<p class="field-error" id=${`origin-error-${i}`} data-testid="origin-error">${errors[i]}</p>` : null}
        </li>`,
      )}
    </ul>
    <div class="form-actions">
      <button type="button" class="secondary" onClick=${() => setRows([...rows, ""])}>Add a site</button>
      <button type="submit" class="primary" disabled=${busy}>${busy ? "Saving…" : "Save allowed sites"}</button>
    </div>
    ${message ? html`<p class=${`notice ${message.ok ? "success" : "error"}`} role=${message.ok ? "status" : "alert"}>${message.text}</p>` : null}
  </form>`;
}
