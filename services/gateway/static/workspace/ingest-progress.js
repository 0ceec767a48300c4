// A document's ingestion as it happens (GET /v1/documents/{id}/events): a percentage for the bar,
// the stage's name, and the final status with the reason of a failure. A `ready` document whose
// vectors are still on the way (`vectors_pending`) is followed too, to say when meaning search
// covers it (docs/ingest.md, "the two phases").

import { useEffect, useState } from "../vendor/preact/hooks.mjs";
import { streamEvents } from "../common/sse.js";
import { html } from "../common/html.js";

// Where each stage sits on the bar; embedding (the slow one) moves with its done/total counts.
// The bar ends at `ready` (searchable); what follows (sentence vectors) happens in the background.
const SPAN = { queued: [0, 5], parsing: [5, 15], ocr: [15, 25], chunking: [25, 30], embedding: [30, 90], storing: [90, 98], done: [100, 100] };
const LABEL = { queued: "Queued", parsing: "Parsing", ocr: "Reading scanned pages", chunking: "Chunking", embedding: "Embedding", storing: "Storing", done: "Ready" };

export function percent(event) {
  if (event.status === "ready") return 100;
  const [from, to] = SPAN[event.stage] || [0, 0];
  const share = event.total ? Math.min(event.done / event.total, 1) : 0;
  return Math.round(from + (to - from) * share);
}

// "Searchable by words; meaning search ready in ~N s" while the second phase adds the vectors;
// its failures in the server's words (a round being retried, or every round failed).
export function indexingNote(progress) {
  if (!progress || progress.status !== "ready") return null;
  if (progress.error) return `Searchable by words; ${progress.error}`;
  if (progress.stage !== "embedding") return null; // sentence vectors only, or done: meaning search is complete
  const eta = progress.eta_s == null ? null : Math.max(1, Math.round(progress.eta_s));
  const when = eta == null ? "on the way" : eta < 90 ? `ready in ~${eta} s` : `ready in ~${Math.round(eta / 60)} min`;
  return `Searchable by words; meaning search ${when}`;
}

export function useIngestProgress(document, onFinished) {
  const [progress, setProgress] = useState(null);
  const indexing = document.status === "ready" && ["pending", "retrying"].includes(document.vectors_state);
  const active = indexing || (document.status !== "ready" && document.status !== "failed");
  useEffect(() => {
    if (!active) return undefined;
    const controller = new AbortController();
    const stage = !indexing ? "queued" : document.vectors_state === "retrying" ? "retrying" : "embedding";
    setProgress({ status: document.status, stage, done: 0, total: 0, percent: 0, error: document.vectors_error });
    streamEvents(`/v1/documents/${document.id}/events`, {
      signal: controller.signal,
      onEvent: ({ data }) => {
        setProgress({ ...data, percent: percent(data) });
        const finished = data.status === "failed" || (data.status === "ready" && (!indexing || data.stage === "done"));
        if (finished) onFinished?.(data);
      },
    }).catch((error) => setProgress((p) => ({ ...(p || {}), status: "failed", error: error.message })));
    return () => controller.abort();
  }, [document.id, active, indexing]);
  // A document listed ready with every vector stored has nothing left to show; one whose vectors
  // phase failed for good says so.
  if (document.status === "ready" && document.vectors_state === "failed") {
    return { status: "ready", stage: "done", error: document.vectors_error, percent: 100 };
  }
  return active || document.status !== "ready" ? progress : null;
}

export function ProgressBar({ progress, title }) {
  const label = progress.status === "failed" ? "Failed" : LABEL[progress.stage] || "Working";
  return html`
    <div class="progress" data-testid="doc-progress" data-stage=${progress.stage} data-percent=${progress.percent}>
      <div class="bar" role="progressbar" aria-label=${`Processing ${title}`} aria-valuemin="0" aria-valuemax="100"
        aria-valuenow=${progress.percent} aria-valuetext=${`${label} ${progress.percent}%`}>
        <span class="fill" style=${{ width: `${progress.percent}%` }}></span>
      </div>
      <span class="progress-label">${label}${progress.total ? ` ${progress.done}/${progress.total}` : ""} · ${progress.percent}%</span>
    </div>
  `;
}
