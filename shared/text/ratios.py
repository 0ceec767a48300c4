"""Computed figures: the ratios people ask for by name, and the ones a question defines itself.

A filing rarely prints "operating margin" or "days payable outstanding"; it prints the lines they are
computed from. So a question that names a ratio is searched for, and answered with, those lines
(shared/text/search_query.py, shared/llm/offline/rows.py), and the evidence counts as found when
each of them is there (services/actions/evidence.py). A part is a line item as statements label it,
with the other labels of the same line as alternatives ("net sales" or "revenues"). A question
may also define what it asks: "PP&E purchases as a percentage of total net sales", "computed as
provision for income taxes divided by income before income taxes", "365 * (average accounts payable)
/ (COGS + change in inventory)"; the phrases around the operators are then its parts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from shared.text.statements import BALANCE_SHEET, CAPEX, CASH_FLOW_STATEMENT, INCOME_STATEMENT, Statement

Part = tuple[str, ...]
"""One line a ratio is computed from, as statements may label it (alternatives)."""
# "Total" names no line: "Total net sales" is the "net sales" a ratio's part or a question names.
UNNAMING = frozenset({"total"})


@dataclass(frozen=True)
class Ratio:
    """A ratio as filings print it: the lines it is computed from, and the statements they are lines of."""

    parts: tuple[Part, ...]
    statements: tuple[Statement, ...]


INCOME, BALANCE, CASH = (INCOME_STATEMENT,), (BALANCE_SHEET,), (CASH_FLOW_STATEMENT,)
SALES: Part = ("net sales", "revenues")
COST_OF_SALES: Part = ("cost of sales", "cost of revenues", "cost of goods sold")
OPERATING_INCOME: Part = ("operating income", "income from operations")
NET_INCOME: Part = ("net income",)
EQUITY: Part = ("total stockholders equity", "total shareholders equity")
PAYABLES: Part = ("accounts payable",)
RECEIVABLES: Part = ("accounts receivable",)
INVENTORIES: Part = ("inventories",)
# A ratio is asked by its name and printed as its parts: the search and the answer look for the parts,
# and the search looks on the statements that print them ("What was Amazon's gross margin?" is
# answered by the income statement's net sales and cost of sales; Amazon prints no gross margin).
RATIOS: dict[str, Ratio] = {
    r"current\s+ratio|working\s+capital": Ratio((("total current assets",), ("total current liabilities",)), BALANCE),
    r"quick\s+ratio": Ratio(
        (("cash and cash equivalents",), ("marketable securities",), RECEIVABLES, ("total current liabilities",)),
        BALANCE,
    ),
    r"gross\s+(?:profit\s+)?margin": Ratio((SALES, COST_OF_SALES), INCOME),
    r"operating\s+margin": Ratio((OPERATING_INCOME, SALES), INCOME),
    r"net\s+(?:profit\s+)?margin": Ratio((NET_INCOME, SALES), INCOME),
    r"ebitda(?:\s+%)?\s+margin": Ratio((OPERATING_INCOME, ("depreciation and amortization",), SALES), INCOME + CASH),
    r"debt[-\s]to[-\s]equity|leverage\s+ratio": Ratio((("long-term debt", "term debt"), EQUITY), BALANCE),
    r"(?:fixed\s+)?asset\s+turnover": Ratio(
        (SALES, ("total assets", "property, plant and equipment")), INCOME + BALANCE
    ),
    r"inventory\s+turnover": Ratio((COST_OF_SALES, INVENTORIES), INCOME + BALANCE),
    r"return\s+on\s+(?:assets|equity)|\bro[ae]\b": Ratio((NET_INCOME, ("total assets", *EQUITY)), INCOME + BALANCE),
    r"free\s+cash\s+flows?": Ratio((("net cash provided by operating activities",), (CAPEX,)), CASH),
    r"dividend\s+payout": Ratio((("dividends",), NET_INCOME), CASH + INCOME),
    # DPO is also a data protection officer: only the spelled-out form names the ratio.
    r"days\s+(?:of\s+)?payables?(?:\s+outstanding)?": Ratio((PAYABLES, COST_OF_SALES), INCOME + BALANCE),
    r"days\s+(?:of\s+)?sales\s+outstanding|\bDSO\b": Ratio((RECEIVABLES, SALES), INCOME + BALANCE),
    r"days\s+(?:of\s+)?inventory(?:\s+outstanding)?|\bDIO\b": Ratio((INVENTORIES, COST_OF_SALES), INCOME + BALANCE),
    r"cash\s+conversion\s+cycle": Ratio((RECEIVABLES, INVENTORIES, PAYABLES, SALES, COST_OF_SALES), INCOME + BALANCE),
    r"effective\s+(?:income\s+)?tax\s+rate": Ratio(
        (("provision for income taxes", "income tax expense"), ("income before income taxes",)), INCOME
    ),
    r"interest\s+coverage|times\s+interest\s+earned": Ratio((OPERATING_INCOME, ("interest expense",)), INCOME),
}
_RATIO = [(re.compile(rf"\b(?:{p})\b", re.I), ratio) for p, ratio in RATIOS.items()]

# The operators of a definition: "A as a percentage of B", "A divided by B", "(A) / (B)", "A + B",
# "A minus B". Not "over" or "less" ("over the year", "less than"), "to" ("from 2023 to 2024") nor a
# dash ("FY2017 - FY2019"); "/" and "+" only between spaces ("Y/Y", "provided by/(used in)").
_OPERATOR = re.compile(
    r"\s+as\s+an?\s+(?:percentage|percent|%|share|proportion|fraction)\s+of\s+|\s+divided\s+by\s+|"
    r"\s+(?:minus|plus)\s+|\s+[/+*×]\s+",
    re.I,
)
# Where the first operand begins: after what introduces the definition ("i.e.", "computed as", "defined
# as:", "using"), a verb of the question ("what was"), a possessive ("Krispy Kreme's SG&A expense") or
# an opening parenthesis. Not a comma: "property, plant and equipment" is one line.
_PART_START = re.compile(
    r".*(?:\bi\.?e\.?,?|\be\.?g\.?,?|\b(?:computed|calculated|defined|measured|expressed|estimated)\s+(?:as|by|using)\b:?"
    r"|\b(?:using|compute|calculate|where|is|was|were|are)\b|'s\b|’s\b|[(:;])",
    re.I | re.S,
)
# Where an operand ends: a period or place ("for FY2024", "in Q2 2026", "between FY2016 and
# FY2017", "at year end"), a closing parenthesis or a stop. "Provision for income taxes" and "change in
# inventory" go on.
_PERIOD = (
    r"(?:the\s+)?(?:fy|fiscal|q[1-4]|\d|first|second|third|fourth|full|latest|most|last|year|quarter|three|six"
    r"|nine|twelve|period|end)"
)
_PART_END = re.compile(
    rf"\s*(?:[).;:?!]|,\s(?!\w+\s+and\s)|\b(?:for|in|during|at|as\s+of|over|from)\s+{_PERIOD}"
    r"|\b(?:between|based\s+on|using|round|was|is|were|are|did|does|has|had)\b).*",
    re.I | re.S,
)
# Words that say how much of a line or when, not which line: "average accounts payable", "the FY2017
# COGS"; and a phrase that opens the sentence ("In Q2 2026, SG&A").
_QUALIFIER = re.compile(r"\b(?:the|its|their|average|avg|annual|fy\s?\d{2,4}|q[1-4]|\d{4}|\d+)\b\s*", re.I)
_LEADING = re.compile(r"^(?:(?:in|for|during|at|as\s+of)\b[^,]{0,40},)?[\s,]*", re.I)
PART_WORDS = 8
QUESTION_WORDS = frozenset({"what", "which", "how", "much", "many", "who", "whom"})


def named_ratios(text: str) -> list[Ratio]:
    """The ratios the text names, in RATIOS' order."""
    return [ratio for pattern, ratio in _RATIO if pattern.search(text)]


