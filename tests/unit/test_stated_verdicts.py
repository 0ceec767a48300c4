"""A yes/no question that no row decides is decided by a sentence that says it: an act done or denied in
the period asked, or a share against the question's bar (shared/llm/offline/stated_verdict.py); and
a row is judged only where it is the line asked."""

from __future__ import annotations

from shared.llm.schemas import Passage
from tests.unit.test_verdicts import ask, statement

VERDICT = ("**Yes", "**No")


def prose(*texts: str) -> list[Passage]:
    return [Passage(n=i + 1, document_id="d", document="10-K", page=40 + i, text=t) for i, t in enumerate(texts)]


# Amazon's 2025 10-K: an authorisation (no repurchase) beside the denial.
REPURCHASES = (
    "Stock Repurchase Activity. In March 2022, the Board of Directors authorized a program to repurchase up to "
    "$10.0 billion of our common stock, with no fixed expiration. There were no repurchases of our common stock in "
    "2023, 2024, or 2025. As of December 31, 2025, we had $6.1 billion remaining under the repurchase program."
)
# Apple's Q3 2023 10-Q.
REPURCHASED = (
    "Capital Return Program. The Company repurchased $18.0 billion of its common stock and paid dividends and "
    "dividend equivalents of $3.8 billion during the third quarter of 2023."
)
# PepsiCo's 2024 10-K: one customer's share, and five customers' share of one region.
CUSTOMERS = (
    "Customers. In 2024, sales to Walmart and its affiliates (including Sam's) represented approximately 14% of our "
    "consolidated net revenue, including concentrate sales to our independent bottlers. Our top five retail "
    "customers represented approximately 30% of our 2024 net revenue in North America."
)
CONCENTRATION = "Did any single customer account for 10% or more of consolidated net revenue in {year}?"


def test_a_sentence_that_denies_the_act_in_the_year_asked_is_a_no():
    text = ask("Did Amazon buy back any of its own common stock during 2025?", prose(REPURCHASES))
    assert text.startswith("**No.** The filing says so for 2025 (quoted below)."), text
    assert "There were no repurchases of our common stock in 2023, 2024, or 2025. [1]" in text


def test_a_sentence_that_states_the_act_done_with_its_amount_in_the_quarter_asked_is_a_yes():
    text = ask("Did Apple repurchase its own shares in the third quarter of fiscal 2023?", prose(REPURCHASED))
    assert text.startswith("**Yes.** The filing says so for Q3 2023 (quoted below)."), text
    assert "The Company repurchased $18.0 billion of its common stock" in text


def test_no_verdict_from_another_period_a_plan_or_sentences_that_disagree():
    # The denial is of other years; the quarter asked is not the one stated.
    assert not ask("Did Amazon buy back any of its own common stock during 2022?", prose(REPURCHASES)).startswith(
        VERDICT
    )
    assert not ask("Did Apple repurchase its own shares in the fourth quarter of 2023?", prose(REPURCHASED)).startswith(
        VERDICT
    )
    # What is expected or authorised is not done.
    plan = "In 2025, we expect to repurchase $2.0 billion of our common stock under the program."
    assert not ask("Did the company repurchase common stock in 2025?", prose(plan)).startswith(VERDICT)
    # None in a quarter is not none in the year.
    quarter = "We did not repurchase any of our common stock during the fourth quarter of fiscal 2024."
    assert not ask("Did NVIDIA repurchase common stock in fiscal 2024?", prose(quarter)).startswith(VERDICT)
    both = prose(REPURCHASES, "In 2025, we repurchased $1.2 billion of our common stock.")
    assert not ask("Did Amazon buy back any of its own common stock during 2025?", both).startswith(VERDICT)


def test_a_share_stated_in_prose_is_measured_against_the_questions_bar():
    text = ask(CONCENTRATION.format(year=2024), prose(CUSTOMERS))
    assert text.startswith("**Yes.** The filing puts it at 14%, above 10% for 2024 (quoted below)."), text
    denial = "In 2024, no customer accounted for 10% or more of our consolidated net revenue."
    assert ask(CONCENTRATION.format(year=2024), prose(denial)).startswith(
        "**No.** The filing puts it below 10% for 2024"
    )
    # Five customers' share of one region's revenue is not a single customer's of the company's.
    regional = CUSTOMERS.split(". Our ")[1]
    assert not ask(CONCENTRATION.format(year=2024), prose(f"Our {regional}")).startswith(VERDICT)


def test_a_buyback_is_read_from_the_statements_repurchases_row_and_no_other_line_stands_in_for_a_charge():
    years = ("Years ended September 28, 2024", "Years ended September 30, 2023")
    rows = [
        ("Financing activities", "Repurchases of common stock", ("(94,949)", "(77,550)")),
        (None, "Income before provision for income taxes", ("123,485", "113,736")),
        (None, "Provision for income taxes", ("29,749", "16,741")),
        (None, "Net income", ("93,736", "96,995")),
    ]
    passages = [Passage(n=1, document_id="d", document="10-K", page=36, text=statement(rows, years))]
    # "Buy back" is what the statement prints as "Repurchases", paid out and shown as the amount paid.
    bought = ask("Did Apple buy back any of its own common stock in fiscal 2024?", passages)
    assert bought.startswith("**Yes.** Repurchases of common stock: 94,949 million (Years ended September 28, 2024)")
    # The provision is a charge, with no sign to judge; neither income before it nor net income is it.
    taxes = ask("Was Apple's provision for income taxes an expense (a positive charge) in fiscal 2024?", passages)
    assert not taxes.startswith(VERDICT), taxes


def test_a_segments_profit_is_judged_on_its_own_row_never_the_companys():
    quarters = ("Three Months Ended September 30, 2023", "Three Months Ended September 30, 2024")
    company = [(None, "Operating income (loss)", ("11,188", "17,411"))]
    segment = [("International", "Operating income (loss)", ("(95)", "1,301"))]
    question = "Did Amazon's International segment have positive operating income in the third quarter of 2023?"
    alone = [Passage(n=1, document_id="d", document="8-K", page=7, text=statement(company, quarters))]
    assert not ask(question, alone).startswith(VERDICT)
    both = [*alone, Passage(n=2, document_id="d", document="8-K", page=10, text=statement(segment, quarters))]
    text = ask(question, both)
    assert text.startswith("**No.** Operating income (loss) was (95) million (Three Months Ended September 30, 2023)")
    assert "International: Operating income (loss) — " in text, text


def test_an_event_of_a_period_is_judged_under_a_bare_years_column_and_a_balance_is_not():
    years = ("2024", "2023", "2022")
    note = [("Impairment of assets", "Impairment of goodwill", ("—", "—", "362,492"))]
    balance = [(None, "Total term debt", ("96,662", "105,103", "111,804"))]
    passages = [
        Passage(n=1, document_id="d", document="10-K", page=84, text=statement(note, years)),
        Passage(n=2, document_id="d", document="10-K", page=46, text=statement(balance, years)),
    ]
    text = ask("Did lululemon record a goodwill impairment in fiscal 2024?", passages)
    assert text.startswith("**No.** Impairment of goodwill: — (2024), nil in that period."), text
    # What is owed at a year's end says nothing of debt raised in it.
    assert not ask("Did Apple raise any new term debt during 2024?", passages).startswith(VERDICT)
