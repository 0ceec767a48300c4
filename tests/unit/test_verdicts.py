"""A yes/no question about a figure opens its answer with the verdict the figures decide, and the
figures and working behind it (shared/text/verdicts.py, shared/llm/offline/verdict.py)."""

from __future__ import annotations

import asyncio

from shared.llm.offline.answers import inquire
from shared.llm.schemas import AnswerInputs, Passage
from shared.text.tables import render_row
from shared.text.verdicts import asked_judgement

BALANCE_DATES = ("September 28, 2024", "September 30, 2023")
INCOME_YEARS = ("Years ended September 28, 2024", "Years ended September 30, 2023")
# Apple's FY2024 balance sheet and income statement lines, as ingest stores a statement's rows.
BALANCE = [
    ("Current assets", "Cash and cash equivalents", ("29,943", "29,965")),
    ("Current assets", "Marketable securities", ("35,228", "31,590")),
    ("Current assets", "Accounts receivable, net", ("33,410", "29,508")),
    ("Current assets", "Total current assets", ("152,987", "143,566")),
    ("Current liabilities", "Total current liabilities", ("176,392", "145,308")),
]
INCOME = [
    ("Net sales", "Total net sales", ("391,035", "383,285")),
    (None, "Operating income", ("123,216", "114,301")),
    (None, "Net income", ("93,736", "96,995")),
]


def statement(rows: list[tuple[str | None, str, tuple[str, ...]]], headers: tuple[str, ...]) -> str:
    return "\n\n".join(
        render_row(group, label, list(zip(headers, values, strict=True)), "millions") for group, label, values in rows
    )


def ask(question: str, passages: list[Passage]) -> str:
    return asyncio.run(inquire(AnswerInputs(query=question, passages=passages, sentences=3)))


def answer(question: str) -> str:
    texts = [statement(BALANCE, BALANCE_DATES), statement(INCOME, INCOME_YEARS)]
    passages = [Passage(n=i + 1, document_id="d", document="10-K", page=30 + i, text=t) for i, t in enumerate(texts)]
    return ask(question, passages)


def test_what_a_yes_no_question_asks_of_its_figure_is_read():
    sign = asked_judgement("Does Apple have positive working capital based on FY2024 data?")
    assert sign is not None and sign.kind == "sign" and sign.up
    loss = asked_judgement("Did Amazon report a net loss in 2022?")
    assert loss is not None and loss.kind == "sign" and not loss.up
    bar = asked_judgement("Is the effective tax rate for fiscal 2024 below the 21% statutory rate?")
    assert bar is not None and bar.kind == "bar" and not bar.up and bar.bar == 21 and bar.percent
    healthy = asked_judgement("Does Apple have a reasonably healthy liquidity profile based on its quick ratio?")
    assert healthy is not None and healthy.kind == "bar" and healthy.up and healthy.bar == 1 and healthy.convention
    trend = asked_judgement("Did operating margin contract from fiscal 2023 to fiscal 2024?")
    assert trend is not None and trend.kind == "trend" and not trend.up
    # Two years compared are a trend, not a bar of 2023; less is better of an expense that "improved".
    higher = asked_judgement("Was operating margin higher in 2024 than in 2023?")
    assert higher is not None and higher.kind == "trend" and higher.up
    costs = asked_judgement("Did days sales outstanding improve in fiscal 2024?")
    assert costs is not None and costs.kind == "trend" and not costs.up
    occurred = asked_judgement("Did lululemon record a goodwill impairment in fiscal 2024?")
    assert occurred is not None and occurred.kind == "occurred"
    # Not yes/no questions about a figure.
    assert asked_judgement("What was Apple's working capital in fiscal 2024?") is None
    assert asked_judgement("By how much, in percent, did Apple's net sales grow from FY2023 to FY2024?") is None
    assert asked_judgement("Has Apple reported customer concentration in fiscal 2024?") is None


def test_a_computed_figures_sign_is_the_verdict():
    text = answer("Does Apple have positive working capital based on FY2024 data?")
    assert text.startswith("**No.** Working capital was -23,405 million (September 28, 2024), below zero.")
    assert "Total current assets 152,987 − Total current liabilities 176,392" in text


def test_a_ratio_against_its_rule_of_thumb_is_judged_and_the_rule_said():
    text = answer("Does Apple have a reasonably healthy liquidity profile based on its quick ratio for FY2024?")
    assert text.startswith("**No.** Quick ratio was 0.56x (September 28, 2024), below 1.0x, the usual rule of thumb.")
    above = answer("Was Apple's operating margin above 30% in fiscal 2024?")
    assert above.startswith("**Yes.** Operating margin was 31.5% (Years ended September 28, 2024), above 30%.")


def test_a_trend_is_judged_on_both_periods_each_with_its_working():
    text = answer("Did Apple's operating margin improve in fiscal 2024 compared with fiscal 2023?")
    assert text.startswith(
        "**Yes.** Operating margin rose from 29.8% (Years ended September 30, 2023) to 31.5% (Years ended"
        " September 28, 2024)."
    )
    assert "Operating income 114,301 ÷ Total net sales 383,285" in text
    fell = answer("Did Apple's net income decline in fiscal 2024?")
    assert fell.startswith("**Yes.** Net income fell from 96,995 million")


