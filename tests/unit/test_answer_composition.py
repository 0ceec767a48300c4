"""Answer composition (shared/llm/offline/compose.py): lead with the best sentence, add only
near-equals that cover more of the question, cite neighbours once."""

from __future__ import annotations

import asyncio

import numpy as np

from shared.llm.offline.answers import inquire
from shared.llm.offline.compose import (
    Scored,
    answered_in_turn,
    pick,
    repeated_far_apart,
    runs,
    score_sentences,
    set_aside_forms,
    terms,
    with_what_follows,
)
from shared.llm.schemas import AnswerInputs, Passage
from shared.text.filing_forms import asks_about_forms, is_filing_form
from shared.text.quotes import quote_of
from shared.text.sentences import Sentence, candidate_sentences, split_sentences, starts_inside
from shared.text.tables import render_row

SENTENCES = [
    Sentence(0, "Job applicant data is retained for twelve months after the recruitment decision."),
    Sentence(0, "Unsuccessful candidates may ask for earlier deletion at any time."),
    Sentence(1, "Server access logs are kept for ninety days."),
    Sentence(1, "Customer account records are retained for six years."),
]


def unit(*values: float) -> np.ndarray:
    v = np.asarray(values, dtype=np.float32)
    return v / np.linalg.norm(v)


VECTORS = np.stack([unit(1, 0.2, 0, 0), unit(0.8, 0.6, 0, 0), unit(0.3, 0, 1, 0), unit(0.5, 0, 0, 1)])


def test_terms_drop_stopwords_and_stem():
    assert terms("How long are the job applicant records kept?") == {"long", "job", "applic", "record", "kept"}
    assert "72" in terms("within 72 hours")


def test_the_answer_stops_when_the_question_is_answered():
    question = "How long is job applicant data retained?"
    scored = score_sentences(question, SENTENCES, VECTORS @ unit(1, 0.1, 0, 0))
    picked = pick(scored, VECTORS, k=4, floor=0.0)
    assert [p.index for p in picked] == [0], "other retention periods are padding"


def test_a_second_sentence_joins_only_if_it_covers_more_of_the_question():
    question = "How long is applicant data retained and can candidates ask for earlier deletion?"
    scored = score_sentences(question, SENTENCES, VECTORS @ unit(1, 0.4, 0, 0))
    picked = pick(scored, VECTORS, k=4, floor=0.0)
    assert {p.index for p in picked} == {0, 1}
    assert runs(picked, SENTENCES) == [[0, 1]], "neighbours in one passage are cited once"


def test_rare_question_terms_lift_a_sentence_in_a_multi_topic_passage():
    question = "Which TLS version do connections need?"
    sentences = [Sentence(0, "All connections must use TLS 1.3."), Sentence(0, "Connections are reviewed yearly.")]
    vectors = np.stack([unit(1, 1, 0), unit(1, 1.1, 0)])
    scored = score_sentences(question, sentences, vectors @ unit(1, 1.05, 0))
    assert max(scored, key=lambda s: s.score).index == 0


def test_nothing_is_picked_below_the_floor_and_an_empty_scope_picks_nothing():
    scored = score_sentences("anything", SENTENCES, np.full(4, 0.1))
    assert pick(scored, VECTORS, k=4, floor=0.3) == []
    assert pick([], VECTORS, k=4, floor=-1.0) == []


def test_quotes_mark_the_gap_between_sentences_that_were_not_adjacent():
    assert quote_of(["First sentence here.", "Third sentence here."]) == "First sentence here. … Third sentence here."


def test_a_heading_is_not_an_answer_when_a_statement_is_available():
    sentences = [
        Sentence(0, "MOZILLA PUBLIC LICENSE Version 1.1"),
        Sentence(0, "This License is governed by California law."),
    ]
    vectors = np.stack([unit(1, 0), unit(0.9, 0.44)])
    scored = score_sentences("Which law governs the Mozilla Public License 1.1?", sentences, vectors @ unit(1, 0.1))
    assert [p.index for p in pick(scored, vectors, k=2, floor=-1.0)] == [1]


