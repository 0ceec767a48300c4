// The human agents' inbox (/agent): the live queue on the left, the open ticket on the right.

import { render } from "../vendor/preact/preact.mjs";
import { useEffect, useState } from "../vendor/preact/hooks.mjs";
import { adoptTokenFromHash, getToken, signOut, tokenClaims } from "../common/auth.js";
import { followQueue } from "./feed.js";
import { html } from "../common/html.js";
import { Queue } from "./queue.js";
import { SignIn } from "../common/signin.js";
import { TicketView } from "./ticket.js";

const ROLES = ["agent", "admin"];

/** Newest escalation first: the question that just came in is the one the customer is still there for. */
function ordered(byId) {
  return [...byId.values()].sort((a, b) => new Date(b.updated_at) - new Date(a.updated_at));
}

function useQueue(enabled, onDenied) {
  const [byId, setById] = useState(new Map());
  const [live, setLive] = useState(false);
  useEffect(() => {
    if (!enabled) return undefined;
    const controller = new AbortController();
    followQueue({
      signal: controller.signal,
      onLive: setLive,
      onSnapshot: (tickets) => setById(new Map(tickets.map((t) => [t.id, t]))),
      onTicket: (ticket) =>
        setById((current) => {
          const next = new Map(current);
          if (ticket.status === "pending_human") next.set(ticket.id, ticket);
          else next.delete(ticket.id);
          return next;
        }),
    }).catch((error) => onDenied(error.message));
    return () => controller.abort();
  }, [enabled]);
  const remove = (id) =>
    setById((current) => {
      const next = new Map(current);
      next.delete(id);
      return next;
    });
  return { tickets: ordered(byId), live, remove };
}

function App() {
  const [signedIn, setSignedIn] = useState(() => ROLES.includes(tokenClaims()?.role));
  const [reason, setReason] = useState(getToken() && !signedIn ? "This token is not an agent's." : null);
  const [selectedId, setSelectedId] = useState(null);
  const denied = (message) => {
    signOut();
    setReason(message);
    setSignedIn(false);
  };
  const { tickets, live, remove } = useQueue(signedIn, denied);
  useEffect(() => {
    const onUnauthorized = (event) => denied(event.detail);
    window.addEventListener("pp:unauthorized", onUnauthorized);
    return () => window.removeEventListener("pp:unauthorized", onUnauthorized);
  }, []);

  if (!signedIn) {
    return html`<${SignIn} role="agent" reason=${reason} onSignedIn=${() => setSignedIn(ROLES.includes(tokenClaims()?.role))} />`;
  }
  const claims = tokenClaims() || {};
  return html`<div class="inbox">
    <header class="top">
      <h1><span class="logo">P</span> Support inbox</h1>
      <span class="me">${claims.sub} · ${claims.role}</span>
    </header>
    <div class="columns">
      <${Queue} tickets=${tickets} selectedId=${selectedId} onSelect=${setSelectedId} live=${live} />
      ${selectedId
        ? html`<${TicketView} key=${selectedId} ticketId=${selectedId} onResolved=${remove} />`
        : html`<section class="detail placeholder">
            <p class="empty-title">Pick a ticket</p>
            <p>Open a waiting question to read the conversation and answer the customer.</p>
          </section>`}
    </div>
  </div>`;
}

adoptTokenFromHash();
render(html`<${App} />`, document.getElementById("app"));
