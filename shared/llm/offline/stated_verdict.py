"""A yes/no question that no row decides, decided by a sentence that says it: whether something was
done, or where a share stands against the question's bar.

Much of what a filing discloses no line prints: "There were no repurchases of our common stock in
2023, 2024, or 2025." answers "Did Amazon buy back any of its own common stock during 2025?" with a
no; "The Company repurchased $18.0 billion of its common stock … during the third quarter of 2023."
answers "Did Apple repurchase its own shares in the third quarter of fiscal 2023?" with a yes. A
sentence decides only when it names the act (shared/text/verdicts.py `asked_act`), its object and
the period asked; a denial holds no amount (so it cannot be a denial of one year beside another's
amount) and is of no shorter a period than the one asked (none in the fourth quarter is not none in
the year), an affirmation states one, in the past or as done now, and hedges nothing ("expects to",
"is authorized to" are not done). A share is read where the sentence states it of the whole the
question's bar is of ("approximately 14% of our consolidated net revenue" against "10% or more of its
consolidated net revenue"), or denies it at the bar ("no customer accounted for 10% or more"). The
best-ranked sentences are read, and they must agree: a question they answer both ways gets no
verdict.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from shared.llm.offline.compose import Scored, terms
from shared.text.periods import asked_quarters, asked_span
from shared.text.sentences import Sentence
from shared.text.tables import row_parts
from shared.text.verdicts import Act, Judgement, asked_act, asked_judgement
from shared.text.years import asked_years

# How many of the best-ranked sentences may decide: beyond these, a sentence is about something else.
READ = 8
_NEGATION = re.compile(r"\b(?:no|not|never|none|nor|neither|without)\b|n[’']t\b", re.I)
# A denial names the act within a few words of its negation ("did not record", "no repurchases",
# "no goodwill impairment was recorded").
_NEGATION_REACH = 40
_AMOUNT = re.compile(r"[$€£]\s?\d|\b\d[\d,.]*\s*(?:million|billion|thousand)\b|\b\d[\d,]*\s+shares\b", re.I)
# Said of what may, will or is allowed to be done, not of what was.
_HEDGE = re.compile(
    r"\b(?:may|might|could|would|will|can|expects?|expected|anticipat\w*|plans?|intends?|if|authoriz\w*|"
    r"approv\w*|permit\w*|remain\w*|guidance\s+assumes)\b",
    re.I,
)
# An act reported as done: past tense, or announced as under way ("is increasing its guidance").
_DONE = re.compile(r"(?:ed|paid|bought|took|taken)$|^(?:repurchases|payments|buybacks?|borrowings)$", re.I)
# A share of a whole: "14% of our consolidated net revenue"; and the whole a question's bar is of.
_PERCENT_OF = r"(\d+(?:\.\d+)?)\s*(?:%|percent)\s+(?:or\s+\w+\s+)?of\s+"
_SHARE = re.compile(_PERCENT_OF + r"([^,;.()]+)", re.I)
_BASE = re.compile(_PERCENT_OF + r"([^,;?()]+)", re.I)
_STOCK = frozenset({"share", "shares", "stock", "stocks"})
_UNDER_WAY = re.compile(r"\b(?:is|are)\s+\w+ing\b", re.I)


def _words(text: str) -> set[str]:
    """The text's terms, a company's shares and its stock read as one."""
    return {"stock" if t in _STOCK else t for t in terms(text) if not t.isdigit()}


def _names_all(wanted_text: str, text: str) -> bool:
    """Every word wanted is in the text, but one of three or more (a sentence says "capital guidance"
    of "capital expenditure guidance")."""
    wanted = _words(wanted_text)
    missing = len(wanted - _words(text))
    return bool(wanted) and missing <= (1 if len(wanted) >= 3 else 0)


def _names_period(question: str, text: str) -> bool:
    """The sentence names the year asked, and the quarter asked if one is."""
    years = asked_years(question)
    if not years or years[-1] not in asked_years(text):
        return False
    quarters = asked_quarters(question)
    return not quarters or quarters <= asked_quarters(text)


def said(act: Act, question: str, text: str) -> bool | None:
    """What the sentence says of the act in the period asked: done (True), not done (False), or
    nothing it can be held to (None)."""
    if row_parts(text) is not None or not _names_all(act.object, text) or not _names_period(question, text):
        return None
    found = list(act.words.finditer(text))
    if not found:
        return None
    denied = any(_NEGATION.search(text[max(0, m.start() - _NEGATION_REACH) : m.end()]) for m in found)
    if denied:
        # None in a quarter is not none in the year asked.
        narrower = not (asked_quarters(question) or asked_span(question)) and (asked_quarters(text) or asked_span(text))
        return None if _AMOUNT.search(text) or narrower else False
    if _NEGATION.search(text) or _HEDGE.search(text) or not _AMOUNT.search(text):
        return None
    done = any(_DONE.search(m.group(0)) for m in found) or bool(_UNDER_WAY.search(text))
    return True if done else None


def share_said(judged: Judgement, base: str, question: str, text: str) -> tuple[bool, float | None] | None:
    """Whether the sentence puts the share asked above the bar, with the share it states (None for a
    denial that names the bar); None where it says nothing of it. "Sales to Walmart … represented
    approximately 14% of our consolidated net revenue" is above a 10% bar of "its consolidated net
    revenue"; "no customer accounted for 10% or more of net sales" is not; "our top five customers
    represented 30% of our net revenue in North America" is of another whole."""
    if row_parts(text) is not None or not _names_period(question, text):
        return None
    wanted = _words(base)
    shares = [m for m in _SHARE.finditer(text) if wanted <= _words(m.group(2))]
    if len(shares) != 1:
        return None
    value = float(shares[0].group(1))
    if _NEGATION.search(text[: shares[0].start()]):
        return (False, None) if value == judged.bar else None
    if _HEDGE.search(text) or value == judged.bar:
        return None
    return value > judged.bar, value


