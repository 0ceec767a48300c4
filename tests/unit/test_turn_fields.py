"""The graph state's turn fields are TurnResult's, written out for the type checker: they must not drift."""

from typing import Any, get_type_hints

from shared.contracts import TurnResult
from shared.graph.state import AgentState, TurnFields


def test_turn_fields_are_turn_results_fields() -> None:
    assert set(get_type_hints(TurnFields)) == set(TurnResult.model_fields)


def test_each_turn_field_holds_the_result_field_or_none() -> None:
    hints = get_type_hints(TurnFields)
    for name, field in TurnResult.model_fields.items():
        if name == "citations":  # Citation models, held as their JSON in the checkpoint
            assert hints[name] == list[dict[str, Any]] | None
            continue
        assert hints[name] == field.annotation | None, name


def test_agent_state_carries_the_turn_fields() -> None:
    assert set(TurnResult.model_fields) <= set(get_type_hints(AgentState, include_extras=True))
