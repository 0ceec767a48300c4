"""Tolerant JSON parsing of model answers and the per-model structured-output book (shared/llm/structured.py)."""

from __future__ import annotations

import pytest

from shared.llm.schemas import IntentOutput
from shared.llm.structured import FormatBook, parse_json, schema_instruction, strict_schema


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "b": "x"}',
        '```json\n{"a": 1, "b": "x"}\n```',
        'Sure! Here is the JSON you asked for:\n{"a": 1, "b": "x"}\nLet me know if you need more.',
        '{"a": 1, "b": "x",}',
        'Answer: ```\n{"a": 1, "b": "x",\n}\n```',
    ],
)
def test_json_is_found_in_what_small_models_write(text):
    assert parse_json(text) == {"a": 1, "b": "x"}


def test_braces_inside_strings_do_not_end_the_object():
    assert parse_json('The result {"q": "use {braces} and \\"quotes\\" }", "n": [1, {"m": 2}]} done') == {
        "q": 'use {braces} and "quotes" }',
        "n": [1, {"m": 2}],
    }


@pytest.mark.parametrize("text", ["", "no json here", '{"a": 1', "{not json}"])
def test_text_without_json_is_refused(text):
    with pytest.raises(ValueError):
        parse_json(text)


def test_the_book_steps_down_once_per_model_and_never_back_up():
    book = FormatBook("auto")
    assert book.mode("m") == "json_schema"
    assert book.refused("m", "json_schema") == "json_object"
    assert book.mode("m") == "json_object" and book.mode("other") == "json_schema"
    assert book.refused("m", "json_object") == "prompt"
    # A refusal of json_schema reported late by a concurrent call does not undo the step to prompt.
    assert book.refused("m", "json_schema") == "prompt"
    assert book.refused("m", "prompt") is None


def test_a_pinned_mode_is_kept_even_when_refused():
    book = FormatBook("json_object")
    assert book.mode("m") == "json_object"
    assert book.refused("m", "json_object") is None and book.mode("m") == "json_object"


def test_the_schema_is_closed_and_stated_compactly():
    schema = strict_schema(IntentOutput)
    assert schema["additionalProperties"] is False and schema["required"] == ["actions", "confidence", "web_search"]
    assert "title" not in schema and "default" not in str(schema)
    instruction = schema_instruction(IntentOutput)
    assert instruction.startswith("Reply with only one JSON object") and '"enum"' in instruction