def _part(operand: str, *, first: bool) -> str | None:
    """The line item an operand names, to where it ends, without qualifiers; the first operand from
    where it starts (the others start at their operator)."""
    phrase = _PART_END.sub("", _LEADING.sub("", _PART_START.sub("", operand)) if first else operand)
    phrase = " ".join(_QUALIFIER.sub(" ", phrase).split()).strip(" ()[],").lower()
    words = phrase.split()
    named = [w for w in words if w not in QUESTION_WORDS]
    return phrase if named and len(words) <= PART_WORDS and len(re.findall(r"[a-z]", phrase)) >= 2 else None


def defined_parts(text: str) -> list[Part]:
    """The operands of the definitions the text gives, each sentence on its own ("net interest as a
    percentage of net revenues" is `[("net interest",), ("net revenues",)]`)."""
    found: list[Part] = []
    for sentence in re.split(r"(?<=[.?!])\s+", text):
        operands = _OPERATOR.split(sentence)
        if len(operands) < 2:
            continue
        for i, operand in enumerate(operands):
            part = _part(operand, first=i == 0)
            if part and (part,) not in found:
                found.append((part,))
    return found


def named_parts(text: str) -> list[Part]:
    """The lines of the ratios the text names, once each."""
    return list(dict.fromkeys(part for ratio in named_ratios(text) for part in ratio.parts))


def computed_parts(text: str) -> list[Part]:
    """The lines of the ratios the text names and of the definitions it gives, once each."""
    return list(dict.fromkeys([*named_parts(text), *defined_parts(text)]))


def ratio_parts(text: str) -> list[str]:
    """The line items of the ratios the text names, every label of each, for a search."""
    return list(dict.fromkeys(label for part in named_parts(text) for label in part))


def ratio_statements(text: str) -> list[Statement]:
    """The statements whose lines the ratios the text names are computed from."""
    return list(dict.fromkeys(s for ratio in named_ratios(text) for s in ratio.statements))
