"""The "meaning search ready in ~N s" estimate: measured, never assumed (services/ingest/pace.py)."""

from __future__ import annotations

import pytest

from services.ingest.pace import SMOOTHING, VectorPace


def test_no_estimate_before_a_pace_is_measured_and_none_needed_when_nothing_waits():
    pace = VectorPace()
    assert pace.eta_s(120) is None
    assert pace.eta_s(0) == 0.0


def test_the_estimate_follows_the_measured_pace_smoothed():
    pace = VectorPace()
    pace.record(64, 8.0)  # 8 chunks/s
    assert pace.eta_s(80) == 10.0
    pace.record(64, 2.0)  # a faster slice moves the pace by SMOOTHING of the difference
    assert pace.per_s == pytest.approx(8 + SMOOTHING * (32 - 8))
    pace.record(0, 1.0)  # an empty or instant slice says nothing about the pace
    pace.record(10, 0.0)
    assert pace.per_s == pytest.approx(8 + SMOOTHING * (32 - 8))
