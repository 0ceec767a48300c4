"""The resolution verdict: names, references and the action's shape merged into one `DocMatch`,
with the weakest evidence setting its confidence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from shared.llm.offline.documents.names import name_evidence, unresolved_names
from shared.llm.offline.documents.references import add_reference_evidence
from shared.llm.offline.documents.shape import add_shape_evidence
from shared.llm.offline.documents.vocabulary import Request

_CONFIDENCE_ORDER = {"low": 0, "medium": 1, "high": 2}


@dataclass
class DocMatch:
    ids: list[str] = field(default_factory=list)
    source: str = "none"
    confidence: str = "low"
    candidates: list[tuple[str, str]] = field(default_factory=list)  # (id, display title) to choose from
    unresolved: list[str] = field(default_factory=list)  # names that match none of the user's documents

    @property
    def ambiguous(self) -> bool:
        """A PalAssist doc_choice is needed; the chosen documents join `ids`."""
        return len(self.candidates) > 1


def resolve_documents(
    text: str,
    registry: dict[str, str],
    library: dict[str, str],
    *,
    strict: bool = False,
    action: str | None = None,
    tagged: Sequence[str] | None = None,
    doc_types: dict[str, str] | None = None,
) -> DocMatch:
    """`registry`: {display title: id} from earlier turns (oldest first); `library`: {id: display title}.

    `strict`: questions name a document only by its (near-)verbatim title, its acronym or a
    phrase like "the travel policy". `action`: the action's document shape (compare wants two).
    `tagged`: ids the user tagged (the hybrid mode: references then mean other documents).
    `doc_types`: {id: doc_type} for typed references ("the regulation").
    """
    request = Request(
        text=text,
        registry=registry,
        library=library,
        titles={**{d: t for t, d in registry.items()}, **library},
        doc_types=doc_types or {},
        tagged=list(dict.fromkeys(tagged or [])),
        action=action,
        strict=strict,
    )
    evidence = name_evidence(request)
    add_reference_evidence(request, evidence)
    add_shape_evidence(request, evidence)
    unresolved = unresolved_names(request, evidence)
    ids, candidates, sources = evidence.ids, evidence.candidates, evidence.sources
    if not sources:
        if request.tagged:
            return DocMatch(ids=ids, source="explicit", confidence="high", unresolved=unresolved)
        return DocMatch(unresolved=unresolved)
    source = "fuzzy_match" if any(s == "fuzzy_match" for s, _ in sources) else "inferred"
    confidence = min((c for _, c in sources), key=_CONFIDENCE_ORDER.__getitem__)
    if candidates or unresolved:
        confidence = "medium" if candidates else "low"
    return DocMatch(ids=ids, source=source, confidence=confidence, candidates=candidates, unresolved=unresolved)
