"""An audit names what it checked and what it did not reach (the limit is PP_AUDIT_MAX_REQUIREMENTS)."""

from __future__ import annotations

from services.actions.audit import summary
from shared.text.audit_report import render
from shared.text.requirements import requirement_sentences

TEAMS = [
    "finance",
    "legal",
    "sales",
    "marketing",
    "support",
    "security",
    "privacy",
    "payroll",
    "procurement",
    "research",
    "design",
    "quality",
    "logistics",
    "facilities",
    "compliance",
    "audit",
    "treasury",
    "training",
    "recruitment",
    "engineering",
    "operations",
    "risk",
    "tax",
    "communications",
    "partnerships",
]


def test_every_pasted_requirement_is_kept() -> None:
    rules = " ".join(f"The {team} team must review its records every quarter." for team in TEAMS)
    assert len(TEAMS) == 25 and len(requirement_sentences(f"Audit @Policy against this: {rules}")) == 25


def test_a_report_past_the_limit_says_how_many_were_checked_and_lists_the_rest() -> None:
    report = {
        "overall_status": "Compliant",
        "findings": [],
        "summary": summary(2, 1, "requirements", 1, 0),
        "targets_checked": [{"id": "d1", "title": "Policy (v1)"}],
        "themes_not_checked": ["Rule 3 must be followed."],
    }
    assert report["summary"] == (
        "Checked 2 requirement(s) against 1 document(s): 0 finding(s). "
        "1 further requirement(s) were not checked (one audit checks at most 2); listed below."
    )
    text = render(report)
    assert "### Not checked (1)\n- Rule 3 must be followed." in text
