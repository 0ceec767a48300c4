"""Accuracy of intent classification and document resolution on the labelled sets in evals/.

    python bench/labelled.py [--engine offline|openai] [--out bench/results/labelled.json]

Each case goes through the same Python stages as the resolver (docs/architecture.md §7.1–§7.2): `@[Label]`
mentions in a message stand for TipTap mention nodes — an action label (@[Summarize]) is an
explicit action and skips classification, @[Web] sets the web flag, any other label is a tagged
document; a message of mentions only is resolved without the engine. What is left goes to the
engine: `offline` (the rule engine, deterministic) or `openai` (the LLM service, needs
OPENAI_API_KEY). Prints accuracy per set and per category and the failing cases, and writes
JSON results.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from shared.llm.offline.documents.resolve import resolve_documents  # noqa: E402
from shared.llm.offline.intent import classify_intent  # noqa: E402
from shared.text.temporal import temporal_flag  # noqa: E402

INTENT_CASES = ROOT / "evals" / "intent_cases.jsonl"
DOC_CASES = ROOT / "evals" / "doc_resolution_cases.jsonl"
# The labels' "current year" (docs/architecture.md §7.1: current and previous year are temporal terms).
TODAY = date(2026, 11, 22)
ACTIONS = ("summarize", "inquire", "compare", "audit")
OUTCOMES = ("resolved", "choice", "none", "tag")
DOC_TYPES = ("company_policy", "regulatory_source", "knowledge_base")
WEB_LABELS = {"web", "websearch", "web search"}
HISTORY = 5
MENTION = re.compile(r"@\[([^\]]+)\]")


@dataclass
class Mentions:
    """What the TipTap pre-processor would extract from a message."""

    text: str
    action: str | None = None
    web: bool = False
    docs: list[str] = field(default_factory=list)

    @property
    def pure(self) -> bool:
        return not self.text and bool(self.docs)


def parse_mentions(message: str) -> Mentions:
    found = Mentions(text=" ".join(MENTION.sub(" ", message).split()))
    for label in MENTION.findall(message):
        if label.lower() in ACTIONS:
            found.action = found.action or label.lower()
        elif label.lower() in WEB_LABELS:
            found.web = True
        else:
            found.docs.append(label)
    return found


def as_typed(message: str) -> str:
    """The message as the user typed it: "@[Our Policy]" → "@Our Policy"."""
    return MENTION.sub(r"@\1", message)


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@dataclass(frozen=True)
class DocQuery:
    """What doc_resolver reads for one case: the message, its text without mentions, the action, the
    user's documents (`library` id → title, `registry` title → id, `doc_types`), the tagged ids and
    the earlier user messages."""

    message: str
    clean: str
    action: str
    registry: dict[str, str]
    library: dict[str, str]
    doc_types: dict[str, str]
    tagged: list[str]
    history: list[str]


class Engine(Protocol):
    name: str

    def intent(self, message: str, clean: str, history: list[str]) -> dict[str, Any]:
        """→ {"actions": [...], "confidence": str, "web": bool}; `history`: earlier user messages."""
        ...

    def documents(self, q: DocQuery) -> dict[str, Any]:
        """→ {"ids": [...], "candidates": [...], "unresolved": [...]}."""
        ...


class OfflineEngine:
    name = "offline"

    def intent(self, message: str, clean: str, history: list[str]) -> dict[str, Any]:
        earlier = [parse_mentions(h).text for h in history]
        result = classify_intent(clean, history=earlier, today=TODAY)
        return {"actions": list(result.actions), "confidence": result.confidence, "web": result.web_search}

    def documents(self, q: DocQuery) -> dict[str, Any]:
        match = resolve_documents(
            q.clean,
            q.registry,
            q.library,
            strict=q.action == "inquire",
            action=q.action,
            tagged=q.tagged,
            doc_types=q.doc_types,
        )
        return {"ids": match.ids, "candidates": [d for d, _ in match.candidates], "unresolved": match.unresolved}


class OpenAIEngine:
    """The same tasks through the LLM service (shared/llm/service.py) with the OpenAI provider."""

    name = "openai"

    def __init__(self) -> None:
        try:
            from shared.config import Settings
            from shared.llm import schemas
            from shared.llm.prompts import build_prompt
            from shared.llm.service import LLMService, build_provider
        except ImportError as exc:
            raise SystemExit(
                f"--engine openai is not available yet: needs the LLM service (shared/llm/service.py): {exc}"
            ) from exc
        settings = Settings(llm_provider="openai")
        if not settings.openai_api_key:
            raise SystemExit("--engine openai needs OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible server)")
        self._schemas, self._prompt = schemas, build_prompt
        self._service = LLMService(settings, build_provider(settings))
        self._loop = asyncio.new_event_loop()

    def _call(self, task: str, schema: type, inputs: Any) -> Any:
        return self._loop.run_until_complete(self._service.structured(task, schema, self._prompt(task, inputs)))

    def intent(self, message: str, clean: str, history: list[str]) -> dict[str, Any]:
        s = self._schemas
        earlier = [as_typed(h) for h in history[-HISTORY:]]
        out = self._call("intent", s.IntentOutput, s.IntentInputs(message=as_typed(message), history=earlier))
        return {"actions": list(out.actions), "confidence": out.confidence, "web": out.web_search}

    def documents(self, q: DocQuery) -> dict[str, Any]:
        s = self._schemas
        # docs/architecture.md §7.2: the full message (mention labels included) plus what the Python stage found.
        inputs = s.DocResolutionInputs(
            message=as_typed(q.message),
            clean_query=q.clean,
            action=q.action,
            registry=q.registry,
            library=q.library,
            doc_types=q.doc_types,
            tagged=q.tagged,
            strict=q.action == "inquire",
        )
        out = self._call("doc_resolution", s.DocResolutionOutput, inputs)
        ids = list(dict.fromkeys([*q.tagged, *out.ids]))
        return {"ids": ids, "candidates": [c.id for c in out.candidates], "unresolved": out.unresolved}


ENGINES: dict[str, Callable[[], Engine]] = {"offline": OfflineEngine, "openai": OpenAIEngine}


def run_intent_case(case: dict[str, Any], engine: Engine) -> dict[str, Any]:
    """intent_resolver: explicit action → no classification; the temporal keyword scan always runs."""
    mentions = parse_mentions(case["message"])
    keyword_web = temporal_flag(mentions.text, TODAY)
    if mentions.action:
        actions, confidence, web = [mentions.action], "explicit", mentions.web or keyword_web
    else:
        out = engine.intent(case["message"], mentions.text, case.get("history", []))
        actions, confidence, web = out["actions"], out["confidence"], mentions.web or keyword_web or out["web"]
    actions_ok = sorted(actions) == sorted(case["expected_actions"])
    web_ok = web == case["expected_web"]
    return {
        "id": case["id"],
        "category": case["category"],
        "split": case.get("split", "batch-1"),
        "message": case["message"],
        "got": {"actions": actions, "confidence": confidence, "web": web},
        "expected": {"actions": case["expected_actions"], "web": case["expected_web"]},
        "actions_ok": actions_ok,
        "web_ok": web_ok,
        "ok": actions_ok and web_ok,
    }


def run_doc_case(case: dict[str, Any], engine: Engine) -> dict[str, Any]:
    """doc_resolver: tagged documents from mentions, a pure mention skips the engine."""
    library = {f"d{i + 1}": doc["title"] for i, doc in enumerate(case["library"])}
    doc_types = {f"d{i + 1}": doc["doc_type"] for i, doc in enumerate(case["library"])}
    by_title = {title: doc_id for doc_id, title in library.items()}
    registry = {title: by_title[title] for title in case["registry"]}
    mentions = parse_mentions(case["message"])
    tagged = [by_title[label] for label in mentions.docs]
    if mentions.pure:
        out: dict[str, Any] = {"ids": tagged, "candidates": [], "unresolved": []}
    else:
        query = DocQuery(
            message=case["message"],
            clean=mentions.text,
            action=case["action"],
            registry=registry,
            library=library,
            doc_types=doc_types,
            tagged=tagged,
            history=case.get("history", []),
        )
        out = engine.documents(query)
    if len(out["candidates"]) > 1:
        outcome = "choice"
    elif out["unresolved"]:
        outcome = "tag"
    elif out["ids"]:
        outcome = "resolved"
    else:
        outcome = "none"
    got = {
        "outcome": outcome,
        "docs": [library[d] for d in out["ids"]],
        "candidates": [library[d] for d in out["candidates"]] if outcome == "choice" else [],
    }
    expected = case["expected"]
    ok = (
        outcome == expected["outcome"]
        and set(got["docs"]) == set(expected["docs"])
        and set(got["candidates"]) == set(expected.get("candidates", []))
    )
    return {
        "id": case["id"],
        "category": case["category"],
        "split": case.get("split", "batch-1"),
        "message": case["message"],
        "got": got,
        "expected": expected,
        "ok": ok,
    }


def score(results: list[dict[str, Any]]) -> dict[str, Any]:
    def share(rows: list[dict[str, Any]], key: str = "ok") -> float:
        return round(sum(r[key] for r in rows) / len(rows), 4) if rows else 0.0

    def groups(key: str) -> dict[str, dict[str, Any]]:
        found: dict[str, list[dict[str, Any]]] = {}
        for r in results:
            found.setdefault(r[key], []).append(r)
        return {
            name: {"cases": len(rows), "correct": sum(r["ok"] for r in rows), "accuracy": share(rows)}
            for name, rows in sorted(found.items())
        }

    summary: dict[str, Any] = {
        "cases": len(results),
        "correct": sum(r["ok"] for r in results),
        "accuracy": share(results),
        "per_category": groups("category"),
        "per_split": groups("split"),
        "failures": [r for r in results if not r["ok"]],
    }
    if results and "actions_ok" in results[0]:
        summary["action_accuracy"] = share(results, "actions_ok")
        summary["web_accuracy"] = share(results, "web_ok")
    return summary


def evaluate(engine: Engine) -> dict[str, Any]:
    return {
        "engine": engine.name,
        "today": TODAY.isoformat(),
        "intent": score([run_intent_case(c, engine) for c in load(INTENT_CASES)]),
        "doc_resolution": score([run_doc_case(c, engine) for c in load(DOC_CASES)]),
    }


def _print(name: str, summary: dict[str, Any]) -> None:
    extra = ""
    if "action_accuracy" in summary:
        extra = f"  (actions {summary['action_accuracy']:.1%}, web flag {summary['web_accuracy']:.1%})"
    print(f"\n{name}: {summary['correct']}/{summary['cases']} = {summary['accuracy']:.1%}{extra}")
    for category, s in summary["per_category"].items():
        print(f"  {category:<22}{s['correct']:>4}/{s['cases']:<4}{s['accuracy']:>8.1%}")
    print("  by split: " + ", ".join(f"{k} {v['correct']}/{v['cases']}" for k, v in summary["per_split"].items()))
    for f in summary["failures"]:
        print(f"  FAIL {f['id']} [{f['category']}] {f['message']!r}")
        print(f"       got  {f['got']}\n       want {f['expected']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=sorted(ENGINES), default="offline")
    parser.add_argument("--out", type=Path, default=None, help="default: bench/results/labelled[-ENGINE].json")
    args = parser.parse_args(argv)
    results = evaluate(ENGINES[args.engine]())
    print(f"engine: {results['engine']}  (labels' today: {results['today']})")
    _print("intent", results["intent"])
    _print("doc_resolution", results["doc_resolution"])
    suffix = "" if args.engine == "offline" else f"-{args.engine}"
    out = args.out or ROOT / "bench" / "results" / f"labelled{suffix}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2))
    print(f"\nwrote {os.path.relpath(out, Path.cwd())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