def test_a_sentence_that_only_restates_the_question_is_not_the_answer():
    sentences = [
        Sentence(0, "How to create a DOCX file."),
        Sentence(0, "Open the editor, choose New and then Document, and save."),
    ]
    vectors = np.stack([unit(1, 0), unit(0.8, 0.6)])
    scored = score_sentences("How do I create a DOCX file?", sentences, vectors @ unit(1, 0.05))
    assert pick(scored, vectors, k=2, floor=-1.0)[0].index == 1


def test_a_table_row_whose_value_the_question_names_is_still_an_answer():
    # Every word of the row is in the question, but a row pairs its label with a value under a
    # header: it states the answer, where a sentence of the question's words would only restate it.
    sentences = [
        Sentence(0, render_row(None, "Google Meet", [("Product Name", "meet")])),
        Sentence(0, render_row(None, "Groups for Business", [("Product Name", "groups")])),
    ]
    vectors = np.stack([unit(1, 0), unit(0.9, 0.44)])
    question = "What is the product name for Groups for Business?"
    scored = score_sentences(question, sentences, vectors @ unit(1, 0.05))
    assert not scored[1].heading
    assert pick(scored, vectors, k=1, floor=-1.0)[0].index == 1


def test_a_sentence_cut_at_a_chunk_end_is_not_a_heading():
    from shared.llm.offline.compose import heading_like

    assert heading_like("MOZILLA PUBLIC LICENSE Version 1.1") and heading_like('"CLASSPATH" EXCEPTION TO THE GPL')
    assert not heading_like("Closed-circuit television footage is kept for thirty days unless it is")


def test_a_question_about_an_amount_prefers_the_sentence_that_states_one():
    about = [
        Sentence(0, "Gross margin decreased because of weaker foreign currencies and a different product mix."),
        Sentence(
            1, "Gross margin — Three Months Ended July 1, 2023: 36,413 · Three Months Ended June 25, 2022: 35,885."
        ),
    ]
    similarities = np.asarray([0.50, 0.47])
    amount = score_sentences("What was the gross margin in the third quarter?", about, similarities)
    assert max(amount, key=lambda s: s.score).index == 1
    # A question that asks no amount ranks the two as their similarity and words do.
    reason = score_sentences("Why did the product mix shift?", about, similarities)
    assert max(reason, key=lambda s: s.score).index == 0


def test_a_form_repeated_far_apart_in_one_document_is_never_the_answer():
    certification = "I have reviewed this quarterly report on Form 10-Q of Example Inc."
    passages = [
        Passage(n=1, document_id="d", document="Q3", page=27, text=f"{certification} Signed, the CEO."),
        Passage(n=2, document_id="d", document="Q3", page=29, text=f"{certification} Signed, the CFO."),
        Passage(n=3, document_id="d", document="Q3", page=4, text="Net sales rose 8% in the quarter to $81.8 billion."),
        # The overlap that adjacent chunks share is not a repeated form.
        Passage(n=4, document_id="d", document="Q3", page=5, text="Net sales rose 8% in the quarter to $81.8 billion."),
    ]
    forms = repeated_far_apart(passages)
    assert forms == {certification.lower()}
    sentences = [Sentence(0, certification), Sentence(2, "Net sales rose 8% in the quarter to $81.8 billion.")]
    scored = set_aside_forms(
        score_sentences("net sales in the quarterly report", sentences, np.asarray([0.6, 0.4])), sentences, forms
    )
    assert [s.index for s in pick(scored, np.eye(2, dtype=np.float32), k=2, floor=0.0)] == [1]


