// The one line a tenant pastes into its website, with optional title and accent, and a copy button.

import { useState } from "../vendor/preact/hooks.mjs";
import { html } from "../common/html.js";

const attr = (value) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

export function snippetFor(tenantId, { title, accent }) {
  const extras = [title ? ` data-title="${attr(title)}"` : "", accent ? ` data-accent="${attr(accent)}"` : ""].join("");
  return `<script src="${location.origin}/widget.js" data-tenant="${tenantId}"${extras} async></script>`;
}

async function copy(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Plain-http deployments have no async clipboard: fall back to a selected textarea.
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  const ok = document.execCommand("copy");
  area.remove();
  if (!ok) throw new Error("the browser refused to copy");
}

export function Snippet({ tenantId }) {
  const [title, setTitle] = useState("");
  const [accent, setAccent] = useState("");
  const [copied, setCopied] = useState(null);
  const text = snippetFor(tenantId, { title: title.trim(), accent });
  const onCopy = () =>
    copy(text).then(
      () => setCopied("Copied to the clipboard"),
      (e) => setCopied(`Select the text and copy it by hand (${e.message})`),
    );
  return html`<section class="block" aria-labelledby="snippet-h">
    <h2 id="snippet-h">Embed snippet</h2>
    <p class="muted">Paste this line before <code>${"</body>"}</code> on every page that should show the support chat.</p>
    <div class="options">
      <label>Title <input type="text" maxlength="60" placeholder="Support" value=${title} onInput=${(e) => setTitle(e.currentTarget.value)} /></label>
      <label>Accent
        <input type="color" value=${accent || "#4f46e5"} onInput=${(e) => setAccent(e.currentTarget.value)} />
      </label>
      ${accent ? html`<button type="button" class="link" onClick=${() => setAccent("")}>default colour</button>` : null}
    </div>
    <div class="snippet">
      <pre data-testid="embed-snippet">${text}</pre>
      <button type="button" class="primary" onClick=${onCopy}>Copy</button>
    </div>
    ${copied ? html`<p class="muted" role="status">${copied}</p>` : null}
  </section>`;
}
