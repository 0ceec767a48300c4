"""What the LLM service learns about a model: kept on disk, expiring, and the passages fitted to a budget."""

from __future__ import annotations

import json

from shared.llm.lessons import LessonBook
from shared.llm.pace import MIN_PASSAGE_CHARS, PaceBook, fitted_passages
from shared.llm.schemas import Passage
from shared.llm.structured import FormatBook

TEXT = "Records are kept for five years. " * 30


def passages(count: int) -> list[Passage]:
    return [Passage(n=i, document_id=f"d{i}", document=f"Doc {i}", text=TEXT) for i in range(1, count + 1)]


def test_lessons_reach_another_process_through_the_file_and_expire(tmp_path):
    path = tmp_path / "lessons.json"
    writer = LessonBook(path)
    writer.learn_unusable("srv m", "intent", 600)
    writer.learn_unusable("srv m", "title", -1)  # already expired
    FormatBook("auto", writer).refused("srv m", "json_schema")
    reader = LessonBook(path)
    assert reader.unusable("srv m", "intent") and not reader.unusable("srv m", "title")
    assert not reader.unusable("other-server m", "intent")
    assert FormatBook("auto", reader).mode("srv m") == "json_object"
    assert "title" not in path.read_text()  # expired lessons are not written


def test_an_unreadable_lessons_file_is_ignored_and_overwritten(tmp_path):
    path = tmp_path / "lessons.json"
    path.write_text("{not json")
    book = LessonBook(path)
    assert book.mode("srv m") is None
    book.learn_mode("srv m", "prompt", 60)
    assert json.loads(path.read_text())["srv m"]["mode"][0] == "prompt"


def test_a_stream_measures_reading_and_writing_apart_and_later_calls_are_split_with_it():
    pace = PaceBook(LessonBook())
    pace.observe_stream("m", prompt_tokens=1000, first_s=2.0, output_tokens=101, seconds=7.0)
    measured = pace.pace("m")
    assert measured is not None and (measured.prompt_s, measured.output_s) == (0.002, 0.05)
    pace.observe_call("m", prompt_tokens=500, output_tokens=20, seconds=3.0)  # 1 s writing, 2 s reading
    later = pace.pace("m")
    assert later is not None and later.output_s == 0.05 and later.prompt_s == (0.002 + 0.004) / 2


def test_fitted_passages_keep_every_number_and_the_best_ranked_when_room_is_short():
    fitted = fitted_passages(passages(4), 2000)
    assert [p.n for p in fitted] == [1, 2, 3, 4]
    assert all(len(p.text) <= 500 + 2 and p.text.endswith(" …") for p in fitted)
    tight = fitted_passages(passages(4), 300)
    assert [p.n for p in tight] == [1] and len(tight[0].text) <= 300 + 2
    assert len(fitted_passages(passages(4), 0)[0].text) <= MIN_PASSAGE_CHARS + 2
    assert fitted_passages(passages(2), 10_000) == passages(2)  # what fits is left alone


def test_a_stream_sent_in_bursts_is_shared_out_evenly():
    pace = PaceBook(LessonBook())
    # Everything arrived at the end: writing cannot have been faster a token than reading.
    pace.observe_stream("m", prompt_tokens=90, first_s=9.9, output_tokens=11, seconds=10.1)
    measured = pace.pace("m")
    assert measured is not None and measured.prompt_s == measured.output_s == 10.1 / 101
