"""The words a search should look for, from a question as people ask it of a document.

Questions about a filing or a policy carry words that every passage shares or none does: where the
answer is ("in Apple's Q3 2023 10-Q", "from the latest report"), what to do with it ("analyze how",
"give a response by relying on…"), and abbreviations the document spells out ("R&D", "SG&A",
"COGS"). Over a tagged document the first kind only dilutes full-text and vector matching, the
second is not about the document at all, and the third misses the document's own words. So the
search query drops the first two and adds the spelled-out form of the third (the abbreviation
stays: some documents use it). Measured on the dev split of evals/real/sec-10q
(docs/answers-on-real-documents.md); the answer itself is still composed for the question as asked.
"""

from __future__ import annotations

import re

from shared.text.ratios import ratio_parts, ratio_statements
from shared.text.statements import CAPEX, MENTION, named_statements

# Abbreviations of financial statements and compliance texts, and how documents write them out.
EXPANSIONS: dict[str, str] = {
    "r&d": "research and development",
    "sg&a": "selling, general and administrative",
    "cogs": "cost of sales cost of goods sold",
    "ebitda": "earnings before interest, taxes, depreciation and amortization",
    "ebit": "earnings before interest and taxes operating income",
    "eps": "earnings per share",
    "pp&e": "property, plant and equipment",
    "capex": f"capital expenditures {CAPEX}",
    "d&a": "depreciation and amortization",
    # Finance and data protection both use DPO; the document's own words decide which matches.
    "dpo": "days payable outstanding data protection officer",
    "dso": "days sales outstanding accounts receivable",
    "fcf": "free cash flow",
    "yoy": "year over year compared with the prior year",
    "ytd": "year to date",
    "m&a": "acquisitions and divestitures",
    "ciso": "chief information security officer",
    "pii": "personal data personal information",
    "kyc": "know your customer customer due diligence",
    "aml": "anti-money laundering",
    "cet1": "common equity tier 1",
    "ppne": "property, plant and equipment",
    "ppe": "property, plant and equipment",
    "ar": "accounts receivable trade receivables",
    "ap": "accounts payable",
}
# Line items people name otherwise than statements print them: "revenue" is a filing's "net sales",
# "capex" its "purchases of property and equipment". Added in the statements' words, so that a
# search and an answer's row match find the line the question means (shared/llm/offline/rows.py).
LINE_ITEMS: dict[str, str] = {
    r"revenues?": "net sales",
    r"net\s+sales": "revenues",
    r"dividends?": "dividends paid",
    r"capital\s+expenditures?": CAPEX,
    r"operating\s+cash\s+flows?|cash\s+flows?\s+(?:from|provided\s+by)\s+operat\w*": (
        "net cash provided by operating activities"
    ),
    r"(?:stock|share)\s+buy-?backs?|buy(?:s|ing)?[-\s]?backs?|bought\s+back|share\s+repurchases?": (
        "repurchases of common stock"
    ),
    r"gross\s+profit": "gross margin",
    r"(?:net|operating)\s+profit": "income",
    r"cost\s+of\s+goods\s+sold": "cost of sales",
    r"inventory\s+levels?": "inventories",
    r"headcount|workforce": "employees",
}


_LINE_ITEM = [(re.compile(rf"\b(?:{p})\b", re.I), words) for p, words in LINE_ITEMS.items()]
QUARTERS = {"1": "first quarter", "2": "second quarter", "3": "third quarter", "4": "fourth quarter"}
_QUARTER = re.compile(r"\bQ([1-4])\b", re.I)
_FY = re.compile(r"\bFY\s?'?(\d{2,4})?\b", re.I)

# "In Amazon's Q2 2023 10-Q," · "from the most recent 10-Q" · "as reported in the latest quarterly filing"
# · "as described in Item 1 of the 10-K"
_SOURCE = re.compile(
    r"\b(?:as\s+(?:reported|disclosed|mentioned|stated)\s+)?(?:in|from|for|within|of|according\s+to)\s+"
    r"(?:the\s+|its\s+|their\s+|[A-Z][\w.&-]*(?:'s|’s)\s+)?"
    r"(?:(?:latest|most\s+recent|recent|current|last|quarterly|annual|Q[1-4]|FY|\d{4}|fiscal)\s+)*"
    r"(?:10-?Q|10-?K|8-?K|report|filing|document)s?(?:\s+(?:report|filing)s?)?\b,?",
    re.I,
)
# Request framing that is not about the document: "analyze how", "give a response by relying on …".
_INSTRUCTION = re.compile(
    # A persona or a way of answering ("Assume that you are a public equities analyst.", "Answer the
    # following question by primarily using the balance sheet:"): how to answer, not what about. The
    # statement it names is still searched (shared/text/statements.py reads the whole question).
    r"\b(?:assume|imagine|suppose)\s+(?:that\s+)?you\s+are\b[^.?!:]*[.?!:]|"
    r"\b(?:answer|address|respond\s+to)\s+the\s+(?:following\s+)?question\b[^.?!:]*[.?!:]|"
    r"\b(?:please\s+)?(?:analy[sz]e|examine|assess|evaluate|describe|explain|discuss|combine|align|"
    r"summari[sz]e|elaborate\s+on|tell\s+me)\s+(?=how|what|whether|why|the|data|details|\w+ing\b)|"
    r"\b(?:give|provide|write)\s+(?:a|an|the)?\s*(?:response|answer|reply)\b[^.?!]*?(?:by\s+relying\s+on|based\s+on|"
    r"using)\s+",
    re.I,
)

