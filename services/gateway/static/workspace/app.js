// The workspace: sign-in gate, then three panels — conversations and documents, the chat, the
// sources of the selected answer — and the PDF viewer on top when a citation is opened.

import { useCallback, useEffect, useMemo, useState } from "../vendor/preact/hooks.mjs";
import { api } from "../common/api.js";
import { getToken, signOut, tokenClaims } from "../common/auth.js";
import { endSession, goToSignIn } from "../common/session.js";
import { ChatPanel } from "./chat.js";
import { Conversations } from "./conversations.js";
import { Documents } from "./documents.js";
import { html } from "../common/html.js";
import { PdfViewer } from "./pdf-viewer.js";
import { SourcesPanel } from "./sources.js";
import { useThread } from "./use-thread.js";

export function App() {
  const [token] = useState(getToken());
  useEffect(() => {
    const onUnauthorized = (event) => {
      signOut();
      goToSignIn(event.detail || "Your session has ended.");
    };
    window.addEventListener("pp:unauthorized", onUnauthorized);
    if (!getToken()) goToSignIn(null);
    return () => window.removeEventListener("pp:unauthorized", onUnauthorized);
  }, []);
  return token ? html`<${Workspace} />` : null;
}

function Workspace() {
  const [groups, setGroups] = useState(null);
  const [docsError, setDocsError] = useState(null);
  const [conversationsVersion, setConversationsVersion] = useState(0);
  const [selectedId, setSelectedId] = useState(null);
  const [viewer, setViewer] = useState(null);
  const refreshConversations = useCallback(() => setConversationsVersion((v) => v + 1), []);
  const thread = useThread({ onTurnEnded: refreshConversations });

  const loadDocuments = useCallback(async () => {
    try {
      setGroups((await api("/v1/documents")).groups);
      setDocsError(null);
    } catch (error) {
      setDocsError(error.message);
    }
  }, []);
  useEffect(() => {
    loadDocuments();
  }, [loadDocuments]);

  const documents = useMemo(() => (groups || []).flatMap((g) => g.documents), [groups]);
  const sets = useMemo(
    () => (groups || []).filter((g) => g.set_id).map((g) => ({ id: g.set_id, name: g.set_name, color: g.set_color })),
    [groups],
  );
  const answers = thread.messages.filter((m) => m.role === "assistant");
  const selected = answers.find((m) => m.id === selectedId) || answers.at(-1) || null;
  const cited = (selected?.meta?.citations || []).length > 0;

  // The sources panel is a peek strip until the answer in view has sources; then it opens by itself
  // (where there is room for it beside the chat). The reader can close it, and the next answer with
  // sources opens it again.
  const wide = () => window.matchMedia("(min-width: 1024px)").matches;
  const [sourcesOpen, setSourcesOpen] = useState(false);
  const [navOpen, setNavOpen] = useState(false);
  useEffect(() => {
    if (cited && wide()) setSourcesOpen(true);
  }, [selected?.id, cited]);

  const openCitation = useCallback((citation) => {
    if (citation.source_type === "web" && citation.url) {
      window.open(citation.url, "_blank", "noopener,noreferrer");
    } else if (citation.document_id) {
      setViewer({ citation, opener: document.activeElement });
    }
  }, []);
  const closeViewer = useCallback(() => {
    viewer?.opener?.focus?.();
    setViewer(null);
  }, [viewer]);

  const claims = tokenClaims() || {};
  const [me, setMe] = useState(null);
  useEffect(() => {
    api("/v1/me").then(setMe, () => setMe(null)); // the name is a courtesy: without it the header names the token
  }, []);
  const who = me?.display_name || me?.email || claims.name || null;
  return html`
    <div class="shell">
      <header class="topbar">
        <button type="button" class="ghost small menu" data-testid="open-nav" aria-expanded=${navOpen} aria-controls="workspace-nav"
          onClick=${() => setNavOpen(!navOpen)}>☰<span class="visually-hidden"> Conversations and documents</span></button>
        <div class="brand"><span class="logo" aria-hidden="true">P</span> PolicyPal</div>
        <div class="who">
          ${who ? html`<span class="muted">Signed in as</span> <span data-testid="signed-in-as">${who}</span>` : html`<span class="muted">Signed in</span>`}
          <a class="ghost small" href="/settings" data-testid="open-settings">Settings</a>
          <button type="button" class="ghost small" onClick=${async () => { await endSession(); location.assign("/signin"); }}>Sign out</button>
        </div>
      </header>
      <div class=${`panels ${sourcesOpen ? "sources-open" : "sources-closed"} ${navOpen ? "nav-open" : ""} ${cited ? "has-sources" : ""}`}>
        ${(navOpen || sourcesOpen) &&
        html`<div class="scrim" aria-hidden="true" onClick=${() => { setNavOpen(false); setSourcesOpen(false); }}></div>`}
        <nav class="left" id="workspace-nav" aria-label="Conversations and documents">
          <${Conversations}
            version=${conversationsVersion}
            activeId=${thread.threadId}
            onOpen=${(id) => { setSelectedId(null); setNavOpen(false); thread.open(id); }}
            onDeleted=${(id) => thread.threadId === id && thread.open(null)}
          />
          <${Documents} groups=${groups} error=${docsError} sets=${sets} onChanged=${loadDocuments} />
        </nav>
        <main class="middle" aria-label="Chat">
          <${ChatPanel}
            thread=${thread}
            documents=${documents}
            sets=${sets}
            selectedId=${selected?.id}
            onSelect=${setSelectedId}
            onCite=${openCitation}
          />
        </main>
        <aside class="right" aria-label="Sources">
          <${SourcesPanel} message=${selected} open=${sourcesOpen} onToggle=${() => setSourcesOpen(!sourcesOpen)} onOpen=${openCitation} />
        </aside>
      </div>
      ${viewer && html`<${PdfViewer} citation=${viewer.citation} onClose=${closeViewer} />`}
    </div>
  `;
}
