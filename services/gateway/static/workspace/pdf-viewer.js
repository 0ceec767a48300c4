// The PDF viewer: a modal dialog that loads pdf.js only when first opened (it is most of the UI's
// weight), renders the cited page from GET /v1/documents/{id}/pages (the uploaded PDF, or the PDF
// rendition made at ingest of a Word, HTML, text… file or a scan) and draws a highlight over the
// quoted passage. Escape or the close button returns focus to what opened it.

import { useEffect, useRef, useState } from "../vendor/preact/hooks.mjs";
import { authHeaders, toApiError } from "../common/api.js";
import { html } from "../common/html.js";
import { matchQuote } from "./quote-match.js";

let pdfjs = null;
async function loadPdfJs() {
  if (!pdfjs) {
    pdfjs = await import("../vendor/pdfjs/pdf.min.mjs");
    pdfjs.GlobalWorkerOptions.workerSrc = "/static/vendor/pdfjs/pdf.worker.min.mjs";
  }
  return pdfjs;
}

class NoPages extends Error {
  constructor() {
    super("This document has no pages to show; the cited passage is quoted above.");
  }
}

const documents = new Map(); // document id → loading task promise, so reopening is instant

async function openDocument(id) {
  if (!documents.has(id)) {
    const promise = (async () => {
      const lib = await loadPdfJs();
      const response = await fetch(`/v1/documents/${id}/pages`, { headers: authHeaders() });
      if (response.status === 404) throw new NoPages();
      if (!response.ok) throw await toApiError(response);
      if (!(response.headers.get("content-type") || "").startsWith("application/pdf")) throw new NoPages();
      const data = new Uint8Array(await response.arrayBuffer());
      return lib.getDocument({ data, isEvalSupported: false, disableFontFace: false }).promise;
    })();
    documents.set(id, promise);
    promise.catch(() => documents.delete(id));
  }
  return documents.get(id);
}

export function PdfViewer({ citation, onClose }) {
  const [page, setPage] = useState(citation.page || 1);
  const [pages, setPages] = useState(null);
  const [state, setState] = useState("loading");
  const [error, setError] = useState(null);
  const [highlighted, setHighlighted] = useState(false);
  const canvas = useRef(null);
  const layer = useRef(null);
  const closer = useRef(null);

  const close = useRef(onClose);
  close.current = onClose;
  useEffect(() => {
    closer.current?.focus();
    const key = (event) => event.key === "Escape" && close.current();
    document.addEventListener("keydown", key);
    return () => document.removeEventListener("keydown", key);
  }, []);

  useEffect(() => {
    let cancelled = false;
    setState("loading");
    (async () => {
      try {
        const pdf = await openDocument(citation.document_id);
        if (cancelled) return;
        setPages(pdf.numPages);
        const number = Math.min(Math.max(page, 1), pdf.numPages);
        const pdfPage = await pdf.getPage(number);
        const viewport = pdfPage.getViewport({ scale: 1.4 });
        const ratio = window.devicePixelRatio || 1;
        const el = canvas.current;
        el.width = Math.floor(viewport.width * ratio);
        el.height = Math.floor(viewport.height * ratio);
        el.style.width = `${viewport.width}px`;
        el.style.height = `${viewport.height}px`;
        await pdfPage.render({ canvas: el, viewport, transform: ratio !== 1 ? [ratio, 0, 0, ratio, 0, 0] : null }).promise;
        if (cancelled) return;
        const text = await pdfPage.getTextContent();
        const marks = number === citation.page ? highlightBoxes(pdfjs, text.items, citation.quote, viewport) : [];
        layer.current.replaceChildren(...marks);
        layer.current.style.width = `${viewport.width}px`;
        layer.current.style.height = `${viewport.height}px`;
        setHighlighted(marks.length > 0);
        marks[0]?.scrollIntoView({ block: "center" });
        setState("ready");
      } catch (e) {
        if (!cancelled) {
          setError(e.status === 404 ? "This document is no longer available." : e.message);
          setState("error");
        }
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [citation.document_id, page]);

  return html`
    <div class="overlay" onClick=${(e) => e.target === e.currentTarget && onClose()}>
      <div class="viewer" role="dialog" aria-modal="true" aria-labelledby="viewer-title" data-testid="pdf-viewer"
        data-page=${page} data-state=${state}>
        <header class="viewer-head">
          <div>
            <h2 id="viewer-title">${citation.title}</h2>
            <p class="muted">Page ${page}${pages ? ` of ${pages}` : ""}${highlighted ? " · quoted passage highlighted" : ""}</p>
          </div>
          <div class="viewer-nav">
            <button type="button" class="small" disabled=${page <= 1} onClick=${() => setPage(page - 1)} aria-label="Previous page">‹</button>
            <button type="button" class="small" disabled=${!pages || page >= pages} onClick=${() => setPage(page + 1)} aria-label="Next page">›</button>
            <button type="button" class="small" ref=${closer} onClick=${onClose} aria-label="Close the viewer">✕ Close</button>
          </div>
        </header>
        <blockquote class="viewer-quote">“${citation.quote}”</blockquote>
        <div class="viewer-body" tabindex="0" role="region" aria-label="Document page">
          ${state === "loading" && html`<p class="muted loading center">Opening the document…</p>`}
          ${state === "error" && html`<p class="error" role="alert">${error}</p>`}
          <div class=${`page ${state === "ready" ? "" : "hidden"}`}>
            <canvas ref=${canvas} aria-label=${`Page ${page} of ${citation.title}`} role="img"></canvas>
            <div class="highlights" ref=${layer}></div>
          </div>
        </div>
      </div>
    </div>
  `;
}

function highlightBoxes(lib, items, quote, viewport) {
  return matchQuote(items, quote || "").map(({ index, from, to }) => {
    const item = items[index];
    const [, , c, d, e, f] = lib.Util.transform(viewport.transform, item.transform);
    const height = Math.hypot(c, d);
    // Characters are not equally wide, but close enough to trim a shared line to the quoted part.
    const width = item.width * viewport.scale;
    const share = item.str.length || 1;
    const box = document.createElement("div");
    box.className = "pdf-highlight";
    box.dataset.testid = "pdf-highlight";
    box.style.left = `${e + (width * from) / share}px`;
    box.style.top = `${f - height}px`;
    box.style.width = `${(width * (to - from)) / share}px`;
    box.style.height = `${height * 1.25}px`;
    return box;
  });
}
