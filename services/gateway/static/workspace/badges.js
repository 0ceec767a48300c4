// Under each answer: confidence badges (inference and retrieval tiers), the engine, tokens, cost.
// A stopped answer was never assessed, so it shows no confidence rather than a misleading "low".

import { actionColour, actionLabel } from "../common/actions.js";
import { cost } from "./format.js";
import { html } from "../common/html.js";

// The feature spec's three tiers: a green check, a yellow caution with its tooltip, a red badge.
const TIER_ICON = { high: "✅", medium: "⚠️", low: "🔴" };
const TIER_TIP = {
  high: "High confidence",
  medium: "Medium confidence—further investigation suggested",
  low: "Low confidence—verify with the source documents",
};

export function ConfidenceBadge({ kind, tier }) {
  const value = TIER_ICON[tier] ? tier : "low";
  return html`<span class=${`badge conf conf-${value}`} data-testid="confidence-badge" data-kind=${kind} data-tier=${value}
    title=${`${kind} confidence. ${TIER_TIP[value]}`}><span aria-hidden="true">${TIER_ICON[value]}</span> ${kind} · ${value}</span>`;
}

export function AnswerMeta({ meta }) {
  if (!meta.engine && !meta.action) return null;
  return html`
    <div class="answer-meta">
      ${meta.action && html`<span class="badge action" style=${{ color: actionColour(meta.action) }}>${actionLabel(meta.action)}</span>`}
      ${!meta.stopped && html`
        <${ConfidenceBadge} kind="Inference" tier=${meta.inference_confidence} />
        <${ConfidenceBadge} kind="Retrieval" tier=${meta.retrieval_confidence} />`}
      <span class="meta-line">${meta.engine || "engine unknown"} · <span aria-hidden="true">🪙</span> ${meta.tokens_used || 0} tokens · ${cost(meta.cost_usd)}</span>
    </div>
  `;
}
