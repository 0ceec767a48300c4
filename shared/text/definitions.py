"""A figure a question defines itself: "PP&E purchases as a percentage of total net sales", "Define
EBITDA as operating income plus depreciation and amortization", "365 * (average accounts payable
between FY2023 and FY2024) / (cost of sales)", "What share of net revenues came from net interest?".

The phrases around the operators are its lines, read as statements label them (without qualifiers
such as "the FY2024" or "average"); the operators, constants and parentheses are read into the one
shape a figure is computed in (shared/text/formulas.py). A definition this module cannot read is no
computation: the lines are then quoted, not computed from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from shared.text.formulas import PERCENTAGE, Computation, Formula, Part, Token, Unit, described, formula_of

# The operators of a definition: "A as a percentage of B", "A divided by B", "(A) / (B)", "A + B",
# "A minus B", "A less B", "A - B", "365 * A", "A multiplied by 100". Not "over" ("over the year"),
# "less than", "to" ("from 2023 to 2024") nor a dash between periods ("FY2017 - FY2019") nor "a
# minus sign"; "/", "+" and "*" only between spaces, parentheses or beside a constant ("Y/Y",
# "provided by/(used in)").
_OPERATOR = re.compile(
    r"\s+as\s+an?\s+(?:percentage|percent|%|share|proportion|fraction)\s+of\s+|\s+divided\s+by\s+"
    r"|\s+multiplied\s+by\s+|\s+(?:minus|plus)\s+(?!signs?\b)|\s+less\s+(?!than\b)|\s+[/+*×÷−]\s+"
    r"|(?<=[a-z])\s+-\s+(?=[a-z(])"
    r"|(?<=\))\s*/\s*(?=\()|(?<=\d)\s*[*×]\s*|\s*[*×]\s*(?=\d)",
    re.I,
)
_SYMBOLS = {
    **dict.fromkeys(("as", "divided", "/", "÷"), "/"),
    **dict.fromkeys(("multiplied", "*", "×"), "*"),
    **dict.fromkeys(("plus", "+"), "+"),
    **dict.fromkeys(("minus", "less", "−", "-"), "-"),
}
# Where the first operand begins: after what introduces the definition ("i.e.", "computed as", "defined
# as:", "Define EBITDA as", "=", "using"), a verb of the question ("what was"), a possessive ("Krispy
# Kreme's SG&A expense") or an opening parenthesis. Not a comma: "property, plant and equipment" is
# one line.
_PART_START = re.compile(
    r".*(?:\bi\.?e\.?,?|\be\.?g\.?,?|\b(?:comput|calculat|defin|measur|express|estimat)(?:ed|e)\s+(?:it\s+|this\s+|them\s+)?"
    r"(?:as|by|using)\b:?|\bdefine\s+[^.?!:]{1,60}?\s+as\b:?|\bequals?\b"
    r"|\b(?:using|compute|calculate|where|is|was|were|are)\b|'s\b|’s\b|[(:;=])",
    re.I | re.S,
)
# Where an operand ends: a period or place ("for FY2024", "in Q2 2026", "between FY2016 and
# FY2017", "at year end"), a parenthesis after it ("(USD millions)") or closing it, or a stop.
# "Provision for income taxes" and "change in inventory" go on.
_PERIOD = (
    r"(?:the\s+)?(?:fy|fiscal|q[1-4]|\d|first|second|third|fourth|full|latest|most|last|year|quarter|three|six"
    r"|nine|twelve|period|end)"
)
# Where a line is printed, after its name: "total revenue in the income statement".
_STATEMENT = (
    r"(?:the\s+|its\s+)?(?:condensed\s+)?(?:consolidated\s+)?"
    r"(?:income\s+statement|balance\s+sheet|statements?\s+of|cash\s+flow)"
)
_PART_END = re.compile(
    rf"\s*(?:[).;:?!]|(?<=[\w,])\s+\(|,\s(?!\w+\s+and\s)|\b(?:for|in|during|at|as\s+of|over|from)\s+{_PERIOD}"
    rf"|\b(?:in|from|on|of)\s+{_STATEMENT}"
    r"|\b(?:between|based\s+on|using|round|was|is|were|are|did|does|has|had)\b).*",
    re.I | re.S,
)
# A figure averaged over years, not a line's balance averaged ("the 3 year average of capex as a % of
# revenue", "the two-year average operating margin").
YEARS_AVERAGE = re.compile(
    r"\b(\d|two|three|four|five)[-\s]years?\s+(?:average|avg|mean)\b(?:\s+of\b)?"
    r"|\b(?:average|mean)\s+of\s+the\s+(\d|two|three|four|five)\s+(?:annual|yearly|years'?|fiscal[-\s]years'?)\s",
    re.I,
)
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5}
# Words that say how much of a line or when, not which line: "average accounts payable", "the FY2017
# COGS"; and a phrase that opens the sentence ("In Q2 2026, SG&A").
_QUALIFIER = re.compile(
    r"\b(?:the|its|their|(?:average|avg)(?:\s+of\b)?|annual|fiscal(?:\s+year)?|fy\s?\d{2,4}|q[1-4]|\d{4}|\d+)\b\s*",
    re.I,
)
_LEADING = re.compile(r"^(?:(?:in|for|during|at|as\s+of)\b[^,]{0,40},)?[\s,]*", re.I)
# "the GROSS MARGIN line", "the line "Repurchase of common stock"": the line is the gross margin.
_LINE = re.compile(r"\s+line(?:\s+items?)?\s*$|^(?:the\s+)?line(?:\s+item)?\s+", re.I)
# What a line is a line of, after its name: "the Services segment" is the Services line.
_KIND_OF_LINE = re.compile(r"\s+(?:reportable\s+)?(?:segment|division|category|business|channel|region)s?$", re.I)
# A constant of a definition: "365", "365 days", "100".
_CONSTANT = re.compile(r"(\d+(?:\.\d+)?)(?:\s+days?)?", re.I)
PART_WORDS = 8
QUESTION_WORDS = frozenset({"what", "which", "how", "much", "many", "who", "whom"})


def _started(operand: str) -> tuple[int, str]:
    """The first operand from where it starts, and whether a parenthesis opened there."""
    start = _PART_START.match(operand)
    if start is None:
        return 0, operand
    return int(start.group(0).endswith("(")), operand[start.end() :]


def _part(operand: str, *, first: bool) -> str | None:
    """The line item an operand names, to where it ends, without qualifiers; the first operand from
    where it starts (the others start at their operator)."""
    phrase = _PART_END.sub("", _LEADING.sub("", _started(operand)[1]) if first else operand.lstrip(" ("))
    phrase = YEARS_AVERAGE.sub(" ", _LINE.sub("", _LINE.sub("", phrase.strip())))
    phrase = " ".join(_QUALIFIER.sub(" ", phrase).split()).strip(' ()[],"“”').lower()
    phrase = _KIND_OF_LINE.sub("", phrase) if len(phrase.split()) > 1 else phrase
    words = phrase.split()
    named = [w for w in words if w not in QUESTION_WORDS]
    return phrase if named and len(words) <= PART_WORDS and len(re.findall(r"[a-z]", phrase)) >= 2 else None


def _definitions(text: str) -> list[tuple[str, list[str], list[str]]]:
    """Each sentence of the text that defines a figure, with its operators and its operands."""
    sentences = re.split(r"(?<=[.?!])\s+", text)
    return [(s, _OPERATOR.findall(s), _OPERATOR.split(s)) for s in sentences if _OPERATOR.search(s)]


# What a definition calls the figure: "Days inventory outstanding (DIO) is defined as: …", "Define
# EBITDA as …", "DSO = …".
_CALLED = re.compile(
    r"^(?:the\s+)?(?P<a>[^.?!:,;]{2,50}?)\s+(?:is|are)\s+(?:defined|calculated|computed|measured)\s+as\b"
    r"|\bdefine\s+(?:the\s+)?(?P<b>[^.?!:,;]{2,50}?)\s+as\b|^(?P<c>[^.?!:,;=]{2,40}?)\s*=",
    re.I,
)
_PRONOUNS = frozenset({"it", "this", "them", "that"})


def called(sentence: str) -> str | None:
    """The name a defining sentence gives its figure, as written, if it gives one."""
    match = _CALLED.search(sentence.strip())
    name = next((g for g in match.groups() if g), None) if match else None
    return name if name and name.lower() not in _PRONOUNS and len(name.split()) <= 6 else None


# "What share of net revenues came from net interest?", "What percentage of total net sales was
# Services?", "What share of net income did Apple pay out as dividends?": a part of a whole, asked
# without an operator.
_SHARE_OF = r"\b(?:share|percentage|percent|portion|proportion|fraction)\s+of\s+(?P<whole>.{3,80}?)\s+"
_SHARE = re.compile(
    _SHARE_OF + r"(?:(?:came|comes|come)\s+(?:from|through|via)"
    r"|did\s+.{1,60}?\s+(?:pay\s+out\s+as|pay\s+as|spend\s+on|return\s+as|use\s+for)"
    r"|(?:was|were|is|are)\s+(?:paid\s+out\s+as|spent\s+on|from|attributable\s+to|made\s+up\s+of"
    r"|(?:generated|earned|derived)\s+(?:by|from|through|in))"
    r"|(?:was|were|is|are))\s+(?P<part>[^?.;]{3,120})",
    re.I | re.S,
)
# "What percentage of total revenue did the Services segment represent?"
_SHARE_BEFORE = re.compile(
    _SHARE_OF + r"(?:did|does|do)\s+(?P<part>.{3,80}?)\s+(?:represent|account\s+for|make\s+up|comprise|contribute)\b",
    re.I | re.S,
)


def as_written(phrase: str, text: str) -> str:
    """The phrase as the text writes it ("iPhone", "AWS"), where the text holds it whole."""
    found = re.search(re.escape(phrase), text, re.I)
    return found.group(0) if found else phrase


# A share of what a part is not: "What portion of net revenue was generated outside the United States?"
_OUTSIDE = re.compile(
    r"^(?:(?:generated|earned|derived|made)\s+)?(?:outside(?:\s+of)?|excluding|other\s+than|apart\s+from)\s+", re.I
)


@dataclass(frozen=True)
class Share:
    """A share the text asks without an operator: its part and its whole, as lines, and whether it
    asks the share of the whole other than the part."""

    part: str
    whole: str
    outside: bool = False


def shared_parts(text: str) -> Share | None:
    """The share the text asks without an operator ("What share of net revenues came from net
    interest?"), if it asks one."""
    match = _SHARE_BEFORE.search(text) or _SHARE.search(text)
    if match is None:
        return None
    said = match.group("part").strip()
    outside = _OUTSIDE.match(said)
    part = _part(said[outside.end() :] if outside else said, first=False)
    whole = _part(match.group("whole"), first=True)
    return Share(part, whole, bool(outside)) if part and whole and part != whole else None


def _share_computation(share: Share, text: str) -> Computation:
    part, whole = as_written(share.part, text), as_written(share.whole, text)
    if share.outside:
        # The whole less the part, over the whole.
        outside = Formula((0,), less=(1,), over=(0,))
        name = f"{whole} other than {part}, as a share of {whole}"
        return Computation(name, ((share.whole,), (share.part,)), outside, defined=True, share=True)
    name = f"{part} as a share of {whole}"
    return Computation(name, ((share.part,), (share.whole,)), PERCENTAGE, defined=True, share=True)


def defined_parts(text: str) -> list[Part]:
    """The operands of the definitions the text gives, each sentence on its own ("net interest as a
    percentage of net revenues" is `[("net interest",), ("net revenues",)]`), and the part and whole
    of a share it asks."""
    found: list[Part] = []
    for _, _, operands in _definitions(text):
        for i, operand in enumerate(operands):
            part = _part(operand, first=i == 0)
            if part and not _CONSTANT.fullmatch(part) and (part,) not in found:
                found.append((part,))
    share = shared_parts(text)
    return list(dict.fromkeys([*found, *(((share.part,), (share.whole,)) if share else ())]))


# A figure over several periods' lines ("average total assets between FY2018 and FY2019") is not
# computed from one period's rows.
AVERAGE = re.compile(r"\b(?:average|avg)\b", re.I)
_PERCENT_OF = re.compile(r"as\s+an?\s+(?:percentage|percent|%)", re.I)
# A text that asks a percentage ("in percent", "percentage", "%").
ASKS_PERCENT = re.compile(r"\bpercent(?:age|s)?\b|%", re.I)
_DAYS = re.compile(r"\bdays?\b", re.I)


def _symbol(operator: str) -> str:
    """The sign an operator of _OPERATOR stands for ("as a percentage of" divides)."""
    return _SYMBOLS[operator.split()[0].lower()]


def _read(operators: list[str], operands: list[str]) -> tuple[list[Token], list[str], list[int]] | None:
    """A definition as tokens (lines, constants, operators, parentheses), its lines and the lines it
    asks as an average balance; none when an operand is neither a line nor a constant."""
    tokens: list[Token] = []
    parts: list[str] = []
    averaged: list[int] = []
    for i, operand in enumerate(operands):
        if i:
            tokens.append(("operator", _symbol(operators[i - 1])))
        opens, body = _started(operand) if i == 0 else (0, operand)
        stripped = body.lstrip(" (")
        opens += body[: len(body) - len(stripped)].count("(")
        # The last operand's parentheses close at the end of the definition.
        closes = 0 if i == len(operands) - 1 else max(0, stripped.count(")") - stripped.count("("))
        tokens += [("operator", "(")] * opens
        constant = _CONSTANT.fullmatch(_PART_END.sub("", stripped).strip())
        part = None if constant else _part(stripped, first=False)
        if constant:
            tokens.append(("constant", float(constant.group(1))))
        elif part is None:
            return None
        else:
            if part not in parts:
                parts.append(part)
                if AVERAGE.search(_PART_END.sub("", YEARS_AVERAGE.sub(" ", stripped))):
                    averaged.append(len(parts) - 1)
            tokens.append(("part", parts.index(part)))
        tokens += [("operator", ")")] * closes
    return tokens, parts, averaged


# A figure named a margin, a rate or a return is a percentage ("Free cash flow margin is defined as …").
_PERCENT_NAMED = re.compile(r"\bmargins?\b|\brates?\b|\byields?\b|\breturn\s+on\b", re.I)


def _unit(operators: list[str], text: str, name: str | None) -> Unit:
    named_percent = bool(name and _PERCENT_NAMED.search(name))
    if any(_PERCENT_OF.search(o) for o in operators) or ASKS_PERCENT.search(text) or named_percent:
        return "percent"
    return "days" if _DAYS.search(text) else "times"


def averaged_years(text: str) -> int:
    """How many years the figure asked is averaged over ("the 3 year average of …"): one when none."""
    match = YEARS_AVERAGE.search(text)
    if match is None:
        return 1
    count = (match.group(1) or match.group(2)).lower()
    return _NUMBERS.get(count) or int(count)


def defined_computation(text: str) -> Computation | None:
    """The figure the text defines as a formula of lines ("capex as a percentage of total net sales",
    "(operating income + depreciation and amortization) / revenue", "365 * (average accounts
    payable) / (cost of sales)"), or as a share of a whole ("what share of net revenues came from
    net interest"); none for a formula of another shape (shared/text/formulas.py)."""
    defining = _definitions(text)
    if len(defining) != 1:
        share = shared_parts(text) if not defining else None
        return _share_computation(share, text) if share else None
    sentence, operators, operands = defining[0]
    read = _read(operators, operands)
    formula = formula_of(read[0], _unit(operators, text, called(sentence))) if read else None
    if read is None or formula is None:
        return None
    tokens, parts, averaged = read
    if formula.unit == "days" and formula.factor is None:
        formula = replace(formula, unit="times")
    # One operator between two lines is named in the question's words ("operating income as a
    # percentage of total net sales").
    plain = len(operators) == 1 and len(parts) == 2 and not formula.factor
    name = called(sentence) or (
        f"{as_written(parts[0], text)} {' '.join(operators[0].split())} {as_written(parts[1], text)}"
        if plain
        else described(formula, [as_written(part, text) for part in parts])
    )
    return Computation(name, tuple((part,) for part in parts), formula, tuple(averaged), True, averaged_years(text))
