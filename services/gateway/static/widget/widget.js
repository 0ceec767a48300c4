/*
 * PolicyPal support widget: the one file a tenant's website loads.
 *
 *   <script src="https://<gateway>/widget.js" data-tenant="<tenant id>" async></script>
 *   optional: data-title="Help" data-accent="#0f766e"
 *
 * A classic script (not a module) so that one line works on any site, and self-contained: it loads
 * nothing else. Everything renders inside the shadow root of one <policypal-widget> element, so the
 * host page's CSS cannot reach in and ours cannot leak out; the only global is window.PolicyPalWidget.
 * The gateway is wherever this script came from. Answers are rendered as text nodes, never as HTML.
 *
 * Sections: configuration · session storage · HTTP + SSE · styles · view · the controller.
 */
(function () {
  "use strict";

  const script = document.currentScript;
  if (!script || window.PolicyPalWidget) return;

  // ---------------------------------------------------------------- configuration

  const DEFAULT_ACCENT = "#4f46e5";
  const config = {
    gateway: new URL(script.src, document.baseURI).origin,
    tenant: (script.dataset.tenant || "").trim(),
    title: (script.dataset.title || "").trim().slice(0, 60) || "Support",
    accent: validColor(script.dataset.accent) || DEFAULT_ACCENT,
  };
  const RETRY_STEPS_S = [2, 4, 8, 15, 30];

  function validColor(value) {
    return value && window.CSS && CSS.supports("color", value) ? value : null;
  }

  // ---------------------------------------------------------------- session storage
  // sessionStorage (per tab, per site): a reload continues the same ticket, a new tab starts afresh.

  const STORE_KEY = `policypal.widget.${config.tenant}`;

  const store = {
    load() {
      try {
        return JSON.parse(sessionStorage.getItem(STORE_KEY)) || {};
      } catch {
        return {};
      }
    },
    save(patch) {
      const next = { ...store.load(), ...patch };
      try {
        sessionStorage.setItem(STORE_KEY, JSON.stringify(next));
      } catch {
        // storage full or blocked: the widget still works for this page view
      }
      return next;
    },
    clearSession() {
      const { open } = store.load();
      try {
        sessionStorage.setItem(STORE_KEY, JSON.stringify({ open }));
      } catch {
        // see save()
      }
    },
  };

  // ---------------------------------------------------------------- HTTP + SSE

  class Offline extends Error {}

  class HttpError extends Error {
    constructor(status, code, message, retryAfter) {
      super(message);
      this.status = status;
      this.code = code;
      this.retryAfter = retryAfter;
    }
  }

  async function call(path, { method = "GET", json, token, headers = {}, signal } = {}) {
    const init = { method, signal, headers: { ...headers }, credentials: "omit", mode: "cors" };
    if (token) init.headers.Authorization = `Bearer ${token}`;
    if (json !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(json);
    }
    let response;
    try {
      response = await fetch(config.gateway + path, init);
    } catch (error) {
      if (error.name === "AbortError") throw error;
      throw new Offline("network");
    }
    if (response.status >= 500) throw new Offline(`HTTP ${response.status}`);
    if (!response.ok) throw await httpError(response);
    return response;
  }

  async function httpError(response) {
    let code = "http_error";
    let message = `HTTP ${response.status}`;
    try {
      const body = await response.json();
      if (body && body.error) ({ code, message } = body.error);
    } catch {
      // not the gateway's JSON error: keep the status line
    }
    return new HttpError(response.status, code, message, Number(response.headers.get("Retry-After")) || 0);
  }

  /** Read a text/event-stream body, calling onEvent({event, id, data}) per event; resolves at its end. */
  async function readEvents(response, onEvent) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let event = { event: "message", id: null, data: [] };
    for (;;) {
      let chunk;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (error.name === "AbortError") throw error;
        throw new Offline("stream dropped");
      }
      if (chunk.done) return;
      buffer += chunk.value;
      let end;
      // Lines end with \n (sse-starlette sends \r\n; the \r is trimmed below).
      while ((end = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, end).replace(/\r$/, "");
        buffer = buffer.slice(end + 1);
        if (line === "") {
          if (event.data.length) onEvent({ event: event.event, id: event.id, data: JSON.parse(event.data.join("\n")) });
          event = { event: "message", id: null, data: [] };
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "data") event.data.push(value);
          else if (field === "event") event.event = value;
          else if (field === "id") event.id = value;
        }
      }
    }
  }

  // ---------------------------------------------------------------- styles

  const CSS_TEXT = `
:host { all: initial !important; position: fixed !important; right: 20px !important; bottom: 20px !important;
  z-index: 2147483000 !important; display: block !important; width: auto !important; height: auto !important;
  visibility: visible !important; opacity: 1 !important; }
* { box-sizing: border-box; }
.root { font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: #1f2937; --accent: ${config.accent}; }
button { font: inherit; cursor: pointer; }
button:focus-visible, textarea:focus-visible, .log:focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
.launcher { position: relative; width: 58px; height: 58px; border-radius: 50%; border: 0; background: var(--accent);
  color: #fff; display: grid; place-items: center; box-shadow: 0 8px 24px rgba(15, 23, 42, .28);
  transition: transform .15s ease; margin-left: auto; }
.launcher:hover { transform: scale(1.06); }
.launcher svg { width: 28px; height: 28px; }
.badge { position: absolute; top: 2px; right: 2px; width: 14px; height: 14px; border-radius: 50%;
  background: #ef4444; border: 2px solid #fff; display: none; }
.launcher.unread .badge { display: block; }
.panel { position: absolute; right: 0; bottom: 74px; width: min(380px, calc(100vw - 40px));
  height: min(600px, calc(100vh - 120px)); background: #fff; border-radius: 18px; overflow: hidden;
  box-shadow: 0 18px 50px rgba(15, 23, 42, .25), 0 2px 6px rgba(15, 23, 42, .08);
  display: flex; flex-direction: column; transform-origin: bottom right; animation: pop .16s ease-out; }
.panel[hidden] { display: none; }
@keyframes pop { from { opacity: 0; transform: translateY(8px) scale(.98); } }
.head { background: var(--accent); color: #fff; padding: 16px 16px 14px 18px; display: flex; align-items: center;
  gap: 12px; background-image: linear-gradient(135deg, rgba(255,255,255,.16), rgba(0,0,0,.12)); }
.avatar { width: 36px; height: 36px; border-radius: 50%; background: rgba(255,255,255,.22); display: grid;
  place-items: center; flex: none; }
.avatar svg { width: 20px; height: 20px; }
.head-text { flex: 1; min-width: 0; }
.title { font-weight: 650; font-size: 16px; margin: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.subtitle { font-size: 12.5px; opacity: .88; margin: 1px 0 0; }
.close { background: transparent; border: 0; color: #fff; width: 32px; height: 32px; border-radius: 8px;
  display: grid; place-items: center; opacity: .9; }
.close:hover { background: rgba(255,255,255,.18); }
.close svg { width: 18px; height: 18px; }
.log { flex: 1; overflow-y: auto; padding: 18px 14px 8px; background: #f8fafc; display: flex;
  flex-direction: column; gap: 10px; }
.msg { max-width: 86%; padding: 9px 13px; border-radius: 16px; white-space: pre-wrap; overflow-wrap: anywhere; }
.msg.user { align-self: flex-end; background: var(--accent); color: #fff; border-bottom-right-radius: 5px; }
.msg.bot, .msg.human { align-self: flex-start; background: #fff; border: 1px solid #e5e7eb;
  border-bottom-left-radius: 5px; box-shadow: 0 1px 2px rgba(15,23,42,.04); }
.msg.human { border-color: #a7f3d0; background: #f0fdf4; }
.msg.bridge { align-self: stretch; max-width: none; background: #fffbeb; border: 1px solid #fde68a;
  color: #78350f; border-radius: 12px; font-size: 13.5px; }
.msg.notice { align-self: center; max-width: 94%; background: #f1f5f9; color: #334155; font-size: 13px;
  border-radius: 10px; text-align: center; }
.msg.notice.error { background: #fef2f2; color: #991b1b; border: 1px solid #fecaca; }
.who { display: block; font-size: 11.5px; font-weight: 600; color: #047857; margin-bottom: 3px; }
.ref { font-size: 10.5px; font-weight: 700; vertical-align: super; line-height: 0; color: var(--accent);
  margin: 0 1px; }
.sources { margin: 8px 0 0; padding: 8px 0 0; border-top: 1px solid #eef2f7; list-style: none;
  display: flex; flex-direction: column; gap: 6px; white-space: normal; }
.source { font-size: 12.5px; color: #475569; }
.source-title { font-weight: 600; color: #1f2937; }
.source-n { display: inline-grid; place-items: center; min-width: 18px; height: 18px; border-radius: 9px;
  background: #eef2ff; color: var(--accent); font-size: 11px; font-weight: 700; margin-right: 6px; padding: 0 5px; }
.quote { display: block; margin-top: 2px; color: #64748b; font-style: italic; }
.typing { display: inline-flex; gap: 4px; padding: 4px 0; }
.typing i { width: 6px; height: 6px; border-radius: 50%; background: #94a3b8; animation: blink 1.2s infinite; }
.typing i:nth-child(2) { animation-delay: .2s; } .typing i:nth-child(3) { animation-delay: .4s; }
@keyframes blink { 0%, 80%, 100% { opacity: .25; } 40% { opacity: 1; } }
.status { min-height: 22px; padding: 2px 16px; font-size: 12px; color: #526173; background: #f8fafc; }
.waiting { display: flex; gap: 10px; align-items: center; margin: 0 12px 8px; padding: 10px 12px;
  border-radius: 12px; background: #ecfdf5; color: #065f46; font-size: 13px; border: 1px solid #a7f3d0; }
.waiting[hidden] { display: none; }
.pulse { width: 10px; height: 10px; border-radius: 50%; background: #10b981; flex: none;
  animation: pulse 1.6s infinite; }
@keyframes pulse { 0% { box-shadow: 0 0 0 0 rgba(16,185,129,.5); } 70% { box-shadow: 0 0 0 8px rgba(16,185,129,0); } 100% { box-shadow: 0 0 0 0 rgba(16,185,129,0); } }
.retry { margin-left: 6px; background: transparent; border: 0; color: inherit; text-decoration: underline; padding: 0; }
.compose { display: flex; gap: 8px; align-items: flex-end; padding: 10px 12px 12px; border-top: 1px solid #eef2f7;
  background: #fff; }
textarea { flex: 1; resize: none; border: 1px solid #d1d5db; border-radius: 12px; padding: 9px 12px;
  font: inherit; color: inherit; background: #fff; max-height: 120px; min-height: 40px; line-height: 1.4; }
textarea:disabled { background: #f3f4f6; color: #6b7280; }
.send { width: 40px; height: 40px; border-radius: 12px; border: 0; background: var(--accent); color: #fff;
  display: grid; place-items: center; flex: none; }
.send:disabled { opacity: .45; cursor: default; }
.send svg { width: 18px; height: 18px; }
.foot { text-align: center; font-size: 11px; color: #64748b; padding: 0 0 8px; background: #fff; }
@media (max-width: 480px) {
  .panel { position: fixed; inset: 0; width: 100vw; height: 100dvh; border-radius: 0; animation: none; }
  .root.open .launcher { display: none; }
}
`;

  function adoptStyles(root) {
    // A constructed stylesheet also works on host pages whose CSP forbids inline <style>.
    try {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS_TEXT);
      root.adoptedStyleSheets = [sheet];
    } catch {
      const style = document.createElement("style");
      style.textContent = CSS_TEXT;
      root.append(style);
    }
  }

  // ---------------------------------------------------------------- view

  const ICONS = {
    chat: "M12 3C6.5 3 2 6.6 2 11c0 2.4 1.3 4.6 3.4 6.1L4.6 21l4.4-2.3c.9.2 2 .3 3 .3 5.5 0 10-3.6 10-8s-4.5-8-10-8Z",
    down: "M6 9l6 6 6-6",
    close: "M6 6l12 12M18 6L6 18",
    send: "M4 12l16-8-6 16-2.5-6.5Z",
    person: "M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8Zm-7 8a7 7 0 0 1 14 0",
  };

  function el(tag, props = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props)) {
      if (key === "class") node.className = value;
      else if (key === "testid") node.dataset.testid = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value === true ? "" : value);
    }
    node.append(...children.filter((c) => c !== null && c !== undefined));
    return node;
  }

  function icon(name, filled) {
    const ns = "http://www.w3.org/2000/svg";
    const svg = document.createElementNS(ns, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    const path = document.createElementNS(ns, "path");
    path.setAttribute("d", ICONS[name]);
    path.setAttribute("fill", filled ? "currentColor" : "none");
    path.setAttribute("stroke", "currentColor");
    path.setAttribute("stroke-width", filled ? "0" : "2");
    path.setAttribute("stroke-linecap", "round");
    path.setAttribute("stroke-linejoin", "round");
    svg.append(path);
    return svg;
  }

  /** Answer text with its [n] markers as small superscripts and **bold** (which generative models
   * write) as bold; everything else stays literal text, built as text nodes, never parsed as HTML. */
  function answerText(text) {
    const out = [];
    for (const part of String(text).split(/(\[\d{1,2}\]|\*\*[^*\n]+\*\*)/)) {
      const ref = /^\[(\d{1,2})\]$/.exec(part);
      if (ref) out.push(el("span", { class: "ref", "aria-label": `source ${ref[1]}` }, ref[1]));
      else if (/^\*\*[^*\n]+\*\*$/.test(part)) out.push(el("strong", {}, part.slice(2, -2)));
      else if (part) out.push(part);
    }
    return out;
  }

  function sourcesList(citations) {
    if (!citations || !citations.length) return null;
    return el(
      "ol",
      { class: "sources", "aria-label": "Sources" },
      ...citations.map((c) =>
        el(
          "li",
          { class: "source", testid: "widget-citation" },
          el("span", { class: "source-n" }, String(c.n)),
          el("span", { class: "source-title" }, c.title || "Source"),
          c.page ? ` · page ${c.page}` : null,
          c.quote ? el("span", { class: "quote" }, `“${c.quote}”`) : null,
        ),
      ),
    );
  }

  class View {
    constructor(handlers) {
      this.host = document.createElement("policypal-widget");
      const root = this.host.attachShadow({ mode: "open" });
      adoptStyles(root);
      this.input = el("textarea", {
        testid: "widget-input",
        rows: "1",
        placeholder: "Ask a question…",
        "aria-label": "Your question",
        maxlength: "4000",
        oninput: () => this.fit(),
        onkeydown: (e) => {
          if (e.key === "Enter" && !e.shiftKey) {
            e.preventDefault();
            handlers.send();
          }
        },
      });
      this.sendButton = el("button", { class: "send", testid: "widget-send", "aria-label": "Send", onclick: handlers.send }, icon("send", true));
      this.log = el("div", { class: "log", role: "log", "aria-live": "polite", "aria-label": "Conversation", tabindex: "0" });
      this.status = el("div", { class: "status", "aria-live": "polite" });
      this.waiting = el(
        "div",
        { class: "waiting", testid: "widget-escalated", hidden: true, role: "status" },
        el("span", { class: "pulse" }),
        el("span", {}, "A member of our team is working on your question. Their answer will appear here — you can close this window and come back."),
      );
      this.badge = el("span", { class: "badge" });
      this.launcherIcons = { closed: icon("chat", true), open: icon("down") };
      this.launcher = el(
        "button",
        { class: "launcher", testid: "widget-launcher", "aria-label": `Open ${config.title} chat`, "aria-expanded": "false", onclick: handlers.toggle },
        this.launcherIcons.closed,
        this.badge,
      );
      this.panel = el(
        "section",
        { class: "panel", role: "dialog", "aria-label": `${config.title} chat`, hidden: true },
        el(
          "header",
          { class: "head" },
          el("div", { class: "avatar" }, icon("person")),
          el("div", { class: "head-text" }, el("h2", { class: "title" }, config.title), el("p", { class: "subtitle" }, "Instant answers, people when needed")),
          el("button", { class: "close", "aria-label": "Close chat", onclick: handlers.toggle }, icon("close")),
        ),
        this.log,
        this.status,
        this.waiting,
        el("div", { class: "compose" }, this.input, this.sendButton),
        el("div", { class: "foot" }, "Powered by PolicyPal"),
      );
      this.root = el("div", { class: "root" }, this.panel, this.launcher);
      root.append(this.root);
      this.panel.addEventListener("keydown", (e) => {
        if (e.key === "Escape") {
          handlers.toggle();
          this.launcher.focus();
        }
      });
    }

    mount() {
      document.body.append(this.host);
    }

    setOpen(open) {
      this.panel.hidden = !open;
      this.root.classList.toggle("open", open);
      this.launcher.setAttribute("aria-expanded", String(open));
      this.launcher.setAttribute("aria-label", `${open ? "Close" : "Open"} ${config.title} chat`);
      this.launcher.replaceChildren(open ? this.launcherIcons.open : this.launcherIcons.closed, this.badge);
      if (open) {
        this.launcher.classList.remove("unread");
        this.scroll();
        if (!this.input.disabled) this.input.focus();
      }
    }

    markUnread() {
      if (this.panel.hidden) this.launcher.classList.add("unread");
    }

    fit() {
      this.input.style.height = "auto";
      this.input.style.height = `${Math.min(this.input.scrollHeight + 2, 120)}px`;
    }

    scroll() {
      this.log.scrollTop = this.log.scrollHeight;
    }

    clear() {
      this.log.replaceChildren();
    }

    add(kind, content, { citations, testid = "widget-message" } = {}) {
      const who = kind === "human" ? el("span", { class: "who" }, "Answered by our team") : null;
      const body = kind === "bot" || kind === "human" ? answerText(content) : [content];
      const node = el("div", { class: `msg ${kind}`, testid, "data-kind": kind }, who, ...body, sourcesList(citations));
      this.log.append(node);
      this.scroll();
      return node;
    }

    draft() {
      const node = el("div", { class: "msg bot", testid: "widget-message", "data-kind": "draft", "aria-busy": "true" });
      node.append(el("span", { class: "typing", "aria-label": "Writing" }, el("i"), el("i"), el("i")));
      this.log.append(node);
      this.scroll();
      return node;
    }

    notice(text, { error = false, action } = {}) {
      const node = el("div", { class: `msg notice${error ? " error" : ""}`, testid: "widget-notice" }, text);
      if (action) node.append(el("button", { class: "retry", onclick: action.run }, action.label));
      this.log.append(node);
      this.scroll();
      return node;
    }

    setStatus(text) {
      this.status.textContent = text || "";
    }

    setWaiting(waiting) {
      this.waiting.hidden = !waiting;
    }

    setComposer(enabled, placeholder) {
      this.input.disabled = !enabled;
      this.sendButton.disabled = !enabled;
      this.input.placeholder = placeholder || "Ask a question…";
    }
  }

  // ---------------------------------------------------------------- status pace
  // Each status stays at least 300 ms (feature spec: PalReasoning's minimum display), so quick steps
  // do not flash past unread; the answer is never held back for the queue: once it is ready, queued
  // statuses are skipped and it waits only for the status on screen to finish its 300 ms. The same
  // rule as the workspace's static/workspace/status-pacer.js (this file loads nothing else).

  const MIN_STATUS_MS = 300;

  class StatusPacer {
    constructor(show) {
      this.show = show;
      this.queue = [];
      this.shownAt = -Infinity;
      this.timer = null;
      this.ready = Promise.resolve(); // outcomes are released in the order they came
    }

    push(text) {
      this.queue.push(text);
      if (this.timer === null) this.next();
    }

    next() {
      this.timer = null;
      const wait = this.shownAt + MIN_STATUS_MS - performance.now();
      if (wait > 0) {
        this.timer = setTimeout(() => this.next(), wait);
        return;
      }
      if (!this.queue.length) return;
      this.show(this.queue.shift());
      this.shownAt = performance.now();
      if (this.queue.length) this.timer = setTimeout(() => this.next(), MIN_STATUS_MS);
    }

    /** The outcome is ready: resolves when it may replace the status on screen. */
    settle() {
      clearTimeout(this.timer);
      this.timer = null;
      this.queue = [];
      const deadline = this.shownAt + MIN_STATUS_MS;
      this.shownAt = -Infinity;
      this.ready = this.ready.then(() => {
        const wait = deadline - performance.now();
        return wait > 0 ? sleep(wait) : undefined;
      });
      return this.ready;
    }
  }

  // ---------------------------------------------------------------- the controller

  class Widget {
    constructor() {
      this.view = new View({ send: () => this.send(), toggle: () => this.toggle() });
      this.pacer = new StatusPacer((text) => this.view.setStatus(text));
      this.session = null; // {token, ticketId, number, expiresAt, lastEventId}
      this.state = "idle"; // idle | connecting | ready | asking | waiting | refused | offline
      this.shown = new Set(); // message ids already on screen (history, live and replayed answers)
      this.bridges = new Set(); // run ids whose escalation bridge is on screen
      this.following = false;
      this.expiredBefore = false;
      this.retryTimer = null;
      this.attempt = 0; // failed connection attempts in a row, for the backoff
      this.offlineNotice = null;
    }

    start() {
      this.view.mount();
      const saved = store.load();
      if (saved.token && saved.expiresAt > Date.now()) {
        this.session = saved;
        this.restore();
      } else if (saved.token) {
        this.expiredBefore = true;
        store.clearSession();
      }
      if (saved.open) this.open();
      else this.renderComposer();
    }

    // -- open / close

    toggle() {
      if (this.view.panel.hidden) this.open();
      else this.close();
    }

    open() {
      store.save({ open: true });
      this.view.setOpen(true);
      if (!this.session && this.state === "idle") this.connect();
      this.renderComposer();
    }

    close() {
      store.save({ open: false });
      this.view.setOpen(false);
    }

    // -- handshake and restore

    async connect() {
      if (!config.tenant) return this.refuse("This chat is not set up correctly (the page gives no tenant).");
      this.setState("connecting");
      this.view.setStatus("Connecting…");
      try {
        const response = await call("/v1/widget/init", { method: "POST", json: { tenant_id: config.tenant } });
        const body = await response.json();
        this.startSession(body);
      } catch (error) {
        return this.failed(error, () => this.connect());
      }
    }

    startSession(body) {
      this.session = store.save({
        token: body.token,
        ticketId: body.ticket_id,
        number: body.ticket_number,
        expiresAt: Date.now() + body.expires_in * 1000,
        lastEventId: null,
      });
      this.view.setStatus("");
      this.greet();
      if (this.expiredBefore) {
        this.expiredBefore = false;
        this.view.notice(`Your earlier conversation expired, so this is a new one (ticket #${body.ticket_number}).`);
      }
      this.setState("ready");
    }

    greet() {
      this.view.add("bot", `Hi! I'm the ${config.title} assistant. Ask me anything — if I'm not sure, I'll pass your question to our team.`, { testid: "widget-greeting" });
    }

    async restore() {
      this.setState("connecting");
      try {
        const response = await call("/v1/widget/history", { token: this.session.token });
        const { messages } = await response.json();
        this.view.clear();
        this.greet();
        for (const message of messages) this.showStored(message);
        const last = messages[messages.length - 1];
        this.setState(last && last.metadata && last.metadata.kind === "escalation" ? "waiting" : "ready");
        this.follow();
      } catch (error) {
        this.failed(error, () => this.restore());
      }
    }

    showStored(message) {
      const meta = message.metadata || {};
      this.shown.add(message.id);
      if (message.role === "user") this.view.add("user", message.content);
      else if (meta.kind === "escalation") {
        this.bridges.add(meta.run_id);
        this.view.add("bridge", message.content);
      } else if (message.role === "assistant") {
        const kind = meta.answered_by === "human" ? "human" : "bot";
        this.view.add(kind, message.content, { citations: meta.citations });
      }
    }

    // -- asking

    async send() {
      const text = this.view.input.value.trim();
      if (!text || this.state !== "ready") return;
      this.view.input.value = "";
      this.view.fit();
      this.view.add("user", text);
      await this.ask(text);
    }

    async ask(text, { retried = false } = {}) {
      this.setState("asking");
      const draft = { node: this.view.draft(), text: "" };
      let terminal = null;
      try {
        const response = await call("/v1/widget/chat", { method: "POST", json: { message: text }, token: this.session.token, headers: { Accept: "text/event-stream" } });
        await readEvents(response, (event) => {
          if (this.onEvent(event, draft)) terminal = event;
        });
      } catch (error) {
        await this.pacer.settle();
        this.view.setStatus("");
        draft.node.remove();
        return this.askFailed(error, text, retried);
      }
      if (!terminal) {
        await this.pacer.settle();
        this.view.setStatus("");
        // The connection dropped mid-answer: the run goes on; pick it up from the replay.
        this.setState("ready");
        this.follow();
      }
    }

    askFailed(error, text, retried) {
      if (error instanceof HttpError && error.status === 401 && !retried) {
        this.expiredBefore = true;
        this.session = null;
        store.clearSession();
        return this.reconnectThen(() => this.ask(text, { retried: true }));
      }
      if (error instanceof HttpError && error.code === "waiting_for_agent") {
        this.setState("waiting");
        return this.follow();
      }
      this.setState("ready");
      if (error instanceof Offline) {
        this.view.input.value = text;
        return this.view.notice("We couldn't reach support, so your message wasn't sent. Please try again.", { error: true });
      }
      const wait = error.retryAfter ? ` Please wait ${error.retryAfter} s.` : "";
      this.view.notice(`${friendly(error)}${wait}`, { error: true });
    }

    async reconnectThen(next) {
      await this.connect();
      if (this.session) await next();
    }

    /** One event of a turn or a replay; returns true when it ends the turn. */
    onEvent({ event, id, data }, draft) {
      if (id) this.session = store.save({ lastEventId: Number(id) });
      const terminal = { response: this.answered, escalation: this.escalated, error: this.errored }[event];
      if (terminal) {
        this.pacer.settle().then(() => {
          this.view.setStatus("");
          terminal.call(this, data, draft);
        });
        return true;
      }
      if (event === "status") this.pacer.push(data.message);
      else if (event === "token" && draft) this.grow(draft, data.text);
      return false;
    }

    grow(draft, text) {
      if (!draft.node) draft.node = this.view.draft();
      draft.text += text;
      draft.node.replaceChildren(...answerText(draft.text));
      this.view.scroll();
    }

    answered(data, draft) {
      if (draft && draft.node) draft.node.remove();
      if (!this.shown.has(data.message_id)) {
        this.shown.add(data.message_id);
        this.view.add(data.answered_by === "human" ? "human" : "bot", data.response, { citations: data.citations });
        this.view.markUnread();
      }
      this.setState("ready");
    }

    escalated(data, draft) {
      if (draft && draft.node) draft.node.remove();
      if (!this.bridges.has(data.run_id)) {
        this.bridges.add(data.run_id);
        this.view.add("bridge", data.message);
      }
      this.setState("waiting");
      this.follow();
    }

    errored(data, draft) {
      if (draft && draft.node) draft.node.remove();
      const live = this.state === "asking";
      this.setState("ready");
      if (data.code === "timeout") return this.follow();
      // A replayed error belongs to a turn the customer already saw fail; only a live one is news.
      if (live) this.view.notice(`Sorry, something went wrong: ${data.message}`, { error: true });
    }

    // -- following the ticket: a reloaded page, a dropped stream, or a human's answer to come

    async follow() {
      if (this.following || !this.session) return;
      this.following = true;
      let delay = 0;
      try {
        for (;;) {
          if (delay) await sleep(delay * 1000);
          const result = await this.replayOnce().catch((error) => error);
          if (result instanceof HttpError && result.status === 401) return this.expired();
          if (result instanceof HttpError) return; // the ticket is gone for this session: nothing to follow
          if (result instanceof Error) {
            delay = nextDelay(delay);
            continue;
          }
          delay = 0;
          if (!result) return; // caught up and nothing running: nothing more will come
        }
      } finally {
        this.following = false;
      }
    }

    /** One replay request from the last seen event; resolves with its terminal event, if any. */
    async replayOnce() {
      const headers = { Accept: "text/event-stream", "Last-Event-ID": String(this.session.lastEventId || 0) };
      const response = await call("/v1/widget/events", { token: this.session.token, headers });
      // Tokens are drawn only for a turn this page did not start (e.g. answered while reloading).
      const draft = this.state === "asking" ? null : { node: null, text: "" };
      let terminal = null;
      await readEvents(response, (event) => {
        if (this.onEvent(event, draft)) terminal = event;
      });
      if (draft && draft.node) draft.node.remove();
      return terminal;
    }

    expired() {
      this.session = null;
      this.expiredBefore = true;
      store.clearSession();
      this.setState("idle");
      this.view.setWaiting(false);
      if (!this.view.panel.hidden) this.connect();
    }

    // -- failures

    failed(error, again) {
      this.view.setStatus("");
      if (error instanceof HttpError && error.status === 401) return this.expired();
      if (error instanceof HttpError && error.status === 403) {
        return this.refuse("This chat isn't available on this website. If you run this site, add its address to the allowed sites in PolicyPal.");
      }
      if (error instanceof HttpError) return this.refuse(friendly(error));
      this.offline(again);
    }

    refuse(text) {
      this.setState("refused");
      this.view.clear();
      this.view.notice(text, { error: true });
    }

    offline(again) {
      this.setState("offline");
      const step = RETRY_STEPS_S[Math.min(this.attempt, RETRY_STEPS_S.length - 1)];
      this.attempt += 1;
      if (this.offlineNotice) this.offlineNotice.remove();
      const retry = () => {
        clearTimeout(this.retryTimer);
        if (this.offlineNotice) this.offlineNotice.remove();
        this.offlineNotice = null;
        again();
      };
      this.offlineNotice = this.view.notice(`We can't reach support right now. Trying again in ${step} s.`, {
        error: true,
        action: { label: "Try now", run: retry },
      });
      this.retryTimer = setTimeout(retry, step * 1000);
    }

    // -- state

    setState(state) {
      this.state = state;
      if (state === "ready") this.attempt = 0;
      this.view.setWaiting(state === "waiting");
      this.renderComposer();
    }

    renderComposer() {
      const placeholders = {
        waiting: "Waiting for our team's answer…",
        refused: "Chat unavailable",
        offline: "Reconnecting…",
        connecting: "Connecting…",
        asking: "Answering…",
      };
      const enabled = this.state === "ready";
      this.view.setComposer(enabled, placeholders[this.state]);
      if (enabled && !this.view.panel.hidden) this.view.input.focus();
    }
  }

  function friendly(error) {
    const messages = {
      thread_busy: "Still answering your previous message — one moment.",
      rate_limited: "You're sending messages faster than we can answer.",
      validation_error: "That message can't be sent (it may be too long).",
    };
    return messages[error.code] || error.message;
  }

  function nextDelay(delay) {
    const index = RETRY_STEPS_S.indexOf(delay);
    return RETRY_STEPS_S[Math.min(index + 1, RETRY_STEPS_S.length - 1)];
  }

  function sleep(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  const widget = new Widget();
  window.PolicyPalWidget = Object.freeze({
    version: "1",
    open: () => widget.open(),
    close: () => widget.close(),
  });
  if (document.body) widget.start();
  else document.addEventListener("DOMContentLoaded", () => widget.start(), { once: true });
})();
