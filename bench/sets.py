"""Every answer set `policypal bench answers --set NAME` runs, by name: the filings' sets of
bench/real_sets.py and the policies', regulations' and standards' of bench/policy_sets.py."""

from __future__ import annotations

from pathlib import Path

from bench import policy_sets, real_sets
from bench.real_sets import RealQuestion, folder_of

SETS = {**real_sets.SETS, **policy_sets.SETS}
__all__ = ["SETS", "folder_of", "load"]


def load(name: str, work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    """The set's questions and files; files it generates are written under `work`."""
    if name not in SETS:
        raise SystemExit(f"unknown set {name!r}; sets: {', '.join(SETS)}")
    return SETS[name](work)
