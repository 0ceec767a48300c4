"""The fixed dev/test split of the evaluation sets (examples/eval): a hash of the item's id under
a fixed seed, so adding items never moves existing ones. Product code that learns from the
evaluation data (the intent model) uses only `dev`; `test` measures it (bench/answer_eval.py)."""

from __future__ import annotations

import hashlib

SPLIT_SEED = "policypal-eval-16"
SPLITS = ("dev", "test")


def split_of(item_id: str) -> str:
    """`dev` or `test`, about half each, stable for a given id."""
    digest = hashlib.sha256(f"{SPLIT_SEED}:{item_id}".encode()).digest()
    return SPLITS[digest[0] & 1]