def test_a_filings_certifications_and_exhibit_index_are_no_answer_unless_the_question_asks_about_them():
    # The section 906 certification names the filing, its form and its period, as a question naming
    # them does; the two officers' copies of section 302's often sit on adjacent pages.
    certification = (
        "Section 1350, as adopted pursuant to Section 906 of the Sarbanes-Oxley Act of 2002, that the Annual "
        "Report of Example Inc. on Form 10-K for the fiscal year ended September 28, 2024 fully complies with "
        "the requirements of Section 13(a) or 15(d) of the Securities Exchange Act of 1934."
    )
    sentences = [
        Sentence(0, certification),
        Sentence(1, "I have reviewed this annual report on Form 10-K of Example Inc.;"),
        Sentence(2, "The lawsuit alleges that the Company monopolised the smartphone market."),
        # The exhibit index: an entry incorporated by reference, one with its footnote marks.
        Sentence(
            3,
            "Executive Incentive Compensation Plan, which is incorporated by reference to Exhibit 10.20 to "
            "Example Inc.'s Annual Report on Form 10-K for the fiscal year ended December 30, 2023.",
        ),
        Sentence(4, "10.17†* Example Inc. Litigation Settlement Incentive Plan, as amended and restated."),
    ]
    similarities = np.asarray([0.62, 0.58, 0.45, 0.6, 0.55])
    vectors = np.eye(5, dtype=np.float32)
    question = "What is the lawsuit disclosed in Example's FY2024 10-K about?"
    scored = set_aside_forms(score_sentences(question, sentences, similarities), sentences, set())
    assert [s.index for s in pick(scored, vectors, k=3, floor=0.0)] == [2]
    asked = "Which certifications under Section 906 does the FY2024 10-K include?"
    set_aside = not asks_about_forms(asked)
    scored = set_aside_forms(score_sentences(asked, sentences, similarities), sentences, set(), filing_forms=set_aside)
    assert pick(scored, vectors, k=3, floor=0.0)[0].index == 0


def test_the_signatures_page_is_a_form_unless_the_question_asks_who_signed():
    sentences = [
        Sentence(0, "Inventories — July 1, 2023: 7,351 · September 24, 2022: 4,946 (in millions)."),
        Sentence(
            1,
            "Pursuant to the requirements of the Securities Exchange Act of 1934, the Registrant has duly caused "
            "this report to be signed on its behalf by the undersigned thereunto duly authorized.",
        ),
        Sentence(2, "Date: August 3, 2023 Apple Inc."),
        Sentence(3, "KNOW ALL PERSONS BY THESE PRESENTS, that each person whose signature appears below constitutes"),
    ]
    assert [is_filing_form(s.text) for s in sentences] == [False, True, True, True]
    # A date line is the form's only with the registrant's name or a signature after it.
    assert not is_filing_form("Date: March 1, 2024")
    assert not is_filing_form("The Company signed a lease on August 3, 2023 with Example Inc.")
    similarities = np.asarray([0.40, 0.30, 0.55, 0.2])
    vectors = np.eye(4, dtype=np.float32)
    question = "How did Apple's inventory levels change as of the Q3 2023 10-Q date?"
    scored = set_aside_forms(score_sentences(question, sentences, similarities), sentences, set())
    assert [s.index for s in pick(scored, vectors, k=3, floor=0.0)] == [0]
    asked = "Who signed Apple's Q3 2023 10-Q, and on what date?"
    assert asks_about_forms(asked) and not asks_about_forms("When did Amazon sign the iRobot agreement?")
    scored = set_aside_forms(score_sentences(asked, sentences, similarities), sentences, set(), filing_forms=False)
    assert pick(scored, vectors, k=3, floor=0.0)[0].index == 2


