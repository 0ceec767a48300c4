"""The offline engine's conversation title: the first message, without what the mentions left behind."""

from __future__ import annotations

from shared.llm.offline.language import title


def test_a_title_does_not_start_with_the_colon_after_the_mentions() -> None:
    assert title(": Personal data breaches must be notified within 24 hours.") == (
        "Personal data breaches must be notified within…"
    )
    assert title("@Summarize the retention policy") == "Summarize the retention policy"
    assert title(" : ") == "New conversation"
