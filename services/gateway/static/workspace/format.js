// Small display helpers.

export function relativeTime(iso) {
  if (!iso) return "";
  const seconds = (Date.now() - new Date(iso).getTime()) / 1000;
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(iso).toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

export function cost(usd) {
  if (!usd) return "$0";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}

/** A set colour from the API, used only if it is a plain hex colour. */
export function safeColor(color) {
  return /^#[0-9a-fA-F]{6}$/.test(color || "") ? color : "#64748b";
}

/** A version as the feature spec labels it: years and editions as they are ("2024", "Q1 2025"), a
 * bare revision number as "v1" (the same rule as shared/text/labels.py). */
export function versionLabel(version) {
  const v = (version || "").trim();
  return /^\d{1,3}(\.\d+)*$/.test(v) ? `v${v}` : v;
}

/** "Title (Version)". */
export function documentLabel(doc) {
  const v = versionLabel(doc.version);
  return v ? `${doc.title} (${v})` : doc.title;
}

/** When a message was written: the time today, the date and time before. */
export function messageTime(iso) {
  if (!iso) return "";
  const at = new Date(iso);
  const today = new Date().toDateString() === at.toDateString();
  const time = at.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  return today ? time : `${at.toLocaleDateString(undefined, { month: "short", day: "numeric" })}, ${time}`;
}

/** A Markdown message as one line of plain text for a preview: no **, #, `, list marks, links or [n]. */
export function plainPreview(markdown) {
  return (markdown || "")
    .replace(/\[(\d{1,3})\]/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)?/g, "$1")
    .replace(/^\s{0,3}(#{1,6}\s+|[-*+]\s+|>\s?|\d+\.\s+)/gm, "")
    .replace(/[*_`~|]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}