# How to state the answer, not what it is about: "(in USD millions)", "in millions of dollars",
# "Round to two decimals.", "Express it as a percentage rounded to one decimal place." Its words
# ("dollar", "round", "percentage") are rare in a filing, so a full-text search ranks by them.
_ANSWER_FORMAT = re.compile(
    r"\(\s*(?:in\s+)?(?:USD|US\s?\$|\$)?\s*(?:millions?|billions?|thousands?)(?:\s+of\s+(?:US\s+)?dollars)?\s*\)|"
    r"\b(?:answer\s+)?in\s+(?:USD\s+|US\s?\$\s?|\$\s?)?(?:millions?|billions?|thousands?)(?:\s+of\s+(?:US\s+)?dollars)?\b|"
    r"\b(?:please\s+)?(?:round(?:ed)?|express(?:ed)?\s+(?:it|this|the\s+(?:answer|result)|your\s+answer)\s+as)\b[^.?!]*[.?!]?",
    re.I,
)

# Words that say nothing about what a question is about (question words, auxiliaries, fillers).
_FILLER_WORDS = frozenset(
    re.findall(
        r"\w+",
        """
    about also and any are been being but can could did does doing for from had has have how into its may
    might must not our should such than that the their them then there these they this those under was
    were what when where which while who whom whose why will with would you your please tell give does
    document documents policy says said shall
    """,
    )
)
TERM_CHARS = 6
# "Why did iPhone sales fall?", "What did it attribute the margin's expansion to?" name a line item or
# a ratio but ask for a reason, which the narrative gives, not the rows; so do questions about what
# something did to it ("How did foreign exchange rates affect Apple's results?", "the impact of
# currency fluctuations on", "the chief factor affecting operating income"), whose answer is the
# narrative's "had an unfavorable impact on net sales", not the row of foreign exchange contracts.
_REASON = re.compile(
    r"^\W*why\b|\bwhat (?:caused|drove)\b|\b(?:reasons?|drivers?|driven|attribute)\b"
    r"|\bhow\s+(?:did|do|does|has|have|had|might|may|could|would|will|can)\b[^?]{0,80}?\b"
    r"(?:affect|impact|influence)(?:ed|s)?\b"
    r"|\b(?:impacts?|effects?|influences?)\s+of\b[^?]{1,80}?\bon\b|\binfluences?\s+on\b"
    r"|\b(?:impacts?|effects?|influences?)\s+(?:did|does|do|will|would|could|might|may)\b"
    r"|\b(?:factors?|elements?)\b[^?]{0,30}?\b(?:affect|impact|influenc)(?:ed|ing|es|e|s)?\b",
    re.I,
)


def content_terms(text: str) -> set[str]:
    """The text's content words, crudely stemmed by their first letters ("approves" ~ "approval")."""
    words = re.findall(r"[a-z0-9]+(?:[-'][a-z0-9]+)*", text.lower())
    return {w[:TERM_CHARS] for w in words if w not in _FILLER_WORDS and (len(w) > 3 or w.isdigit())}


def asks_reason(question: str) -> bool:
    """The question asks why something happened or what it did to something, not how much of it there was."""
    return _REASON.search(question) is not None


def full_year(year: str) -> str:
    """A two-digit year as a filing prints it ("22" is 2022); a four-digit year or none unchanged."""
    return f"20{year}" if len(year) == 2 else year


def expand(text: str, *, parts: bool = True) -> list[str]:
    """Spelled-out forms of the abbreviations in the text, in order, once each (`parts`: with the
    line items a ratio it names is computed from)."""
    found: list[str] = []
    for word in re.findall(r"[A-Za-z][A-Za-z0-9&']*", text):
        expansion = EXPANSIONS.get(word.lower())
        if expansion:
            found.append(expansion)
    found += [words for pattern, words in _LINE_ITEM if pattern.search(text)]
    labels = ratio_parts(text) if parts else []
    found += [" ".join(labels)] if labels else []
    found += [QUARTERS[m.group(1)] for m in _QUARTER.finditer(text)]
    found += [f"fiscal year {full_year(m.group(1) or '')}".strip() for m in _FY.finditer(text)]
    return list(dict.fromkeys(found))


def retrieval_query(question: str, *, statements: bool = True, parts: bool = True) -> str:
    """The question without source references, instructions and answer formats, with abbreviations,
    line items and ratios in the statements' words, and the title of a statement it names or that
    prints a ratio's parts (the search then also ranks that statement's pages, services/retrieval).

    `statements` False: without the statement either, for matching line items by their words
    ("income" in "use the income statement" names no line item; shared/llm/offline/rows.py).
    `parts` False: without the line items of a ratio it names (the ratio's own row, where a filing
    prints one, is what it asks); a question that asks for a reason never has them."""
    core = _ANSWER_FORMAT.sub(" ", _INSTRUCTION.sub(" ", _SOURCE.sub(" ", question)))
    if not statements:
        core = MENTION.sub(" ", core)
    core = re.sub(r",(?=[.?!])", "", re.sub(r"\s+([,.?!])", r"\1", " ".join(core.split()))).strip(" ,")
    core = core[:1].upper() + core[1:] if core else question.strip()
    named = named_statements(question) if statements else []
    # A reason is looked for in the narrative: no ratio's lines or statements.
    parts = parts and not asks_reason(question)
    if statements and parts:
        named += ratio_statements(core)
    words = expand(core, parts=parts) + [s.words for s in named]
    extra = [e for e in dict.fromkeys(words) if e.lower() not in core.lower()]
    return " ".join([core, *extra])
