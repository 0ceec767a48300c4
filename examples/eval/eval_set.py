"""The answer-evaluation set: questions with gold facts and pages, intent paraphrases, a fixed split.

Questions live in `examples/eval/questions.json` (answerable: document slug, question, `answer`
= a verbatim substring of the answering sentence, `page` = the 1-based page of the generated PDF
where it starts; unanswerable: a question the corpus does not answer, optionally with the document
a user would tag). Intent paraphrases live in `examples/eval/intents.jsonl`; they were written from
the seeds' user stories (compliance officers summarising, comparing editions, auditing marketing
copy against a guideline, asking about retention periods), not from the intent rules.

Every item belongs to `dev` or `test` by a hash of its id under a fixed seed, so the split never
changes when items are added. Rules and thresholds are tuned on `dev` only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from shared.eval_split import split_of

__all__ = ["split_of", "load_questions", "load_intents", "page_texts", "page_of", "normalise"]

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "questions.json"
INTENTS = HERE / "intents.jsonl"


_HYPHEN_GAP = re.compile(r"(?<=[^\W\d_])([-\u2010]) (?=[^\W\d_])")


def normalise(text: str) -> str:
    """Lower case, one space between words, typographic quotes as ASCII, no space after a hyphen between
    words (a compound broken at a line's end reads "asset- backed" in MuPDF's page text, whole in a
    quote): how facts and quotes are matched."""
    text = text.replace("“", '"').replace("”", '"').replace("’", "'").replace("‘", "'")
    return _HYPHEN_GAP.sub(r"\1", re.sub(r"\s+", " ", text)).strip().lower()


@dataclass(frozen=True)
class Question:
    id: str
    question: str
    doc: str | None
    answer: str | None
    page: int | None

    @property
    def split(self) -> str:
        return split_of(self.id)

    @property
    def answerable(self) -> bool:
        return self.answer is not None


@dataclass(frozen=True)
class IntentCase:
    id: str
    message: str
    action: str

    @property
    def split(self) -> str:
        return split_of(self.id)


def load_questions(path: Path = QUESTIONS) -> list[Question]:
    data = json.loads(path.read_text())
    out = [Question(q["id"], q["question"], q["doc"], q["answer"], q["page"]) for q in data["answerable"]]
    out += [Question(q["id"], q["question"], q.get("doc"), None, None) for q in data["unanswerable"]]
    return out


def load_intents(path: Path = INTENTS) -> list[IntentCase]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [IntentCase(r["id"], r["message"], r["action"]) for r in rows]


def page_texts(pdf: Path) -> list[str]:
    """Each page's text, normalised, as PyMuPDF extracts it (what ingestion reads)."""
    import pymupdf

    with pymupdf.open(pdf) as doc:
        return [normalise(page.get_text()) for page in doc]


def page_of(pages: list[str], fact: str) -> int | None:
    """The 1-based page where `fact` starts; a fact running over a page break counts on its first page."""
    wanted = normalise(fact)
    for i, text in enumerate(pages):
        if wanted in text:
            return i + 1
        joined = text + " " + (pages[i + 1] if i + 1 < len(pages) else "")
        position = joined.find(wanted)
        if 0 <= position < len(text):
            return i + 1
    return None
