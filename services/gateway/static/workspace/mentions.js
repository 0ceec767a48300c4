// What can be @-mentioned, as TipTap mention attrs {id, label, category}: the actions (from their
// records on the server, ../common/actions.js), the web, the user's sets and ready documents.
// Filtering is by prefix of any word of the label.

import { ACTIONS } from "../common/actions.js";
import { versionLabel } from "./format.js";

export function mentionCandidates(documents, sets) {
  return [
    // The feature spec's order: actions, sets, documents, then the web.
    ...ACTIONS.map(({ id, label, hint }) => ({ id, label, hint, category: "action" })),
    ...sets.map((s) => ({ id: s.id, label: s.name, category: "set", hint: "Set", color: s.color })),
    ...documents
      .filter((d) => d.status === "ready")
      .map((d) => ({ id: d.id, label: d.title, category: "document", hint: versionLabel(d.version) })),
    { id: "web", label: "web", category: "web", hint: "Also search the web" },
  ];
}

export function filterMentions(candidates, query, limit = 8) {
  const q = query.toLowerCase();
  if (!q) return candidates.slice(0, limit);
  const score = (c) => {
    const label = c.label.toLowerCase();
    if (label.startsWith(q)) return 0;
    if (label.split(/\s+/).some((w) => w.startsWith(q))) return 1;
    return label.includes(q) ? 2 : 3;
  };
  return candidates
    .map((c) => [score(c), c])
    .filter(([s]) => s < 3)
    .sort((a, b) => a[0] - b[0])
    .slice(0, limit)
    .map(([, c]) => c);
}
