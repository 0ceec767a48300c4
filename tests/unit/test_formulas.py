"""A definition the question writes is read into one shape, a constant times a sum of lines over a
sum of lines (shared/text/formulas.py), or not at all (shared/text/ratios.py reads the words)."""

from __future__ import annotations

from shared.text.definitions import Share, averaged_years, shared_parts
from shared.text.formulas import Formula, Token, described, formula_of
from shared.text.ratios import computation


def line(i: int) -> Token:
    return ("part", i)


def sign(s: str) -> Token:
    return ("operator", s)


def test_a_sum_over_a_line_is_read_with_its_parentheses():
    tokens = [sign("("), line(0), sign("+"), line(1), sign(")"), sign("/"), line(2)]
    assert formula_of(tokens, "percent") == Formula((0, 1), over=(2,))
    # Without the parentheses only the second line is divided: no shape of ours, so nothing.
    assert formula_of([line(0), sign("+"), line(1), sign("/"), line(2)], "percent") is None


def test_a_constant_is_a_factor_and_a_parenthesis_left_open_closes_at_the_end():
    tokens = [("constant", 365.0), sign("*"), sign("("), line(0), sign(")"), sign("/"), sign("("), line(1)]
    assert formula_of(tokens, "days") == Formula((0,), over=(1,), unit="days", factor=365.0)
    assert formula_of([line(0), sign("/"), ("constant", 365.0)], "times") == Formula(
        (0,), unit="amount", factor=1 / 365
    )
    # "× 100" on a percentage is the percentage itself.
    assert formula_of([line(0), sign("/"), line(1), sign("*"), ("constant", 100.0)], "percent") == Formula(
        (0,), over=(1,)
    )


def test_shapes_that_are_not_a_sum_over_a_sum_are_not_read():
    assert formula_of([line(0), sign("*"), line(1)], "times") is None
    assert formula_of([line(0), sign("/"), line(0)], "times") is None
    assert formula_of([line(0), sign("-"), line(0)], "amount") is None
    assert formula_of([sign("("), line(0), sign(")"), sign(")")], "amount") is None
    assert formula_of([("constant", 365.0)], "days") is None


def test_a_formula_reads_as_signs_and_names():
    formula = Formula((0, 1), less=(), over=(2,), unit="percent")
    assert described(formula, ["operating income", "d&a", "revenue"]) == "(operating income + d&a) ÷ revenue"
    assert (
        described(Formula((0,), over=(1,), unit="days", factor=365.0), ["payables", "cogs"]) == "365 × payables ÷ cogs"
    )


def test_definitions_of_several_operators_constants_and_parentheses_are_computations():
    ebitda = computation(
        "Define EBITDA as operating income plus depreciation and amortization (from the cash flow statement). "
        "What was FY2023 EBITDA in USD millions?"
    )
    assert ebitda and ebitda.parts == (("operating income",), ("depreciation and amortization",))
    assert ebitda.formula == Formula((0, 1), unit="amount")
    quick = computation(
        "What was the quick ratio at the end of FY2024, defined as (total current assets - inventories) / "
        "total current liabilities? Round to two decimal places."
    )
    assert quick and quick.formula == Formula((0,), less=(1,), over=(2,), unit="times")
    assert [p[0] for p in quick.parts] == ["total current assets", "inventories", "total current liabilities"]
    dio = computation(
        "Days inventory outstanding (DIO) is defined as: 365 * (average inventories between FY2023 and FY2024 "
        "year-ends) / (FY2024 total cost of sales). What is the FY2024 DIO?"
    )
    assert dio and dio.formula.factor == 365 and dio.formula.unit == "days" and dio.averaged == (0,)
    assert [p[0] for p in dio.parts][:2] == ["inventories", "total cost of sales"]


def test_a_figure_averaged_over_years_is_not_a_line_averaged():
    capex = computation("What is the 3 year average of capex as a % of revenue from FY2022 to FY2024?")
    assert capex and capex.years == 3 and capex.averaged == () and capex.parts[0] == ("capex",)
    margin = computation("What was the two-year average operating margin for FY2023 and FY2024?")
    assert margin and margin.years == 2 and margin.name == "operating margin"
    assert averaged_years("average total assets between FY2023 and FY2024") == 1
    # An average of lines the question does not define is still not computed.
    assert computation("What was the average debt of the company?") is None


def test_a_share_asked_without_an_operator_is_a_part_over_its_whole():
    assert shared_parts("What share of Morgan Stanley's 2024 net revenues came from net interest?") == Share(
        "net interest", "net revenues"
    )
    dividends = "Using the cash flow statement, what share of fiscal 2024 net income did Apple pay out as dividends?"
    assert shared_parts(dividends) == Share("dividends", "net income")
    represent = "What percentage of total net sales did the Services category represent in 2024?"
    assert shared_parts(represent) == Share("services", "total net sales")
    share = computation("What share of total revenues came from the Services segment in Q4 2024?")
    assert share and share.formula.unit == "percent" and share.parts == (("services",), ("total revenues",))
    assert share.name == "Services as a share of total revenues" and share.share
    assert shared_parts("What is the share price of the company?") is None


def test_a_share_of_what_a_part_is_not_is_the_whole_less_the_part_over_the_whole():
    outside = computation("What portion of PepsiCo's FY2024 net revenue was generated outside the United States?")
    assert outside and outside.parts == (("net revenue",), ("united states",))
    assert outside.formula == Formula((0,), less=(1,), over=(0,))
    assert outside.name == "net revenue other than United States, as a share of net revenue"