def test_the_906_certifications_opening_and_an_officers_trading_plan_are_forms_a_buyback_is_not():
    # The opening ends at the officer's initial where a splitter takes "R." for a full stop.
    assert is_filing_form(
        "In connection with the Quarterly Report of Example.com, Inc. (the “Company”) on Form 10-Q for the three "
        "months ended March 31, 2023, as filed with the Securities and Exchange Commission (the “SEC”) on or about "
        "the date hereof (the “Report”), I, Jane R."
    )
    # Its closing sentence, and an exhibit incorporated by reference to an earlier filing.
    assert is_filing_form(
        "A signed original of this written statement required by Section 906 has been provided to Example Inc. "
        "and will be retained by Example Inc."
    )
    assert is_filing_form(
        "3.1 Amended and Restated Certificate of Incorporation of Example.com, Inc. (incorporated by reference to "
        "the Company’s Current Report on Form 8-K, filed May 27, 2022)."
    )
    # Item 408(a): an officer's plan to sell shares says nothing about the company's business.
    assert is_filing_form(
        "On May 15, 2023, Jane Doe, Chief Financial Officer, adopted a trading plan intended to satisfy Rule "
        "10b5-1(c) to sell up to 33,600 shares of Example.com, Inc. common stock."
    )
    assert asks_about_forms("Did any director adopt a Rule 10b5-1 trading plan in Q2?")
    # The company's own buyback under such plans answers a repurchase question.
    assert not is_filing_form("Repurchases may be made in the open market or under Rule 10b5-1 plans.")
    assert not is_filing_form(
        "In connection with the acquisition of One Medical, we recorded $2.5 billion of goodwill."
    )


def test_the_statement_row_a_question_names_is_quoted_with_its_figures():
    # Apple's Q3 2022 cash-flow statement, as ingest stores its rows (services/ingest/tables.py): the
    # adjustments group's name repeats the question's words, the total is what it asks.
    periods = (
        "Three Months Ended June 25, 2022",
        "Three Months Ended June 26, 2021",
        "Nine Months Ended June 25, 2022",
        "Nine Months Ended June 26, 2021",
    )
    rows = [
        ("Operating activities", "Net income", ("23,066", "21,744", "79,082", "74,129")),
        (
            "Adjustments to reconcile net income to cash generated by operating activities",
            "Share-based compensation expense",
            ("2,185", "1,948", "6,760", "5,961"),
        ),
        ("Changes in operating assets and liabilities", "Deferred revenue", ("(12)", "596", "260", "1,738")),
        ("Operating activities", "Cash generated by operating activities", ("22,892", "21,094", "98,024", "83,838")),
        (
            "Investing activities",
            "Purchases of marketable securities",
            ("(19,573)", "(24,072)", "(70,178)", "(94,052)"),
        ),
    ]
    text = "\n\n".join(
        render_row(group, label, list(zip(periods, values, strict=True))) for group, label, values in rows
    )
    passage = Passage(n=1, document_id="d", document="Q3 2022", page=8, text=text)
    inputs = AnswerInputs(query="What was the cash generated by operating activities?", passages=[passage], sentences=1)
    answer = asyncio.run(inquire(inputs))
    assert answer.startswith("Operating activities: Cash generated by operating activities — "), answer
    assert "98,024" in answer.split(" [")[0]


def test_a_sentence_announcing_what_follows_brings_it():
    # The MIT licence's grant ends on "subject to the following conditions:"; its condition is the
    # answer to "may I sell copies?" as much as the grant is.
    passage = Passage(
        n=1,
        document_id="d",
        document="MIT License",
        page=1,
        text=(
            "Permission is hereby granted, free of charge, to any person obtaining a copy of this software, to "
            "deal in the Software without restriction, including the rights to sell copies of the Software, "
            "subject to the following conditions:\n\nThe above copyright notice and this permission notice shall "
            "be included in all copies or substantial portions of the Software.\n\nTHE SOFTWARE IS PROVIDED "
            '"AS IS", WITHOUT WARRANTY OF ANY KIND.'
        ),
    )
    inputs = AnswerInputs(query="Can I sell copies of the software?", passages=[passage], sentences=1)
    answer = asyncio.run(inquire(inputs))
    assert "subject to the following conditions: The above copyright notice" in answer, answer
    assert "WARRANTY" not in answer


