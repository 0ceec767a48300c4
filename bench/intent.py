"""Intent on phrasings the classifier never saw: cross-validated on the dev paraphrases, held out on test.

    policypal bench intent [--split dev|test] [--folds 5] [--show]

The paraphrase set (examples/eval/intents.jsonl) asks for the four actions in everyday words. The
offline classifier (shared/llm/offline/intent.py: rules, then a supervised model where no action
word matched) is trained on the labelled cases and the dev half. So the dev half measures unseen
phrasings only by k-fold cross-validation: each fold is classified by a model fitted without it.
`--split test` classifies the test half with the model as shipped (trained on all of dev): the
held-out number, for the final table only. Fast (no infrastructure): the classifier is pure CPU.

The guard against the opposite mistake: the questions of the answer sets (examples/eval, and
evals/real gdpr and policyqa) are all inquiries, so each one of the split that the shipped
classifier sends to another action is counted (none of them is trained on).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from examples.eval.eval_set import load_questions
from shared.eval_split import split_of
from shared.llm.offline import intent_model
from shared.llm.offline.intent import classify_intent


def cross_validated(folds: int) -> list[tuple[str, str, str, str]]:
    """(id, message, expected, got) for every dev paraphrase, each classified by a model that did not see it."""
    dev = intent_model.paraphrases("dev")
    labelled = intent_model.labelled_examples() + intent_model.written_phrasings()
    out = []
    for fold in range(folds):
        held = [case for i, case in enumerate(dev) if i % folds == fold]
        seen = [(message, action) for i, (_, message, action) in enumerate(dev) if i % folds != fold]
        fitted = intent_model.fit(labelled + seen)
        out += [(id_, m, a, classify_intent(m, learned=fitted).action) for id_, m, a in held]
    return out


def held_out() -> list[tuple[str, str, str, str]]:
    return [(id_, m, a, classify_intent(m).action) for id_, m, a in intent_model.paraphrases("test")]


def questions_sent_elsewhere(split: str) -> tuple[list[str], int]:
    """The split's answer-set questions the classifier does not read as inquiries, and how many were asked."""
    asked = [q.question for q in load_questions() if split_of(q.id) == split]
    for name in ("gdpr", "policyqa"):
        rows = [json.loads(line) for line in (intent_model.ROOT / "evals" / "real" / name / "questions.jsonl").open()]
        asked += [r["question"] for r in rows if r.get("split", split_of(r["id"])) == split]
    return [q for q in asked if classify_intent(q).action != "inquire"], len(asked)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--split", choices=("dev", "test"), default="dev")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--show", action="store_true", help="print each misclassified phrasing")
    args = parser.parse_args(argv)
    results = cross_validated(args.folds) if args.split == "dev" else held_out()
    right = Counter(expected for _, _, expected, got in results if got == expected)
    total = Counter(expected for _, _, expected, _ in results)
    accuracy = sum(right.values()) / len(results)
    how = f"{args.folds}-fold cross-validation" if args.split == "dev" else "held out"
    print(f"intent on unseen phrasings ({args.split}, {how}): {accuracy:.3f} of {len(results)}")
    for action in sorted(total):
        print(f"  {action:<10} {right[action]}/{total[action]}")
    elsewhere, asked = questions_sent_elsewhere(args.split)
    print(f"answer-set questions ({args.split}) read as another action than inquire: {len(elsewhere)} of {asked}")
    if args.show:
        for id_, message, expected, got in results:
            if got != expected:
                print(f"  {id_} expected {expected}, got {got}: {message}")
        for question in elsewhere:
            print(f"  not an inquiry: {question}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