def test_no_verdict_without_the_figure_of_each_period():
    # The balance sheet prints no column of fiscal 2022: nothing to compare the working capital with.
    text = answer("Did Apple's working capital improve in fiscal 2023 compared with fiscal 2022?")
    assert not text.startswith(("**Yes", "**No"))


def test_whether_a_line_has_a_figure_in_the_period_or_a_dash_is_the_verdict():
    years = tuple(
        f"Fiscal Year Ended {day} (fiscal {year})"
        for day, year in (("February 2, 2025", 2024), ("January 28, 2024", 2023), ("January 29, 2023", 2022))
    )
    rows = [
        ("Impairment of assets", "Impairment of goodwill", ("—", "—", "362,492")),
        ("Common stock and additional paid-in capital", "Common stock issued", ("—", "—", "690")),
    ]
    # A balance is no flow of a period: "raise new term debt" is not read off the debt outstanding.
    debt = [("Term debt", "Total term debt", ("96,662", "105,103"))]
    texts = [statement(rows, years), statement(debt, BALANCE_DATES)]
    passages = [Passage(n=i + 1, document_id="d", document="10-K", page=68 + i, text=t) for i, t in enumerate(texts)]

    def asked(question: str) -> str:
        return ask(question, passages)

    assert asked("Did lululemon record a goodwill impairment in fiscal 2024?").startswith(
        "**No.** Impairment of goodwill: — (Fiscal Year Ended February 2, 2025 (fiscal 2024)), nil in that period."
    )
    assert asked("Did lululemon record a goodwill impairment in fiscal 2022?").startswith(
        "**Yes.** Impairment of goodwill: 362,492 million (Fiscal Year Ended January 29, 2023 (fiscal 2022))."
    )
    assert not asked("Did Apple raise any new term debt during fiscal 2024?").startswith(("**Yes", "**No"))
    # The line done is the one the question names in its own words, not stock issued for a repurchase.
    assert not asked("Did lululemon repurchase any common stock in fiscal 2024?").startswith(("**Yes", "**No"))


def test_a_segment_named_as_the_owner_is_never_judged_on_the_companys_totals():
    quarters = ("Three Months Ended March 31, 2022", "Three Months Ended March 31, 2023")
    rows = [
        (None, "Total net sales", ("116,444", "127,358")),
        (None, "Operating income", ("3,669", "4,774")),
        ("Net sales", "AWS", ("18,441", "21,354")),
        ("Operating income", "AWS", ("6,518", "5,123")),
    ]
    passages = [Passage(n=1, document_id="d", document="10-Q", page=20, text=statement(rows, quarters))]
    question = "Did AWS's operating margin contract in Q1 2023 versus Q1 2022?"
    text = ask(question, passages)
    # Amazon's margin rose while AWS's fell: the company's totals decide nothing of the segment's.
    assert not text.startswith(("**Yes", "**No")), text
    assert "Operating income: AWS" in text


def test_a_difference_the_filing_states_only_in_prose_is_judged_as_computed_from_its_lines():
    years = ("Years ended September 28, 2024", "Years ended September 30, 2023")
    rows = [
        (None, "Cash generated by operating activities", ("118,254", "110,543")),
        ("Investing activities", "Payments for acquisition of property, plant and equipment", ("(9,447)", "(10,959)")),
    ]
    prose = "Free cash flow was $108.8 billion in 2024, up from $99.6 billion in 2023."
    texts = [statement(rows, years), prose]
    passages = [Passage(n=i + 1, document_id="d", document="10-K", page=36 + i, text=t) for i, t in enumerate(texts)]
    question = "Did Apple generate positive free cash flow in fiscal 2024?"
    text = ask(question, passages)
    opening = "**Yes.** Free cash flow was 108,807 million (Years ended September 28, 2024), above zero."
    assert text.startswith(opening), text


def test_a_line_paid_out_is_judged_on_the_amount_paid_and_never_by_the_sign_it_is_printed_with():
    quarters = ("Three Months Ended March 31, 2022", "Three Months Ended March 31, 2023")
    rows = [
        ("Investing activities", "Purchases of property and equipment", ("(14,951)", "(14,207)")),
        (None, "Provision for (benefit from) income taxes", ("(444)", "(2,306)")),
    ]
    passages = [Passage(n=1, document_id="d", document="10-Q", page=7, text=statement(rows, quarters))]

    def asked(question: str) -> str:
        return ask(question, passages)

    spent = asked("Did Amazon's purchases of property and equipment decline in Q1 2023 versus Q1 2022?")
    assert spent.startswith("**Yes.** Purchases of property and equipment fell from 14,951 million"), spent
    # "(2,306)" is a charge in Amazon's statements and a benefit in others': no sign to judge.
    taxes = asked("Was the provision for income taxes positive in Q1 2023?")
    assert not taxes.startswith(("**Yes", "**No")), taxes


def test_a_result_before_a_charge_keeps_its_sign():
    quarters = ("Three Months Ended March 31, 2022", "Three Months Ended March 31, 2023")
    rows = [(None, "Income (loss) before provision for income taxes", ("(3,266)", "3,622"))]
    passages = [Passage(n=1, document_id="d", document="10-Q", page=5, text=statement(rows, quarters))]
    question = "Was Amazon's income before provision for income taxes positive in Q1 2022?"
    text = ask(question, passages)
    assert text.startswith("**No.** Income (loss) before provision for income taxes was (3,266) million"), text