def followed(sentences: list[Sentence], *picks: int) -> list[int]:
    """The sentences said for these picks (in order of relevance), what they announce added."""
    scored = [Scored(i, 0.5, 0.5, frozenset()) for i in range(len(sentences))]
    return [s.index for s in with_what_follows([scored[i] for i in picks], sentences)]


def test_an_announcement_with_nothing_after_it_is_left_out_and_a_rows_label_announces_nothing():
    sentences = [
        Sentence(0, "Data subjects have rights under this Regulation."),
        Sentence(0, "Copyright and Related Rights include, but are not limited to, the following:"),
        Sentence(1, "Net income 23,066 21,744 79,082 Operating activities:"),
        Sentence(1, "Net income 23,066 21,744 79,082 74,129."),
    ]
    assert followed(sentences, 1, 0) == [0]
    assert followed(sentences, 1) == [1]
    assert followed(sentences, 2) == [2]


def test_a_question_in_the_text_brings_its_answer_up_to_the_next_question():
    # A help centre's FAQ: the heading question is closest to the reader's and answers nothing.
    sentences = [
        Sentence(0, "Can I change the email address on my account?"),
        Sentence(0, "Go to Settings, then Account, and enter the new address."),
        Sentence(0, "We send a confirmation to both addresses."),
        Sentence(0, "How do I close my account?"),
        Sentence(0, "Write to support from the account's address."),
        Sentence(1, "Which payment methods do you accept?"),
    ]
    assert followed(sentences, 0) == [0, 1, 2]
    assert followed(sentences, 3) == [3, 4]
    # A question that ends its passage says nothing, and is left out beside other picks.
    assert followed(sentences, 5, 4) == [4]
    # A question asked again before its answer (a help page's breadcrumb under its title) is passed over.
    asked_twice = [
        Sentence(0, "FAQ 14: Will the shipping cost be refunded?"),
        Sentence(0, "Home / Orders and Shipping / Will the shipping cost be refunded?"),
        Sentence(0, "Shipping costs on all orders are non-refundable."),
        Sentence(0, "Which carriers do you use?"),
    ]
    assert followed(asked_twice, 0) == [0, 2]


def test_a_question_restated_word_for_word_hands_its_rank_to_its_answer():
    # The FAQ's question is the reader's, so it is set aside like a heading; a later sentence sharing
    # more of the question's words must not lead over the sentence that says how.
    sentences = [
        Sentence(0, "How do I close my account?"),
        Sentence(0, "Write to support from the account's address."),
        Sentence(0, "We close your account within five business days."),
        Sentence(1, "Which payment methods do you accept?"),
    ]
    question = "How do I close my account?"
    scored = score_sentences(question, sentences, np.array([0.95, 0.30, 0.55, 0.20]))
    assert scored[0].heading and scored[2].score > scored[1].score
    turned = answered_in_turn(scored, sentences)
    assert turned[1].score == scored[0].score and turned[1].score > turned[2].score
    assert turned[2:] == scored[2:]  # a question's answer is the sentence after it, not the rest
    # A question the passages ask in other words is not set aside, so it hands nothing on.
    other = score_sentences("How can I delete my profile?", sentences, np.array([0.7, 0.30, 0.55, 0.20]))
    assert answered_in_turn(other, sentences) == other


def test_an_announced_list_comes_whole_and_ends_where_its_items_end():
    sentences = [
        Sentence(0, "You may distribute a combined library, provided that you do these two things:"),
        Sentence(0, "a) Accompany the combined library with a copy of the same work."),
        Sentence(0, "b) Give prominent notice with the combined library."),
        Sentence(0, "You may not copy the Library except as expressly provided."),
    ]
    assert followed(sentences, 0) == [0, 1, 2]


