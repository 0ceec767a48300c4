// An audit's findings grouped by target document, then by severity (Critical → Low), each with its
// coloured severity badge, the two quotes, the consequence and the suggestion.

import { html } from "../common/html.js";

const ORDER = ["Critical", "High", "Medium", "Low"];
const STATUS = { Compliant: "ok", "Minor Issues": "minor", "Major Violations": "major" };

export function groupFindings(findings) {
  const byTarget = new Map();
  for (const f of findings) {
    const key = f.target_doc_title || "Target";
    if (!byTarget.has(key)) byTarget.set(key, new Map(ORDER.map((s) => [s, []])));
    const severities = byTarget.get(key);
    if (!severities.has(f.severity)) severities.set(f.severity, []);
    severities.get(f.severity).push(f);
  }
  return [...byTarget].map(([target, severities]) => ({
    target,
    groups: [...severities].filter(([, list]) => list.length).map(([severity, list]) => ({ severity, list })),
  }));
}

export function SeverityBadge({ severity }) {
  return html`<span class=${`badge sev sev-${(severity || "low").toLowerCase()}`} data-testid="severity-badge" data-severity=${severity}>${severity}</span>`;
}

export function Findings({ report }) {
  const targets = groupFindings(report.findings || []);
  return html`
    <section class="findings" aria-label="Audit findings">
      <div class="findings-head">
        <span class=${`status-pill st-${STATUS[report.overall_status] || "minor"}`}>${report.overall_status}</span>
        <span class="muted">${report.summary}</span>
      </div>
      ${targets.length === 0 && html`<p class="empty">No findings: nothing in the targets conflicts with the requirements checked.</p>`}
      ${targets.map(
        (t) => html`
          <div class="finding-target">
            <h4>${t.target}</h4>
            ${t.groups.map(
              (g) => html`
                <div class="sev-group">
                  ${g.list.map(
                    (f) => html`
                      <div class="finding">
                        <div class="finding-head"><${SeverityBadge} severity=${g.severity} /> <strong>${f.theme}</strong></div>
                        ${f.consequence && html`<p>${f.consequence}</p>`}
                        <div class="quotes">
                          ${f.source_quote && html`<blockquote><span class="q-label">Requirement</span>${f.source_quote}</blockquote>`}
                          ${f.target_quote && html`<blockquote><span class="q-label">Document says</span>${f.target_quote}</blockquote>`}
                        </div>
                        ${f.suggestion && html`<p class="suggestion"><span class="q-label">Suggestion</span> ${f.suggestion}</p>`}
                      </div>
                    `,
                  )}
                </div>
              `,
            )}
          </div>
        `,
      )}
      ${report.themes_not_checked?.length > 0 &&
      html`<details class="not-checked" data-testid="audit-not-checked">
        <summary>Not checked (${report.themes_not_checked.length})</summary>
        <ul>${report.themes_not_checked.map((theme) => html`<li>${theme}</li>`)}</ul>
      </details>`}
    </section>
  `;
}