def _period_named(question: str) -> str:
    """The period the answer says it decides: "Q3 2023" where one quarter is asked, else the year."""
    years = asked_years(question)
    if not years:
        return ""
    quarters = asked_quarters(question)
    return f"Q{min(quarters)} {years[-1]}" if len(quarters) == 1 else years[-1]


Reading = Callable[[str], "tuple[bool, str] | None"]
"""A sentence's verdict on the question, and what the answer says of it; None where it says nothing."""


def _reading(question: str) -> Reading | None:
    """How a sentence is read for the question's verdict: an act done, or a share against its bar."""
    act = asked_act(question)
    period = _period_named(question)
    if act is not None:

        def done(text: str) -> tuple[bool, str] | None:
            found = said(act, question, text)
            return None if found is None else (found, f"The filing says so for {period} (quoted below).")

        return done
    judged = asked_judgement(question)
    base = _BASE.search(question)
    if judged is None or judged.kind != "bar" or not judged.percent or base is None:
        return None

    def share(text: str) -> tuple[bool, str] | None:
        found = share_said(judged, base.group(2), question, text)
        if found is None:
            return None
        above, value = found
        side = f"at {value:g}%, {'above' if above else 'below'}" if value is not None else "below"
        return above == judged.up, f"The filing puts it {side} {judged.bar:g}% for {period} (quoted below)."

    return share


def stated_verdict(question: str, sentences: Sequence[Sentence], scored: Sequence[Scored]) -> tuple[Scored, str] | None:
    """The best-ranked sentence that says whether the act asked was done in the period asked, or where
    the share asked stands against its bar, and the verdict line that opens the answer; none where no
    sentence says, or the sentences disagree."""
    reading = _reading(question)
    if reading is None:
        return None
    # A sentence in the question's own words is a verdict here, not a restatement ("In 2024, no customer
    # accounted for 10% or more of our consolidated net revenue.").
    best = sorted(scored, key=lambda s: -s.score)[:READ]
    saying = [(s, found) for s in best if (found := reading(sentences[s.index].text)) is not None]
    if not saying or len({verdict for _, (verdict, _) in saying}) > 1:
        return None
    first, (verdict, why) = saying[0]
    return first, f"**{'Yes' if verdict else 'No'}.** {why}"
