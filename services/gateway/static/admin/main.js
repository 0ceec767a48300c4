// Tenant administration (/admin): the widget's embed snippet and the sites allowed to show it.

import { render } from "../vendor/preact/preact.mjs";
import { useEffect, useState } from "../vendor/preact/hooks.mjs";
import { api } from "../common/api.js";
import { adoptTokenFromHash, signOut, tokenClaims } from "../common/auth.js";
import { html } from "../common/html.js";
import { SignIn } from "../common/signin.js";
import { Origins } from "./origins.js";
import { Snippet } from "./snippet.js";

function App() {
  const [claims, setClaims] = useState(() => tokenClaims());
  const [tenant, setTenant] = useState(null);
  const [reason, setReason] = useState(null);
  const isAdmin = claims?.role === "admin";

  useEffect(() => {
    if (!isAdmin) return;
    api(`/v1/admin/tenants/${claims.tenant_id}`).then(setTenant, (error) => {
      signOut();
      setReason(error.message);
      setClaims(null);
    });
  }, [isAdmin, claims]);

  if (!isAdmin) {
    const why = reason || (claims ? "This token is not an admin's." : null);
    return html`<${SignIn} role="admin" reason=${why} onSignedIn=${() => setClaims(tokenClaims())} />`;
  }
  return html`<div class="admin">
    <header class="top">
      <h1><span class="logo">P</span> Support widget</h1>
      <span class="me">${claims.sub} · admin${tenant ? ` · ${tenant.name}` : ""}</span>
    </header>
    <main class="admin-main">
      ${tenant
        ? html`<${Snippet} tenantId=${tenant.id} /><${Origins} tenant=${tenant} onSaved=${setTenant} />`
        : html`<p class="muted" aria-busy="true">Loading…</p>`}
    </main>
  </div>`;
}

adoptTokenFromHash();
render(html`<${App} />`, document.getElementById("app"));