def test_the_tail_of_a_sentence_cut_before_it_is_not_quoted_while_a_whole_sentence_answers():
    # A chunk that starts inside a sentence longer than a chunk (cut at its clauses), and one that holds a
    # sentence printed over a page break (two paragraphs, the second in lower case).
    started_inside = (
        "inflation, interest rates, regional labor market constraints, world events, and the amount that "
        "Example invests in new business opportunities and the timing of those investments."
    )
    over_a_break = (
        "Cash used in financing activities primarily reflects principal repayments of\n\n"
        "payments of short-term debt and finance leases of $11.8 billion and $6.4 billion in Q1 2022 and Q1 2023.\n\n"
        "Cash capital expenditures were $13.1 billion in Q1 2023, which primarily reflect investments in "
        "technology infrastructure."
    )
    passages = [
        Passage(n=1, document_id="d", document="10-Q", page=22, text=started_inside),
        Passage(
            n=2,
            document_id="d",
            document="10-Q",
            page=24,
            text=over_a_break,
            page_breaks=[over_a_break.index("\n\npayments of") + 2],
        ),
    ]
    tails = [s.text[:20] for s in candidate_sentences(passages) if s.tail]
    assert tails == ["inflation, interest ", "payments of short-te"]
    said = asyncio.run(
        inquire(
            AnswerInputs(
                query="What investments did Example make in the first quarter, and how were they funded?",
                passages=passages,
                sentences=3,
            )
        )
    )
    assert said.startswith("Cash capital expenditures were $13.1 billion"), said
    assert "inflation, interest" not in said and "payments of short-term" not in said, said


def test_a_sentence_the_layout_broke_into_two_blocks_of_one_page_is_read_whole():
    # Amazon's 10-Q as MuPDF reads it: one sentence, two blocks of page 13; and a page break, never bridged.
    text = (
        "Other commitments include unconditional purchase obligations related to long-term agreements to "
        "acquire and license digital media content that are not reflected on the\n\n"
        "consolidated balance sheets and certain products offered in our Whole Foods Market stores.\n\n"
        "Table of Contents\n\n"
        "appealed the European Commission’s decision in May 2018, and the appeal was heard in 2021."
    )
    page_break = text.index("Table of Contents")
    sentences = split_sentences(text, [page_break])
    assert sentences[0].endswith(
        "not reflected on the consolidated balance sheets and certain products offered "
        "in our Whole Foods Market stores."
    ), sentences
    # A running header is no sentence's head; the tail after the break stays a tail.
    assert sentences[-1].startswith("appealed the European"), sentences
    # Unmarked, the break still joins nothing to a heading or a page number.
    numbered = "Our revenue grew in every segment during the\n\n18\n\nquarter, led by cloud services and advertising."
    assert split_sentences(numbered)[-1] == "quarter, led by cloud services and advertising."
    # A statement's run of rows whose label wraps is read as the page prints it.
    run = "Capital spending (5,318) (5,518) Sales of property, plant and equipment 342 198 Acquisitions, net and"
    assert split_sentences(f"{run}\n\npurchases of intangible and other assets (256) (314)")[0] == run
    # Neither a table row nor a heading is joined to the text after it.
    row = "Net sales — Three Months Ended July 1, 2023: 81,797 · June 25, 2022: 82,959 (in millions)"
    assert split_sentences(f"{row}\n\nand other income, which the company reports separately.")[0] == row


def test_a_name_that_starts_in_lower_case_or_a_table_row_is_no_tail():
    assert not starts_inside("iPhone net sales decreased during the third quarter of 2023.")
    assert not starts_inside("eBay and other marketplaces are competitors.")
    assert not starts_inside("(a) during the period covered by this report.")
    # A notices file's paths and addresses open its lines in lower case; they are no sentence's tail.
    assert not starts_inside("src/java.desktop/share/native/libjavajpeg/README Source: https://github.com/openjdk")
    assert starts_inside(", and other long-term debt of $1.2 billion.")
    # A row of words whose label is a package's name in lower case (ScubaGear's dependencies table).
    assert not starts_inside("powershell-yaml — Minimum Version: 0.4.2 · Purpose: YAML file processing.")
