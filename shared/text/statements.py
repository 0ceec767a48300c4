"""The three financial statements: how people name them, how filings title them.

"Relying on the cash flow statement" asks about the page a filing titles "Condensed Consolidated
Statements of Cash Flows"; "the P&L" is its "Statements of Operations" (or "of Income"). The search
looks for the title's words (shared/text/search_query.py), and among the rows an answer can quote,
one printed on the named statement's page is the one asked (shared/llm/offline/rows.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# How cash flow statements label capital expenditures: "Purchases of property and equipment",
# "Payments for acquisition of property, plant and equipment", "Additions to property and equipment".
CAPEX = "purchases of property, plant and equipment payments for acquisition additions"
TITLE_WORDS = 12
# What may follow a statement's title on its line: a parenthesis ("(in millions)", "(Unaudited)"),
# a dash, "continued", or the period ("for the years ended…"). A word that goes on naming something
# else makes it another table's caption ("Consolidated Statements of Cash Flows Reconciliation").
TITLE_END = r"(?=\s*(?:$|[(\-—–,:]|for\b|years?\b|continued\b|\d))"
# Before the title only the company's name may stand ("PepsiCo, Inc. and Subsidiaries"); a word in
# lower case makes the line a phrase about the statement.
PHRASE_BEFORE = re.compile(r"\b(?!(?:and|of|the)\b)[a-z]")
# A company that writes its name in lower case ("lululemon athletica inc. CONSOLIDATED BALANCE
# SHEETS"): the name ends in its corporate form.
COMPANY_BEFORE = re.compile(
    r"\b(?:inc|corp|co|ltd|llc|plc|n\.v|s\.a|ag|se)\.?,?\s+"
    r"(?:(?:and\s+subsidiaries\s+)?(?:condensed\s+)?(?:consolidated\s+)?)$",
    re.I,
)


@dataclass(frozen=True)
class Statement:
    asked: str
    """How questions name the statement (a regular expression)."""
    title: str
    """How filings title it (a regular expression)."""
    words: str
    """The title's words, for a search."""

    def named_in(self, text: str) -> bool:
        return re.search(rf"\b(?:{self.asked})\b", text, re.I) is not None

    def titles(self, text: str) -> bool:
        """The text has the statement's title as a line of its own ("AMAZON.COM, INC. CONSOLIDATED
        BALANCE SHEETS"), not a mention in a sentence ("recorded on our consolidated balance sheets.",
        "Amounts recognized in the balance sheet"), a row ("balance sheet 648") nor another table's
        caption that starts with it."""
        for line in text.splitlines():
            line = line.strip()
            if len(line.split()) > TITLE_WORDS or line.endswith("."):
                continue
            title = re.search(rf"\b(?:{self.title})\b{TITLE_END}", line, re.I)
            if not title or not title.group(0)[0].isupper():
                continue
            before = line[: title.start()]
            if not PHRASE_BEFORE.search(before) or COMPANY_BEFORE.search(before):
                return True
        return False


# Banks title them the other way round ("Consolidated Income Statement", "Consolidated Cash Flow
# Statement"); a comprehensive income statement is another statement.
CASH_FLOWS = r"statements?\s+of\s+cash\s+flows?|cash\s+flows?\s+statements?"
# One statement may carry both: "Consolidated Statements of Operations and Comprehensive Income".
INCOME = (
    r"statements?\s+of\s+(?:consolidated\s+)?(?:operations|income|earnings)"
    r"(?:\s+and\s+comprehensive\s+(?:income|loss|income\s*\(loss\)|\(loss\)\s*income))?"
    r"|(?<!comprehensive\s)income\s+statements?"
)
BALANCE = r"(?<!off[\s-])balance\s+sheets?|statements?\s+of\s+financial\s+position"
CASH_FLOW_STATEMENT = Statement(CASH_FLOWS, CASH_FLOWS, "consolidated statements of cash flows")
INCOME_STATEMENT = Statement(
    rf"income\s+statements?|p\s?&\s?l(?:\s+statements?)?|profit\s+and\s+loss(?:\s+statements?)?|{INCOME}",
    INCOME,
    "consolidated statements of operations income",
)
BALANCE_SHEET = Statement(BALANCE, BALANCE, "consolidated balance sheets")
STATEMENTS = (CASH_FLOW_STATEMENT, INCOME_STATEMENT, BALANCE_SHEET)
# A statement named as where to look ("use the income statement", "per its condensed consolidated
# balance sheet"): its words say nothing about which line is asked.
MENTION = re.compile(
    r"\b(?:the\s+|its\s+)?(?:condensed\s+)?(?:consolidated\s+)?(?:" + "|".join(s.asked for s in STATEMENTS) + r")\b",
    re.I,
)


def named_statements(question: str) -> list[Statement]:
    """The statements a question names."""
    return [s for s in STATEMENTS if s.named_in(question)]


def statement_titled(page_text: str) -> Statement | None:
    """The one statement a page's text titles; None when it titles none, or several (a table of
    contents or an index to the financial statements lists them all, and is none of them)."""
    titled = [s for s in STATEMENTS if s.titles(page_text)]
    return titled[0] if len(titled) == 1 else None
