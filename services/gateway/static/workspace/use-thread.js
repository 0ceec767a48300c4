// The open conversation: its messages, the answer being streamed (PalReasoning steps and text), the
// pending PalAssist question, and the actions on them (send, answer PalAssist, stop, open, reattach).

import { useCallback, useEffect, useRef, useState } from "../vendor/preact/hooks.mjs";
import { api } from "../common/api.js";
import { showThread, threadInAddress } from "./address.js";
import { loadLive } from "./live-store.js";
import { followRun } from "./run-stream.js";
import { createPacer } from "./status-pacer.js";

export function historyMessage(row) {
  const kind = row.metadata?.kind;
  const role = row.role === "system" || kind === "pal_assist" ? "system" : row.role;
  return { id: row.id, role, content: row.content, meta: row.metadata || {}, steps: [], at: row.created_at };
}

const now = () => new Date().toISOString();

/** The conversation up to its last user message (`keep`: with it, else before it). */
function throughLastUser(list, keep) {
  const last = list.map((m) => m.role).lastIndexOf("user");
  return last < 0 ? list : list.slice(0, keep ? last + 1 : last);
}

export function useThread({ onTurnEnded }) {
  const [threadId, setThreadId] = useState(null);
  const [messages, setMessages] = useState([]);
  const [live, setLive] = useState(null);
  const [pending, setPending] = useState(null);
  const [loading, setLoading] = useState(false);
  const [loadError, setLoadError] = useState(null);
  const [title, setTitle] = useState(null);
  const abort = useRef(null);
  const text = useRef("");
  const steps = useRef([]);
  const frame = useRef(0);
  const threadRef = useRef(null);
  threadRef.current = threadId;
  // How many of the received statuses PalReasoning shows: each stays at least 300 ms (status-pacer.js).
  const shownSteps = useRef(0);

  const paint = useCallback(() => {
    frame.current = 0;
    setLive((current) => current && { ...current, text: text.current, steps: steps.current.slice(0, shownSteps.current) });
  }, []);
  const schedulePaint = useCallback(() => {
    if (!frame.current) frame.current = requestAnimationFrame(paint);
  }, [paint]);
  const pacer = useRef(null);
  if (!pacer.current) {
    pacer.current = createPacer({
      // Painted at once, not on the next animation frame: the 300 ms count from now.
      onShow: (n) => {
        shownSteps.current = n;
        paint();
      },
    });
  }

  const append = (message) => setMessages((list) => [...list, message]);

  // A run's outcome replaces PalReasoning once the status on screen has been readable (status-pacer.js).
  const onOutcome = useCallback(({ event, data }) => {
    if (event === "response") {
      append({ id: data.message_id, role: "assistant", content: data.response, meta: data, steps: steps.current, at: now() });
    } else if (event === "interrupt") {
      append({ id: `ask-${data.run_id}`, role: "system", content: data.message, meta: { kind: "pal_assist" }, steps: [], at: now() });
      setPending(data);
    } else if (event === "escalation") {
      append({ id: `esc-${data.run_id}`, role: "assistant", content: data.message, meta: {}, steps: [], at: now() });
    } else if (event === "error") {
      append({ id: `err-${data.run_id || Date.now()}`, role: "error", content: data.message, meta: data, steps: [] });
    }
  }, []);

  const onEvent = useCallback(
    ({ event, data }) => {
      if (event === "open") {
        setThreadId(data.thread_id);
        showThread(data.thread_id, { replace: true }); // a new conversation gets its address at once
        setLive((current) => current && { ...current, runId: data.run_id });
      } else if (event === "status") {
        steps.current = [...steps.current, data];
        pacer.current.push();
      } else if (event === "token") {
        text.current += data.text;
        schedulePaint();
      } else if (["response", "interrupt", "escalation", "error"].includes(event)) {
        const outcome = { event, data };
        pacer.current.settle().then(() => onOutcome(outcome));
      }
    },
    [schedulePaint, onOutcome],
  );

  const follow = useCallback(
    async (options) => {
      abort.current?.abort();
      const controller = new AbortController();
      abort.current = controller;
      text.current = "";
      steps.current = [];
      shownSteps.current = 0;
      pacer.current.reset();
      setLive({ text: "", steps: [], runId: options.live?.runId || null });
      try {
        const finished = await followRun({ ...options, onEvent, signal: controller.signal });
        if (!finished && options.live && !controller.signal.aborted) await reload(options.live.threadId);
      } catch (error) {
        if (!controller.signal.aborted) append({ id: `err-${Date.now()}`, role: "error", content: error.message, meta: {}, steps: [] });
      } finally {
        if (abort.current === controller) await pacer.current.settle(); // the outcome and this paint go together
        if (abort.current === controller) {
          cancelAnimationFrame(frame.current);
          frame.current = 0;
          setLive(null);
          abort.current = null;
          onTurnEnded?.();
          refreshTitle(); // the first turn names the conversation
        }
      }
    },
    [onEvent, onTurnEnded],
  );

  const reload = async (id) => {
    const history = await api(`/v1/chat/history/${id}?limit=200`);
    setMessages(history.messages.map(historyMessage));
    setPending(history.pending_interrupt);
    setTitle(history.title);
  };
  const refreshTitle = async () => {
    const id = threadRef.current;
    if (!id) return;
    try {
      const history = await api(`/v1/chat/history/${id}?limit=1`);
      if (threadRef.current === id) setTitle(history.title);
    } catch {
      // the title is a courtesy: the conversation list shows it too
    }
  };

  /** Open a conversation (null: a new chat). `fromAddress`: the address already names it (a reload,
   * a shared link, the browser's back button), so no history entry is added. */
  const open = useCallback(async (id, { fromAddress = false } = {}) => {
    abort.current?.abort();
    abort.current = null;
    setLive(null);
    setThreadId(id);
    setPending(null);
    setMessages([]);
    setLoadError(null);
    setTitle(null);
    if (!fromAddress) showThread(id);
    if (!id) return;
    setLoading(true);
    try {
      await reload(id);
    } catch (error) {
      // Not an empty chat: say that the conversation could not be loaded, and why.
      setLoadError(
        error.status === 404
          ? "This conversation does not exist, or it belongs to someone else."
          : `The conversation could not be loaded: ${error.message}`,
      );
    } finally {
      setLoading(false);
    }
  }, []);
  const retry = useCallback(() => open(threadRef.current, { fromAddress: true }), [open]);

  const send = useCallback(
    (request) => {
      setPending(null);
      append({ id: `local-${Date.now()}`, role: "user", content: request.message, meta: {}, steps: [], at: now() });
      const json = threadRef.current ? { ...request, thread_id: threadRef.current } : request;
      return follow({ start: { path: "/v1/chat", json } });
    },
    [follow],
  );

  // Regenerate and "Edit and resend" work on the last turn of the conversation's current branch: the
  // server forks the thread there (docs/langgraph-clients.md), the old turn stays on its own branch.
  const regenerate = useCallback(() => {
    setPending(null);
    setMessages((list) => throughLastUser(list, true));
    return follow({ start: { path: "/v1/chat/regenerate", json: { thread_id: threadRef.current } } });
  }, [follow]);

  const resend = useCallback(
    (message, original) => {
      setPending(null);
      const edited = { id: `local-${Date.now()}`, role: "user", content: message, meta: {}, steps: [], at: now() };
      setMessages((list) => [...throughLastUser(list, false), edited]);
      const tags = original?.meta?.tagged_doc_ids || [];
      const json = { message, thread_id: threadRef.current, tagged_doc_ids: tags, replace_last_turn: true };
      return follow({ start: { path: "/v1/chat", json } });
    },
    [follow],
  );

  const answer = useCallback(
    (resumeValue, label) => {
      setPending(null);
      append({ id: `choice-${Date.now()}`, role: "choice", content: label, meta: {}, steps: [], at: now() });
      const json = { thread_id: threadRef.current, resume_value: resumeValue };
      return follow({ start: { path: "/v1/chat/resume", json } });
    },
    [follow],
  );

  const stop = useCallback(async () => {
    if (!threadRef.current) return;
    try {
      await api(`/v1/threads/${threadRef.current}/cancel`, { method: "POST" });
    } catch (error) {
      if (error.status !== 409) throw error; // 409: it had just finished
    }
  }, []);

  // A reload in the middle of an answer: reopen its thread and replay the run from its start.
  // Otherwise the address names the conversation to open (a reload, a shared link).
  useEffect(() => {
    const saved = loadLive();
    const addressed = threadInAddress();
    if (saved && (!addressed || addressed === saved.threadId)) {
      (async () => {
        await open(saved.threadId);
        await follow({ start: null, live: saved });
      })();
    } else if (addressed) {
      open(addressed, { fromAddress: true });
    }
    const onPop = () => open(threadInAddress(), { fromAddress: true });
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);

  return { threadId, title, messages, live, pending, loading, loadError, open, retry, send, answer, stop, regenerate, resend };
}
