// Renders sanitised Markdown into a container the component owns (see markdown.js for the safety
// rules); clicks on citation buttons are delegated to `onCite(n)`.

import { useLayoutEffect, useRef } from "../vendor/preact/hooks.mjs";
import { html } from "./html.js";
import { renderMarkdown } from "./markdown.js";

export function Markdown({ text, citations, onCite }) {
  const box = useRef(null);
  const numbers = citations.map((c) => `${c.n}:${c.quote || ""}`).join(",");
  useLayoutEffect(() => {
    box.current.replaceChildren(renderMarkdown(text, new Map(citations.map((c) => [c.n, c]))));
  }, [text, numbers]);
  const click = (event) => {
    const button = event.target.closest?.("button[data-cite]");
    if (button && onCite) {
      event.stopPropagation();
      onCite(Number(button.dataset.cite));
    }
  };
  return html`<div class="md" ref=${box} onClick=${click}></div>`;
}
