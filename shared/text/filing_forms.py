"""The forms every SEC filing ends with, recognised by their prescribed words: the officers'
certifications, their trading plans, the exhibit index and the signatures.

Regulation S-K Item 601(b)(31) and (32) prescribe the text of the Sarbanes-Oxley section 302 and
906 certifications ("I have reviewed this annual report on Form 10-K of…"), so every 10-K and 10-Q
repeats it nearly word for word. The exhibit index lists the documents filed with it, each "incorporated
by reference to Exhibit 10.25 to PepsiCo, Inc.'s Annual Report on Form 10-K for the fiscal year
ended…", and the Inline XBRL files. Both name the filing, its form and its period, which is why a
question that names them ("in Apple's Q2 2023 10-Q", "as described in Item 1 of the 10-K") finds
them closer than the page that answers; yet they say nothing about the company. The two officers'
copies usually sit on adjacent pages, so the repeated-form check (`compose.repeated_far_apart`)
does not see them. The signatures page (General Instruction D of Form 10-K, and Form 10-Q's) opens
with the prescribed "the registrant has duly caused this report to be signed on its behalf…", then
dates and signs it ("Date: August 3, 2023 Apple Inc. By: /s/ …") and may grant a power of attorney
("KNOW ALL PERSONS BY THESE PRESENTS…"): a date and a name there are the form's, not an answer.
"""

from __future__ import annotations

import re

from shared.text.fiscal import DATE

CERTIFICATION = re.compile(
    r"\bI have reviewed this (?:\w+ )?report on Form\b"
    r"|^\W*I,\s[^,]{2,80},\s+certify\b"
    r"|\bBased on my knowledge,? (?:this report|the financial statements)"
    r"|\bother certifying officers?\b"
    r"|\bDesigned such (?:disclosure controls|internal control)"
    r"|\bEvaluated the effectiveness of the registrant"
    r"|\bDisclosed in this report any change in the registrant"
    r"|\bAll significant deficiencies and material weaknesses in the design or operation of internal control"
    r"|\bAny fraud, whether or not material, that involves management"
    r"|\bSection 906\b"
    r"|\b(?:18 U\.S\.C\. )?Section 1350\b"
    r"|\bfully complies with the requirements of Section 13\(a\) or 15\(d\)"
    # The section 906 certification's opening, a sentence of its own where a name's initial ends it.
    r"|\bIn connection with the (?:\w+ )?Report of\b.{0,160}?\bon Form 10-?[KQ]\b"
    r"|\bas filed with the Securities and Exchange Commission\b.{0,20}?\bon (?:or about )?the date hereof\b",
    re.I,
)
# Item 408(a) of Regulation S-K: each officer's or director's plan to trade the company's shares
# ("adopted a trading plan intended to satisfy Rule 10b5-1(c) to sell up to 33,600 shares").
# A buyback "under Rule 10b5-1 plans" is the company's, and answers a repurchase question.
TRADING_PLAN = re.compile(
    r"\b(?:adopted|terminated|modified|entered into)\b[^.]{0,80}\btrading (?:plan|arrangement)"
    r"|\bnon-Rule 10b5-1 trading arrangement",
    re.I,
)
SIGNATURES = re.compile(
    r"\bhas\s+duly\s+caused\s+this\b.{0,80}?\bto\s+be\s+signed\s+on\s+its\s+behalf\b"
    r"|\bKNOW\s+ALL\s+(?:PERSONS|MEN)\s+BY\s+THESE\s+PRESENTS\b"
    # The date line, with the registrant's name or a signature after it ("Date: August 3, 2023 Apple Inc.").
    rf"|^\W*Dated?:\s*{DATE.pattern}"
    r"(?=.*(?:\bBy:|/s/|\b(?:Inc|Corp|Corporation|Co|Company|LLC|Ltd|plc|N\.A)\b\.?\s*$))",
    re.I,
)
EXHIBIT = re.compile(
    r"\bincorporated (?:herein )?by reference (?:to|from) (?:Exhibit|Annex|Appendix|the (?:Company|Registrant)[’']s)"
    r"|\b(?:Inline XBRL|iXBRL|Interactive Data File)\b"
    # An entry's number with its footnote marks ("10.17†* Morgan Stanley Compensation Incentive Plan").
    r"|^\W*\d{1,3}\.\d{1,3}[†‡*#+]+\s",
    re.I,
)
# A question about the forms themselves is answered by them.
ASKS_ABOUT_FORMS = re.compile(
    r"\bcertif|\bsarbanes|\bSOX\b|\bsection (?:302|906|1350)\b|\bexhibits?\b|\bby reference\b|\bXBRL\b"
    r"|\b10b5-1\b|\btrading (?:plan|arrangement)s?\b|\binsider trading\b"
    r"|\bsignatures?\b|\bsignator(?:y|ies)\b|\bwho signed\b|\bpower of attorney\b"
    r"|\bsigned (?:the|this|its) (?:\w+ )?(?:report|10-?[KQ]|filing|form)\b",
    re.I,
)


def is_filing_form(sentence: str) -> bool:
    return any(form.search(sentence) for form in (CERTIFICATION, TRADING_PLAN, EXHIBIT, SIGNATURES))


def asks_about_forms(question: str) -> bool:
    return bool(ASKS_ABOUT_FORMS.search(question))
