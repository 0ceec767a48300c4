"""Rebuild this lean subset of PolicyQA from the upstream files (provenance in README.md).

    python evals/real/policyqa/make_subset.py UPSTREAM_DATA_DIR

UPSTREAM_DATA_DIR holds PolicyQA's dev.json and test.json (wasiahmad/PolicyQA, data/). Upstream's
dev policies form our dev split and its test policies our test split, so no policy is shared. Per
policy: its segments in order, one paragraph each, in policies/<site>.txt; and up to
QUESTIONS_PER_POLICY questions whose gold span is a phrase of MIN_WORDS to MAX_WORDS words (shorter
spans, "cookies", would be found in almost any answer), one per distinct question text, drawn with
a fixed seed.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
POLICIES = {
    "dev": ("ticketmaster.com", "yahoo.com", "cariboucoffee.com", "ted.com", "washingtonian.com", "adweek.com"),
    "test": ("neworleansonline.com", "sciencemag.org", "amazon.com", "gawker.com", "si.edu", "highgearmedia.com"),
}
QUESTIONS_PER_POLICY = 8
MIN_WORDS, MAX_WORDS = 4, 40
SEED = 27


def main(upstream: Path) -> None:
    (HERE / "policies").mkdir(exist_ok=True)
    rows = []
    for split, sites in POLICIES.items():
        by_title = {a["title"]: a for a in json.loads((upstream / f"{split}.json").read_text())["data"]}
        for site in sites:
            paragraphs = by_title[site]["paragraphs"]
            (HERE / "policies" / f"{site}.txt").write_text("\n\n".join(p["context"].strip() for p in paragraphs) + "\n")
            seen: dict[str, dict] = {}
            for p in paragraphs:
                for qa in p["qas"]:
                    span = qa["answers"][0]["text"].strip()
                    if MIN_WORDS <= len(span.split()) <= MAX_WORDS and qa["question"] not in seen:
                        seen[qa["question"]] = {"id": qa["id"], "question": qa["question"], "answer": span}
            drawn = random.Random(f"{SEED}:{site}").sample(
                sorted(seen.values(), key=lambda r: r["id"]), min(QUESTIONS_PER_POLICY, len(seen))
            )
            rows += [{**r, "policy": site, "split": split} for r in sorted(drawn, key=lambda r: r["id"])]
    (HERE / "questions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
