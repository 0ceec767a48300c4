"""An audit report as the user reads it: an overall status and Markdown grouped by document.

Findings come from whichever engine judged them; how they are shown does not depend on it.
"""

from __future__ import annotations

from typing import Any

SEVERITY_ORDER = ("Critical", "High", "Medium", "Low")


def overall_status(findings: list[dict[str, Any]]) -> str:
    """One verdict for the whole report, driven by its most serious finding."""
    severities = {f["severity"] for f in findings}
    if severities & {"Critical", "High"}:
        return "Major Violations"
    if severities:
        return "Minor Issues"
    return "Compliant"


def render(report: dict[str, Any], *, themes_are: str = "requirements") -> str:
    """Markdown grouped by target document, then by severity."""
    theme_label, target_label = ("Requirement", "Document") if themes_are == "requirements" else ("Text", "Rule")
    lines = [f"**Audit result: {report['overall_status']}**", "", report["summary"]]
    for target in report["targets_checked"]:
        findings = [f for f in report["findings"] if f["target_doc_id"] == target["id"]]
        lines += ["", f"### {target['title']}"]
        if not findings:
            lines.append("No issues found for the requirements checked.")
        for severity in SEVERITY_ORDER:
            for f in (f for f in findings if f["severity"] == severity):
                lines.append(f"- **{severity}** — {f['theme']}: {f['issue']}. {f['consequence']}")
                lines.append(f"  - {theme_label}: “{f['source_quote']}”")
                if f["target_quote"]:
                    lines.append(f"  - {target_label}: “{f['target_quote']}” {f['cite']}")
                lines.append(f"  - Suggestion: {f['suggestion']}")
    unchecked = report.get("themes_not_checked") or []
    if unchecked:
        lines += ["", f"### Not checked ({len(unchecked)})", *(f"- {theme}" for theme in unchecked)]
    return "\n".join(lines)
