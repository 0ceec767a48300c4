"""Offline audit rules: quantities in digits or words, modality, coverage gaps, and the rendering."""

from __future__ import annotations

import pytest

from shared.llm.offline.audit import Quantity, check_clause, quantities
from shared.text.audit_report import overall_status, render
from shared.text.requirements import requirement_sentences

REQUIREMENT = "Personal data breaches must be notified to the authority within 24 hours."


def test_quantities_in_digits_and_words():
    assert quantities("within seventy-two hours and 30 days") == [Quantity(72, "hour"), Quantity(30, "day")]
    assert quantities("keep for six years or 5 %") == [Quantity(6, "year"), Quantity(5, "percent")]
    assert Quantity(2, "week").hours == 336


@pytest.mark.parametrize(
    ("target", "similarity", "severity", "issue"),
    [
        ("Breaches are notified within seventy-two hours of awareness.", 0.7, "Critical", "exceeds"),
        ("Breaches are notified within 12 hours.", 0.7, "Low", "stricter"),
        ("Breaches should be notified to the authority quickly.", 0.7, "Medium", "weaker"),
        ("Employees must wear badges.", 0.1, "High", "not addressed"),
        (None, 0.0, "High", "not addressed"),
    ],
)
def test_clause_checks(target, similarity, severity, issue):
    check = check_clause(REQUIREMENT, target, similarity, match_floor=0.35)
    assert check is not None and check.severity == severity and issue in check.issue


def test_compliant_clause_has_no_finding():
    assert (
        check_clause(REQUIREMENT, "Breaches must be notified to the authority within 24 hours.", 0.9, match_floor=0.35)
        is None
    )


def test_requirements_come_from_after_the_colon_without_command_sentences():
    text = "Audit the retention policy against this: Data must be deleted within 30 days. Backups must be encrypted."
    assert requirement_sentences(text) == ["Data must be deleted within 30 days.", "Backups must be encrypted."]
    assert requirement_sentences("Please audit this policy") == []


def test_status_and_rendering_group_by_target_then_severity():
    findings = [
        {
            "target_doc_id": "b",
            "severity": "Low",
            "theme": "t1",
            "issue": "i1",
            "consequence": "c",
            "source_quote": "s",
            "target_quote": "q",
            "suggestion": "x",
            "cite": "[1]",
        },
        {
            "target_doc_id": "a",
            "severity": "Medium",
            "theme": "t2",
            "issue": "i2",
            "consequence": "c",
            "source_quote": "s",
            "target_quote": "",
            "suggestion": "x",
            "cite": "",
        },
        {
            "target_doc_id": "a",
            "severity": "Critical",
            "theme": "t3",
            "issue": "i3",
            "consequence": "c",
            "source_quote": "s",
            "target_quote": "q",
            "suggestion": "x",
            "cite": "[2]",
        },
    ]
    report = {
        "overall_status": overall_status(findings),
        "summary": "sum",
        "findings": findings,
        "targets_checked": [{"id": "a", "title": "A"}, {"id": "b", "title": "B"}],
    }
    text = render(report)
    assert report["overall_status"] == "Major Violations"
    assert text.index("### A") < text.index("**Critical**") < text.index("**Medium**") < text.index("### B")
    assert overall_status([]) == "Compliant" and overall_status(findings[:1]) == "Minor Issues"
