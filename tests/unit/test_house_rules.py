"""Size rules for production code: no module over 400 lines, no function over 60.

A module that long usually has more than one reason to change, and a function that long mixes
steps that deserve names; the limits keep each piece readable in one sitting.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PRODUCTION = ("services", "shared", "policypal")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60


def production_modules() -> list[Path]:
    return sorted(p for package in PRODUCTION for p in (ROOT / package).rglob("*.py"))


def test_the_rules_see_the_production_code():
    assert len(production_modules()) > 100


def test_no_module_is_over_400_lines():
    long = {}
    for path in production_modules():
        lines = len(path.read_text().splitlines())
        if lines > MAX_MODULE_LINES:
            long[str(path.relative_to(ROOT))] = lines
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_no_function_is_over_60_lines():
    long = {}
    for path in production_modules():
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.name}"] = lines
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"
