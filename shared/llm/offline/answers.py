"""Offline summarize, inquire and compare: sentences of the passages, each followed by its `[n]`.

Sentences are ranked by embedding similarity (to the question, or to a document's centroid
for "what is this about"), picked with MMR for diversity, and kept in the passages' words.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from shared.embeddings.provider import embed_async
from shared.llm.offline import compose, figure_lead
from shared.llm.offline.audit import quantities
from shared.llm.offline.document_names import document_titles, without_document_names
from shared.llm.offline.lead_ins import with_lead_ins
from shared.llm.offline.own_rules import extracts_for, ranked_note, whose_rules
from shared.llm.offline.parts import answer_each_part
from shared.llm.offline.themes import find_themes
from shared.llm.schemas import AnswerInputs, Passage
from shared.text.extracts import Extract
from shared.text.filing_forms import asks_about_forms
from shared.text.search_query import retrieval_query
from shared.text.sentences import candidate_sentences

NOTHING_ON_TOPIC = "Nothing on this topic."
MIN_THEMES, MAX_THEMES = 3, 5
# Prompt mode B without a generative model: there is no general knowledge to offer, so say so.
NO_DOCUMENTS = (
    "You don't have any documents yet, so there is nothing I can answer from. "
    "Upload a policy or regulation and ask again."
)


def cited(extracts: list[Extract], passages: Sequence[Passage]) -> str:
    return " ".join(f"{e.sentence.text} [{passages[e.sentence.chunk_index].n}]" for e in extracts)


def by_document(passages: list[Passage]) -> list[list[Passage]]:
    groups: dict[str, list[Passage]] = {}
    for p in passages:
        groups.setdefault(p.document_id, []).append(p)
    return list(groups.values())


async def inquire(inputs: AnswerInputs) -> str:
    """The question's answer in the passages' own sentences (shared/llm/offline/compose.py)."""
    if inputs.mode == "no_documents":
        return NO_DOCUMENTS
    sentences = candidate_sentences(inputs.passages)
    if not sentences:
        return ""
    # Sentences are ranked for what the question asks, not where it says to look: "in Apple's Q3
    # 10-Q report" made a filing's certification ("I have reviewed this quarterly report on Form
    # 10-Q of Apple Inc.") the best answer to most questions (docs/answers-on-real-documents.md).
    asked = retrieval_query(inputs.query, statements=False)
    vectors = await embed_async([asked] + [s.text for s in sentences])
    # Words naming the tagged document earn no sentence a bonus (shared/llm/offline/document_names.py).
    by_words = without_document_names(asked, document_titles(inputs.passages))
    scored = compose.score_sentences(by_words, sentences, vectors[1:] @ vectors[0])
    forms = compose.repeated_far_apart(inputs.passages)
    scored = compose.set_aside_forms(scored, sentences, forms, filing_forms=not asks_about_forms(inputs.query))
    scored = compose.answered_in_turn(scored, sentences)
    names = inputs.profile.places_and_trades()
    picked = compose.pick(scored, vectors[1:], k=inputs.sentences, floor=inputs.floor)
    picked = answer_each_part(by_words, scored, picked, k=inputs.sentences, floor=inputs.floor)
    picked = compose.lead_with_own_rules(scored, picked, sentences, names, floor=inputs.floor)
    led = figure_lead.lead_with_named_row(
        inputs.query, inputs.passages, sentences, scored, picked, k=inputs.sentences, floor=inputs.floor
    )
    sentences = led.sentences
    picked = with_lead_ins(compose.with_what_follows(led.picked, sentences), sentences)
    parts = []
    for run in compose.runs(picked, sentences):
        n = inputs.passages[sentences[run[0]].chunk_index].n
        parts.append(" ".join(sentences[i].text for i in run) + f" [{n}]")
    answer = " ".join(parts)
    if led.computed:
        # The figure computed from the rows quoted leads them: it is what was asked.
        answer = f"{led.computed}\n\n{answer}"
    named = compose.naming(names, answer)
    if named:
        # Whose rules these are: the extractive engine cannot reason about jurisdiction, but it can
        # tell the user that the rules naming their place or trade were put first.
        answer += "\n\n" + ranked_note(inputs.profile, named)
    return answer


async def summarize(inputs: AnswerInputs) -> str:
    """Each document's most central sentences; a sentence naming the user's place or trade leads."""
    groups = by_document(inputs.passages)
    sections, named = [], []
    for group in groups:
        extracts, own = await extracts_for(group, k=inputs.sentences, focus="", profile=inputs.profile)
        named += [n for n in own if n not in named]
        body = cited(extracts, group)
        sections.append(body if len(groups) == 1 else f"**{group[0].document}**\n\n{body}")
    if named:
        sections.append(ranked_note(inputs.profile, named))
    return "\n\n".join(s for s in sections if s.strip())


def figures(text: str) -> list[str]:
    """Numbers with units (percentages, durations) in the order they appear, e.g. ["8%", "30 days"]."""
    return [f"{q.value:g}%" if q.unit == "percent" else f"{q.value:g} {q.unit}s" for q in quantities(text)]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


async def compare_focused(inputs: AnswerInputs) -> str:
    """A table of what each document says on the topic, then the figures that differ."""
    rows, found = [], {}
    for group in by_document(inputs.passages):
        extracts, _ = await extracts_for(group, k=inputs.sentences, focus=inputs.focus, profile=inputs.profile)
        rows.append(f"| {_cell(group[0].document)} | {_cell(cited(extracts, group) or NOTHING_ON_TOPIC)} |")
        found[group[0].document] = figures(" ".join(e.sentence.text for e in extracts))
    parts = [
        f"How the documents address “{inputs.focus}”:",
        "| Document | What it says |\n|---|---|\n" + "\n".join(rows),
    ]
    if len({tuple(f) for f in found.values()}) > 1:
        parts.append(
            "**Figures that differ:** " + "; ".join(f"{doc}: {', '.join(f) or 'none'}" for doc, f in found.items())
        )
    applies = whose_rules(inputs.profile, inputs.passages)
    return "\n\n".join([*parts, applies] if applies else parts)


def _implications(differences: bool, unique: bool, applies: str) -> str:
    """What the comparison means for the reader, ending with whose rules apply to them."""
    said = []
    if differences:
        said.append("Where the documents set different figures, confirm which one governs before relying on either.")
    if unique:
        said.append("Themes covered by only one document may be gaps in the others.")
    if not said:
        said.append("The documents are broadly aligned on the themes found.")
    return " ".join([*said, applies] if applies else said)


async def compare_holistic(inputs: AnswerInputs) -> str:
    """Five sections over k-means themes: overview, common themes, key differences, unique aspects, implications."""
    passages = inputs.passages
    sentences = candidate_sentences(passages)
    if not sentences:
        return "The selected documents have no ready text to compare yet."
    vectors = await embed_async([s.text for s in sentences])
    texts = [s.text for s in sentences]
    names = {p.document_id: p.document for p in passages}
    doc_of = [passages[s.chunk_index].document_id for s in sentences]

    def cite(i: int) -> str:
        return f"{texts[i]} [{passages[sentences[i].chunk_index].n}]"

    def central(members: list[int], centre: np.ndarray) -> int:
        return max(members, key=lambda i: float(vectors[i] @ centre))

    overview = []
    for doc_id, name in names.items():
        own = [i for i in range(len(texts)) if doc_of[i] == doc_id]
        centre = vectors[own].mean(axis=0)
        overview.append(f"- **{name}**: {cite(central(own, centre))}")
    themes = find_themes(texts, vectors, k=min(MAX_THEMES, max(MIN_THEMES, len(texts) // 8)))
    common, differences, unique = [], [], []
    for theme in themes:
        by_doc = {
            d: central([i for i in theme.members if doc_of[i] == d], theme.centroid)
            for d in names
            if any(doc_of[i] == d for i in theme.members)
        }
        if len(by_doc) == len(names) and len(names) > 1:
            common.append(f"- *{theme.label}*: " + "; ".join(f"{names[d]}: {cite(i)}" for d, i in by_doc.items()))
            said = {d: figures(texts[i]) for d, i in by_doc.items()}
            if len({tuple(f) for f in said.values()}) > 1:
                differences.append(
                    f"- *{theme.label}*: "
                    + " vs ".join(f"{', '.join(f) or 'no figure'} ({names[d]})" for d, f in said.items())
                )
        elif len(by_doc) == 1 and len(names) > 1:
            ((d, i),) = by_doc.items()
            unique.append(f"- Only **{names[d]}** covers *{theme.label}*: {cite(i)}")
    implications = _implications(bool(differences), bool(unique), whose_rules(inputs.profile, passages))
    return "\n\n".join(
        [
            "**1. Overview**\n" + "\n".join(overview),
            "**2. Common themes**\n" + ("\n".join(common) or "No theme appears in every document."),
            "**3. Key differences**\n"
            + ("\n".join(differences) or "No differing figures were found in the shared themes."),
            "**4. Unique aspects**\n" + ("\n".join(unique) or "Every theme appears in all the documents."),
            "**5. Implications**\n" + implications,
        ]
    )
