// The @-mention suggestions: a listbox the editor drives with the arrow keys (aria-activedescendant).

import { html } from "../common/html.js";
import { safeColor } from "./format.js";

const CATEGORY = { action: "Action", web: "Web", set: "Set", document: "Document" };

export function MentionMenu({ options, active, onPick, onHover }) {
  return html`
    <ul class="mention-menu" id="mention-menu" role="listbox" aria-label="Mention suggestions">
      ${options.map(
        (o, i) => html`
          <li id=${`mention-${i}`} role="option" aria-selected=${i === active} class=${i === active ? "active" : ""}
            data-testid="mention-option" data-category=${o.category} data-id=${o.id}
            onMouseDown=${(e) => { e.preventDefault(); onPick(o); }} onMouseEnter=${() => onHover(i)}>
            <span class=${`mention-kind k-${o.category}`}>${CATEGORY[o.category]}</span>
            ${o.category === "set" && html`<span class="swatch" style=${{ background: safeColor(o.color) }} aria-hidden="true"></span>`}
            <span class="mention-label">${o.label}</span>
            <span class="muted mention-hint">${o.hint}</span>
          </li>
        `,
      )}
    </ul>
  `;
}
