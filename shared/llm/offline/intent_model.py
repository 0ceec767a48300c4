"""A small supervised intent classifier for the requests the rules do not recognise.

The rules (intent.py) know the usual action words; everyday phrasings without one ("boil this
down", "line up the two editions", "would this post get us in trouble") fell through to
inquire. Rather than grow a rule per phrasing, a logistic regression over word and character
n-grams, with the rules' own matches as features, learns from the labelled intent set
(evals/intent_cases.jsonl, single-action cases) and the dev half of the paraphrase set
(examples/eval/intents.jsonl). It is trained once per process, off the event loop (`prepared`;
the resolver does it at startup), and only consulted when the rules found no action word; the
test half of the paraphrases measures it (bench/answer_eval.py). Without the training files (an install without the
repository's data) the rules answer alone.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from shared.eval_split import split_of

if TYPE_CHECKING:  # scikit-learn is imported only when the model is first fitted
    from sklearn.pipeline import Pipeline

log = logging.getLogger(__name__)
_FITTING = threading.Lock()
_FITTED: list[Pipeline | None] = []
ROOT = Path(__file__).resolve().parents[3]
LABELLED = ROOT / "evals" / "intent_cases.jsonl"
PARAPHRASES = ROOT / "examples" / "eval" / "intents.jsonl"
# Everyday phrasings of the four actions written for training only (issue #27): neither half of the
# paraphrase set, so cross-validation on dev and the test half still measure unseen wordings.
PHRASINGS = ROOT / "evals" / "intent_phrasings.jsonl"
MENTION = re.compile(r"@\[([^\]]+)\]")
# Chosen by 5-fold cross-validation on the dev paraphrases; below it the rules' inquire default
# stands. With the written phrasings (issue #27) dev stays 0.948 from 0.4 to 0.6, while the plain
# statements of the test suite's strings sent to another action fall from 292 to 153 of 834 (88
# before the phrasings); at 0.7 dev drops to 0.922.
MIN_PROBABILITY = 0.6
# A message phrased as a question is far more often an inquiry than the training sets' mix says
# ("Which version of FreeType is included?" is not a comparison): it needs a surer model. Chosen on
# dev (issue #27): at 0.4, 22 of the eval set's 147 dev questions went to another action; at 0.7, 4,
# with cross-validated dev intent 0.974 → 0.948; at 0.8, 3 and 0.922.
QUESTION_MIN_PROBABILITY = 0.7


def labelled_examples() -> list[tuple[str, str]]:
    """(message, action) pairs of the labelled single-action cases without history."""
    pairs: list[tuple[str, str]] = []
    for line in LABELLED.read_text().splitlines():
        case = json.loads(line) if line.strip() else None
        if case and len(case["expected_actions"]) == 1 and not case.get("history"):
            pairs.append((MENTION.sub(r"\1", case["message"]), case["expected_actions"][0]))
    return pairs


def paraphrases(split: str) -> list[tuple[str, str, str]]:
    """(id, message, action) of the paraphrase set's `split` half."""
    rows = [json.loads(line) for line in PARAPHRASES.read_text().splitlines() if line.strip()]
    return [(r["id"], r["message"], r["action"]) for r in rows if split_of(r["id"]) == split]


def written_phrasings() -> list[tuple[str, str]]:
    """(message, action) pairs of the phrasings written for training (mentions as the resolver strips them)."""
    rows = [json.loads(line) for line in PHRASINGS.read_text().splitlines() if line.strip()]
    return [(MENTION.sub(r"\1", r["message"]), r["action"]) for r in rows]


def training_examples() -> list[tuple[str, str]]:
    """(message, action) pairs: labelled single-action cases without history, the written phrasings
    and the dev paraphrases."""
    return labelled_examples() + written_phrasings() + [(message, action) for _, message, action in paraphrases("dev")]


def rule_features(texts: list[str], patterns: tuple[re.Pattern[str], ...]) -> np.ndarray:
    """The rules' verdicts as features: which action patterns match, and question form. The
    patterns are the ones the model was fitted with, so an action added later cannot change the
    number of features under a fitted model."""
    from shared.llm.offline.intent import INFORMATION_REQUEST, QUESTION

    rows = [
        [float(bool(p.search(t))) for p in patterns]
        + [float(bool(QUESTION.search(t))), float(bool(INFORMATION_REQUEST.search(t)))]
        for t in texts
    ]
    return np.asarray(rows)


def fit(pairs: list[tuple[str, str]]) -> Pipeline:
    """A pipeline fitted on (message, action) pairs."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import FeatureUnion, make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from shared.llm.offline.intent import action_patterns

    patterns = tuple(action_patterns().values())
    features = FeatureUnion(
        [
            ("words", TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, lowercase=True)),
            ("chars", TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True)),
            ("rules", FunctionTransformer(rule_features, kw_args={"patterns": patterns})),
        ]
    )
    pipeline = make_pipeline(features, LogisticRegression(C=10.0, max_iter=2000))
    texts, labels = zip(*pairs, strict=True)
    pipeline.fit(list(texts), list(labels))
    return pipeline


def _trained() -> Pipeline | None:
    try:
        pairs = training_examples()
    except OSError as exc:
        log.warning("intent model unavailable (%s); the rules classify alone", exc)
        return None
    started = time.monotonic()
    fitted = fit(pairs)
    log.info("intent model fitted on %d examples in %.1f s", len(pairs), time.monotonic() - started)
    return fitted


def model() -> Pipeline | None:
    """The pipeline fitted on the training examples (once per process), or None when they are not available."""
    with _FITTING:  # callers in threads and on the event loop: fitted once, whoever asks first
        if not _FITTED:
            _FITTED.append(_trained())
        return _FITTED[0]


async def prepared() -> None:
    """The model fitted off the event loop. A fit takes under a second on a quiet machine and 21 s on
    this 2-core one at load 12 (docs/model-servers.md): inside a turn, on the loop, it stalled the
    worker's heartbeats until the bus delivered the command again."""
    if not _FITTED:
        await asyncio.to_thread(model)


def predict(text: str, fitted: Pipeline | None = None) -> tuple[str, float] | None:
    """The most likely action and its probability (of `fitted`, else the trained model); None without one."""
    fitted = fitted or model()
    if fitted is None:
        return None
    probabilities = fitted.predict_proba([text])[0]
    best = int(np.argmax(probabilities))
    return str(fitted.classes_[best]), float(probabilities[best])
