"""Offline short-text tasks: query rewrite, contextualize, title, conversation summary, grading.

Each is a fixed rule over the user's own words; none adds words beyond fixed templates.
"""

from __future__ import annotations

import re
from statistics import fmean

from shared.llm.schemas import ContextualizeInputs, ConversationSummaryInputs, GradeInputs, RewriteInputs
from shared.text.sentences import split_sentences

_REQUEST_FILLER = re.compile(
    r"^\s*(?:please\s+|(?:can|could|would) you\s+|i (?:want|would like|need) to know\s+|tell me\s+|"
    r"explain\s+|let me know\s+|do you know\s+)+",
    re.I,
)
_TRAILING_FILLER = re.compile(r"\s*(?:please|thanks|thank you)[.!?]*\s*$", re.I)
_PRONOUN = re.compile(r"\b(it|this|that|them|these|those)\b(?!\s+(?:is|are|was|were)\s+\w+ing)", re.I)
# The object of "how do I <verb> <object>" / "can I <verb> <object>" / "to <verb> <object>".
_OBJECT = re.compile(
    r"\b(?:i|we|you|to)\s+(?:\w+\s+)?(?:create|make|get|use|open|set up|add|build|write|"
    r"configure|find|install|update|delete|remove|change|export|import|share|save|print|"
    r"cancel|reset|upgrade|download|upload|edit|convert|send|connect|enable|disable)\s+(.+)$",
    re.I,
)
_VAGUE_WORDS = frozenset(
    {"explain", "summary", "summarise", "summarize", "overview", "details", "tell", "more", "what", "about", "this"}
    | {"that", "please", "key", "points", "main", "describe", "the"}
)
_SUMMARY_WORDS = 120
_TITLE_CHARS = 50
_CITED = re.compile(r"\[\d+\]")
_ANSWER_SENTENCE_END = re.compile(r"(?<=[.!?\]])\s+(?!\[)")


def rewrite_query(inputs: RewriteInputs) -> str:
    """The request without politeness and request framing; the original if nothing is left.

    A request too short to search with ("Explain", "Summary") next to tagged documents asks about
    those documents as a whole, so their titles join it (graph-fix plan S1/S2)."""
    query = _TRAILING_FILLER.sub("", _REQUEST_FILLER.sub("", inputs.query)).strip() or inputs.query.strip()
    content = [w for w in re.findall(r"[A-Za-z]{3,}", query) if w.lower() not in _VAGUE_WORDS]
    if len(content) < 2 and inputs.documents:
        titles = " and ".join(d.rsplit(" (", 1)[0] for d in inputs.documents)
        return f"{query.rstrip('?.!')}: the key points of {titles}"
    return query


def _topic_of(question: str) -> str | None:
    match = _OBJECT.search(question.strip().rstrip("?.! "))
    return match.group(1).strip() if match else None


def contextualize(inputs: ContextualizeInputs) -> str:
    """Replace a pronoun with the object of the latest earlier question that had one.

    "How do I export it to PDF?" after "How do I create a DOCX file?" becomes "How do I export a
    DOCX file to PDF?". A question without a pronoun already stands alone.
    """
    if not _PRONOUN.search(inputs.question):
        return inputs.question
    for turn in reversed(inputs.history):
        role, _, text = turn.partition(": ")
        if role not in ("user", "customer"):
            continue
        topic = _topic_of(text)
        if topic:
            return _PRONOUN.sub(topic, inputs.question, count=1)
    return inputs.question


def title(message: str) -> str:
    """The first message itself, mention markers dropped, cut at a word within 50 characters."""
    # Punctuation left at the ends by the mentions ("@Audit @Policy: …" → ": …") is no part of a title.
    text = " ".join(message.replace("@", "").split()).strip(" :;,.-–—")
    if len(text) <= _TITLE_CHARS:
        return text or "New conversation"
    return text[: _TITLE_CHARS - 1].rsplit(" ", 1)[0] + "…"


def conversation_summary(inputs: ConversationSummaryInputs) -> str:
    """The previous summary plus each user turn's first sentence, capped to the newest words."""
    lines = [inputs.previous_summary] if inputs.previous_summary else []
    for turn in inputs.messages:
        role, _, text = turn.partition(": ")
        first = (split_sentences(text) or [text.strip()])[0]
        if role == "user" and first:
            lines.append(f"The user asked: {first}")
    words = " ".join(lines).split()
    return " ".join(words[-_SUMMARY_WORDS:])


def grade_confidence(inputs: GradeInputs, *, reference: float) -> float:
    """0–1: mean similarity of the passages used (relative to the `high` tier) times citation coverage;
    0 when the question names something the knowledge base never mentions, or asks a quantity or a name
    (who, which provider) that the passages about it do not state."""
    if not inputs.similarities or not inputs.answer.strip() or inputs.unmentioned or inputs.unstated:
        return 0.0
    similarity = min(1.0, max(0.0, fmean(inputs.similarities) / reference))
    return round(similarity * (0.5 + 0.5 * citation_coverage(inputs.answer)), 4)


def citation_coverage(answer: str) -> float:
    """The share of the answer's sentences a citation covers. A marker after a run of sentences
    quoted from one passage cites the run ("Which payment methods do you accept? We accept Visa,
    Mastercard and PayPal. [1]": compose.runs), so a sentence counts as cited when a cited sentence
    follows it in its paragraph; before this, a FAQ's two-sentence answer graded at two thirds of its
    similarity and a customer's question about payment methods was escalated."""
    covered = total = 0
    for paragraph in answer.strip().split("\n\n"):
        # A citation follows its sentence's full stop, so never split in front of a "[".
        sentences = [s for s in _ANSWER_SENTENCE_END.split(paragraph.strip()) if s.strip()]
        cited = [i for i, s in enumerate(sentences) if _CITED.search(s)]
        covered += cited[-1] + 1 if cited else 0
        total += len(sentences)
    return covered / total if total else 0.0
