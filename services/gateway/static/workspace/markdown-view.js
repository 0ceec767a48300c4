// Renders sanitised Markdown into a container the component owns (see markdown.js for the safety
// rules); clicks on citation buttons are delegated to `onCite(n)`. Hovering or focusing a citation
// shows its source and quote above it, kept inside the answer so no scrolling panel clips it. A touch
// screen has no hover: there the first tap on a citation shows its quote and a second tap opens the
// source (feature spec: hover tooltip with the quote, for every reader).

import { useEffect, useLayoutEffect, useRef, useState } from "../vendor/preact/hooks.mjs";
import { html } from "../common/html.js";
import { renderMarkdown } from "./markdown.js";

const TIP_WIDTH = 340;

export function Markdown({ text, citations, onCite }) {
  const box = useRef(null);
  const [tip, setTip] = useState(null);
  // Which citation's quote is on screen, and whether it was before the touch that is now tapping.
  const tipFor = useRef(null);
  const touch = useRef({ active: false, shownBefore: false });
  const numbers = citations.map((c) => `${c.n}:${c.quote || ""}`).join(",");
  useLayoutEffect(() => {
    box.current.replaceChildren(renderMarkdown(text, new Map(citations.map((c) => [c.n, c]))));
    setTip(null);
    tipFor.current = null;
  }, [text, numbers]);
  const pointerDown = (event) => {
    const button = event.target.closest?.("button[data-cite]");
    touch.current = {
      active: event.pointerType === "touch",
      shownBefore: Boolean(button) && tipFor.current === button.dataset.cite,
    };
  };
  const click = (event) => {
    const button = event.target.closest?.("button[data-cite]");
    if (!button || !onCite) return;
    event.stopPropagation();
    if (touch.current.active && button.dataset.quote && !touch.current.shownBefore) {
      show(event); // first tap: the quote; the next tap on the same citation opens the source
      touch.current = { active: true, shownBefore: true };
      return;
    }
    onCite(Number(button.dataset.cite));
  };
  const show = (event) => {
    const button = event.target.closest?.("button[data-quote]");
    if (!button) return;
    const frame = box.current.getBoundingClientRect();
    const at = button.getBoundingClientRect();
    const width = Math.min(TIP_WIDTH, frame.width);
    const centre = at.left + at.width / 2 - frame.left;
    // Above the citation, unless the scrolling chat would cut it off there: then below it.
    const room = at.top - (button.closest(".messages")?.getBoundingClientRect().top ?? 0);
    const place = room > 110 ? { bottom: frame.bottom - at.top + 6 } : { top: at.bottom - frame.top + 6 };
    tipFor.current = button.dataset.cite;
    setTip({ text: button.dataset.quote, left: Math.max(0, Math.min(centre - width / 2, frame.width - width)), width, ...place });
  };
  const hide = (event) => {
    if (!event.target.closest?.("button[data-quote]")) return;
    // After a touch, the browser's emulated mouse events say nothing about where the finger is:
    // the quote stays until a tap lands elsewhere (below).
    if (touch.current.active && event.type === "mouseout") return;
    tipFor.current = null;
    setTip(null);
  };
  useEffect(() => {
    if (!tip) return undefined;
    const away = (event) => {
      if (event.pointerType !== "touch") return;
      const button = event.target.closest?.("button[data-cite]");
      if (button && box.current.contains(button) && button.dataset.cite === tipFor.current) return;
      tipFor.current = null;
      setTip(null);
    };
    document.addEventListener("pointerdown", away, true);
    return () => document.removeEventListener("pointerdown", away, true);
  }, [tip]);
  return html`
    <div class="md-frame">
      <div class="md" ref=${box} onPointerDown=${pointerDown} onClick=${click} onMouseOver=${show} onMouseOut=${hide} onFocusIn=${show} onFocusOut=${hide}></div>
      ${tip &&
      html`<div class="cite-tip" role="tooltip" data-testid="citation-quote"
        style=${{
          left: `${tip.left}px`,
          width: `${tip.width}px`,
          ...(tip.top === undefined ? { bottom: `${tip.bottom}px` } : { top: `${tip.top}px` }),
        }}>${tip.text}</div>`}
    </div>
  `;
}
