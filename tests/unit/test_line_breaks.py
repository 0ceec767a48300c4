"""A compound broken at a line's end reads whole; hyphens printed with their space stay (issue #27)."""

from __future__ import annotations

import pytest

from shared.text.line_breaks import rejoined


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("off- balance sheet arrangements", "off-balance sheet arrangements"),
        ("members of self- regulatory organizations", "members of self-regulatory organizations"),
        ("Total Loss- Absorbing Capacity", "Total Loss-Absorbing Capacity"),
        ("short- and long-term borrowings", "short- and long-term borrowings"),
        ("pre- or post-tax", "pre- or post-tax"),
        ("notes rated A- by S&P", "notes rated A- by S&P"),
        ("a BBB- rating", "a BBB- rating"),
        ("COVID- 19 relief", "COVID- 19 relief"),
        ("items - listed", "items - listed"),
    ],
)
def test_rejoined(text: str, read: str) -> None:
    assert rejoined(text) == read
