"""A FAQ's questions start chunks (services/ingest/faq.py): each topic is embedded on its own."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.ingest.chunker import chunk_pages, join_pages
from services.ingest.faq import is_question, question_starts
from services.ingest.parse import Page

FAQ = [
    (
        "How do I reset my password?",
        "Open the sign-in page and choose Forgot password. The link is valid for 30 minutes.",
    ),
    ("Can I change the email address on my account?", "Yes. Go to Settings, then Account, and enter the new address."),
    ("How do I close my account?", "Write to support@example.com. We close it within five business days."),
    ("Which payment methods do you accept?", "We accept Visa, Mastercard and PayPal."),
]


def faq_page(title: str = "Help centre FAQ") -> Page:
    return Page(number=1, text="\n\n".join([title, *(f"{q}\n\n{a}" for q, a in FAQ)]))


def test_each_question_and_its_answer_are_one_chunk():
    chunks = chunk_pages([faq_page()], 1000, 150)
    assert (
        [c.text for c in chunks]
        == [
            "Help centre FAQ\n\n" + f"{FAQ[0][0]}\n\n{FAQ[0][1]}",  # a title alone is no chunk
            *(f"{q}\n\n{a}" for q, a in FAQ[1:]),
        ]
    )


def test_a_long_preface_keeps_its_own_chunk():
    preface = "This page answers the questions our customers ask most often about their accounts. " * 3
    chunks = chunk_pages([faq_page(preface.strip())], 1000, 150)
    assert chunks[0].text == preface.strip()
    assert chunks[1].text.startswith(FAQ[0][0])


def test_a_numbered_question_is_one():
    assert is_question("Q: How do I reset my password?") and is_question("3. Which payment methods do you accept?")
    assert is_question("Q2) Can I pay by invoice?") and is_question("1.2 Can I pay by invoice?")


def test_a_heading_question_may_hold_two_sentences():
    asked = "I forgot my password. How do I reset it?"
    text = "\n\n".join([asked, "Click Forgot password on the sign-in page.", *(f"{q}\n\n{a}" for q, a in FAQ[1:])])
    # Unless the parser read it as a heading, only its question stands alone.
    assert question_starts(text)[0] == text.index("How do I reset it?")
    assert question_starts(text, headings={0})[0] == 0


def test_a_question_and_its_answer_in_one_block_open_a_section():
    blocks = [f"Q: {q} A: {a}" for q, a in FAQ]
    text = "\n\n".join(["Frequently asked questions", *blocks])
    chunks = chunk_pages([Page(number=1, text=text)], 1000, 150)
    assert [c.text for c in chunks] == [f"Frequently asked questions\n\n{blocks[0]}", *blocks[1:]]


def test_a_question_ending_the_block_of_the_previous_answer_opens_its_section():
    # MuPDF reads an HTML definition list's answer and the next question as one block.
    blocks = [FAQ[0][0], f"{FAQ[0][1]} {FAQ[1][0]}", f"{FAQ[1][1]} {FAQ[2][0]}", FAQ[2][1]]
    text = "\n\n".join(blocks)
    assert question_starts(text) == [0, text.index(FAQ[1][0]), text.index(FAQ[2][0])]
    chunks = chunk_pages([Page(number=1, text=text)], 1000, 150)
    assert [c.text.split("\n\n")[0] for c in chunks] == [FAQ[0][0], FAQ[1][0], FAQ[2][0]]


def test_a_category_heading_opens_the_section_of_its_first_question():
    text = "\n\n".join([*(f"{q}\n\n{a}" for q, a in FAQ[:2]), "Billing", f"{FAQ[3][0]}\n\n{FAQ[3][1]}"])
    billing = text.index("Billing")
    assert question_starts(text, headings={billing})[-1] == billing
    assert question_starts(text)[-1] == text.index(FAQ[3][0])  # a line the parser did not call a heading


def test_what_is_not_a_standing_question_cuts_nothing():
    prose = "Why does this matter? Because the rule applies to every system. It has no exceptions."
    listed = "\n\n".join(q for q, _ in FAQ)  # a list of questions, each without an answer
    text = "\n\n".join([prose, listed, "reach?", "Every answer follows below."])
    assert question_starts(text) == [text.index(FAQ[-1][0])]  # only the last one opens an answer
    assert not is_question("reach?")  # a line-broken fragment of prose
    assert not is_question("Is " + "this long " * 30 + "enough?")
    assert not is_question("See section 3. Does it apply?")


def test_documents_without_questions_chunk_as_before():
    text = "\n\n".join(a for _, a in FAQ)
    assert question_starts(text) == []


questions = st.sampled_from([q for q, _ in FAQ])
answers = st.lists(st.sampled_from([a for _, a in FAQ]), min_size=1, max_size=12).map(" ".join)
blocks = st.lists(st.one_of(questions, answers), min_size=1, max_size=30)


@settings(deadline=None)
@given(blocks=blocks, size=st.integers(120, 1200))
def test_chunks_still_cover_the_text_in_order(blocks, size):
    pages = [Page(number=1, text="\n\n".join(blocks))]
    text, _, _ = join_pages(pages)
    chunks = chunk_pages(pages, size, size // 5)
    covered = {i for c in chunks for i in range(c.char_start, c.char_end)}
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())
    assert all(len(c.text) <= size and text[c.char_start : c.char_end] == c.text for c in chunks)
    assert all(a.char_start < b.char_start for a, b in zip(chunks, chunks[1:], strict=False))
    starts = {c.char_start for c in chunks}
    assert all(q in starts for q in question_starts(text) if q >= 150)
