"""What leads an answer to an amount question: the rows the question names, and a figure computed
from them.

The rows come from shared/llm/offline/rows.py (which rows a question names, and which line of a
ratio each is); the arithmetic from shared/llm/offline/computed.py. This module decides, for one
question, which rows lead and whether a figure is computed at all: not when the filing gives it
itself, not from the company's totals for a segment's figure, not without a row for every line;
and, for a yes/no question, which figure its verdict is decided on (shared/llm/offline/verdict.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from shared.llm.offline.columns import computable, dated, headed
from shared.llm.offline.compose import STATED_FIGURE, Scored
from shared.llm.offline.computed import computed_line
from shared.llm.offline.document_names import document_titles, naming_terms
from shared.llm.offline.restated import growth_line, restated_line
from shared.llm.offline.rows import (
    GENERIC_LABEL_WORDS,
    Named,
    asks_amount,
    label_terms,
    lead_rows,
    named_rows,
    parts_labels,
    rows_of,
    statement_pages,
)
from shared.llm.offline.stated_verdict import stated_verdict
from shared.llm.offline.superlative import compared
from shared.llm.offline.verdict import ratio_measure, row_measure, verdict_line
from shared.llm.schemas import Passage
from shared.text.changes import asks_change
from shared.text.comparisons import POSSESSIVE, asked_superlative
from shared.text.definitions import defined_parts
from shared.text.formulas import Computation
from shared.text.periods import asked_span
from shared.text.ratios import computation, named_parts
from shared.text.search_query import retrieval_query
from shared.text.sentences import Sentence
from shared.text.statements import named_statements
from shared.text.tables import row_head, row_parts
from shared.text.units import asked_unit
from shared.text.verdicts import PROFIT_LINE, Judgement, asked_act, asked_judgement
from shared.text.years import asked_year

GROWTH_ROWS = 3
_BEFORE = re.compile(r"\b(?:before|excluding|prior\s+to)\b", re.I)
_PART_OF_COMPANY = re.compile(r"\b(?:segments?|divisions?|divisional|regions?|regional|reportable)\b", re.I)


def asks_part_of_company(question: str) -> bool:
    """The question asks about a segment, division or region rather than the whole company."""
    return bool(_PART_OF_COMPANY.search(question))


def names_member(question: str, sentences: Sequence[Sentence]) -> bool:
    """The question names, as an owner, a member whose name is a row's whole label: "AWS's operating
    margin" where a segment table prints "Net sales: AWS" asks the segment's margin, not Amazon's."""
    owners = {label_terms(m.group(0)[:-2]) for m in POSSESSIVE.finditer(question)}
    return bool(owners) and any(label_terms(row[0]) in owners for s in sentences if (row := row_parts(s.text)))


def computed_rows(
    question: str, ranked: list[Named], computed: Computation, *, of_member: bool = False
) -> list[Named] | None:
    """The row of each line the figure is computed from, in its parts' order: of the rows that are
    that line, the best named; for a segment's figure, the one whose group and label say the most of
    the question beyond the line's own words ("AWS: Operating income" for the AWS segment's margin),
    never the company's totals (`of_member`: the question names a member as the owner, names_member).
    A line written as cash paid out ("PP&E purchases") is a row of cash paid, not the balance of the
    asset. None when a line has no row."""
    parts = parts_labels(computed.parts)
    paid = [any("paid" in label_terms(label) for label in part) for part in computed.parts]
    rows: dict[int, list[Named]] = {}
    for named in ranked:
        part = named.part_named(parts)
        if part is not None and (not paid[part] or "paid" in named.label):
            rows.setdefault(part, []).append(named)
    if len(rows) < len(parts):
        return None
    if not (asks_part_of_company(question) or of_member):
        return [rows[i][0] for i in range(len(parts))]
    chosen = []
    for i, labels in enumerate(parts):
        # What a row says of the question beyond the line itself: "AWS" of "AWS: Operating income".
        beyond = {id(n): len(n.context - frozenset().union(*labels)) for n in rows[i]}
        best = max(rows[i], key=lambda n: beyond[id(n)])
        # A segment's or a division's figure is not computed from the company's totals.
        if not beyond[id(best)]:
            return None
        chosen.append(best)
    return chosen


def prints_itself(
    figure: Computation, ranked: list[Named], direct: frozenset[str], sentences: Sequence[Sentence]
) -> bool:
    """The filing gives the figure itself: the best named row is no line it is computed from, or,
    unless the question defines the figure, a row the question names says its whole name or a
    sentence states it ("Free cash flow increased to $47.7 billion": a company's own definition may
    differ from the textbook's, and its figure is the one to quote)."""
    parts = parts_labels(figure.parts)
    name = label_terms(figure.name) - GENERIC_LABEL_WORDS
    best = ranked[0]
    # A question that defines the figure asks it computed its way, whatever the filing calls so: the
    # filing's own row of it ("Free cash flow", trailing twelve months) is not the figure asked.
    if best.item <= direct and best.part_named(parts) is None and not (figure.defined and name <= best.label):
        return True
    if figure.defined:
        return False
    named_row = any(n.item <= direct and n.part_named(parts) is None and name <= n.label for n in ranked)
    stated = any(
        row_parts(s.text) is None and STATED_FIGURE.search(s.text) and name <= label_terms(s.text) for s in sentences
    )
    return named_row or stated


def line_rows(
    question: str, figure: Computation, ranked: list[Named], sentences: Sequence[Sentence]
) -> tuple[list[Named], list[list[str]]] | None:
    """The row of each line of the figure (computed_rows, of the named rows in the order `fit` gives),
    and for each the rows with headers it may take them from when it has none; none when a line has
    no row."""
    # The rows with headers of each passage: a statement's row printed in its page's text takes its
    # table's headers.
    near: dict[int, list[str]] = {}
    for sentence in sentences:
        if headed(sentence.text):
            near.setdefault(sentence.chunk_index, []).append(sentence.text)
    period = bool(asked_year(question) or asked_span(question))
    parts = parts_labels(figure.parts)
    named_headed = [n for n in ranked if headed(sentences[n.row.index].text)]

    def lenders(named: Named) -> list[str]:
        """The rows with headers a row printed without may take them from (computed.with_headers):
        the line of years over its table's columns, its passage's, then the same line's elsewhere (its
        table's row), then the other named rows'."""
        sentence = sentences[named.row.index]
        same = [n for n in named_headed if n.label == named.label]
        others = [n for n in named_headed if n.label != named.label]
        own = [sentence.years_line] if sentence.years_line else []
        return [*own, *near.get(sentence.chunk_index, []), *(sentences[n.row.index].text for n in [*same, *others])]

    def fit(named: Named) -> tuple[bool, bool, int, int]:
        """Of a line's rows, first one with a figure to compute with; when a period is asked, one that
        says (or whose passage says) which period each figure is of; then the one that says least
        beyond the line ("Marketable securities", not "Total cash, cash equivalents, and marketable
        securities"), and the most of it as written ("Total net sales", not a segment's "Net
        sales")."""
        sentence = sentences[named.row.index]
        part = named.part_named(parts)
        if part is None:
            return not computable(sentence.text), False, 0, 0
        beyond = len(named.item - frozenset().union(*parts[part]))
        unsaid = min(len(label_terms(label) - named.label) for label in figure.parts[part])
        undated = period and not dated(sentence.text, lenders(named))
        return not computable(sentence.text), undated, beyond, unsaid

    by_part = computed_rows(question, sorted(ranked, key=fit), figure, of_member=names_member(question, sentences))
    return (by_part, [lenders(n) for n in by_part]) if by_part else None


def computed_lead(
    question: str, ranked: list[Named], direct: frozenset[str], sentences: Sequence[Sentence]
) -> tuple[list[Scored], str] | None:
    """The rows a figure the question asks to compute is computed from, and the line that states it
    (a ratio, a definition, or the change in the row it names as a percentage); none for a figure
    the filing prints itself ("Free cash flow", "Gross margin": quoted, not computed) or one a line's
    row or period is missing for."""
    figure = computation(question)
    if figure is None and asks_change(question):
        # The best named row with a column for each period (a row read without its headers has none).
        grown = ((n.row, growth_line(question, sentences[n.row.index].text)) for n in ranked[:GROWTH_ROWS])
        row, line = next(((row, line) for row, line in grown if line), (None, None))
        return ([row], line) if row and line else None
    if figure is None or prints_itself(figure, ranked, direct, sentences):
        return None
    chosen = line_rows(question, figure, ranked, sentences)
    if chosen is None:
        return None
    by_part, beside = chosen
    texts = [sentences[n.row.index].text for n in by_part]
    line = computed_line(question, figure, texts, beside)
    return ([n.row for n in by_part], line) if line else None


def _computed_verdict(
    question: str, judged: Judgement, figure: Computation, ranked: list[Named], sentences: Sequence[Sentence]
) -> tuple[list[Scored], str] | None:
    """The verdict on the figure computed from its lines' rows, and those rows."""
    chosen = line_rows(question, figure, ranked, sentences)
    if chosen is None:
        return None
    by_part, beside = chosen
    texts = [sentences[n.row.index].text for n in by_part]
    line = verdict_line(question, judged, ratio_measure(question, figure, texts, beside))
    return ([n.row for n in by_part], line) if line else None


def _judged_rows(question: str, judged: Judgement, ranked: list[Named], sentences: Sequence[Sentence]) -> list[Named]:
    """The rows that may be the figure judged: "profitable" is of a line of income, not of the segment's
    sales the question also names; what was done in a period is the line the question names in its own
    words ("record a goodwill impairment": "Impairment of goodwill"), not one its search words name
    ("Common stock issued" for a repurchase); a result before the line is not the line; a segment's
    figure is a row that names the segment. Those that name most of the question come first, each in
    the order given."""
    act = asked_act(question)
    # A row names the act in a statement's words beside the question's: "Proceeds from issuance of term debt".
    asked_words = label_terms(f"{question} {act.rows if act else ''}")

    def head(named: Named) -> str:
        """What the row is of: its group and label (a row printed in the page's text is all label)."""
        text = sentences[named.row.index].text
        return row_head(text) or text

    def before_asked(named: Named) -> bool:
        """The row is a result before the line asked ("Income before provision for income taxes" of a
        question about the provision for income taxes), which the question does not ask of."""
        label = head(named)
        before = _BEFORE.search(label)
        words = label_terms(label[before.end() :]) if before else frozenset()
        line = {w for w in words if not any(c.isdigit() for c in w)}
        named_line = len(line & asked_words) >= 2 or bool(line) and line <= asked_words
        return named_line and not _BEFORE.search(question)

    # A segment's or a member's figure is judged only on a row whose group or label names more of the
    # question than the line ("International: Operating income (loss)"), never the company's own row.
    part = asks_part_of_company(question) or names_member(question, sentences)
    rows = [
        n
        for n in ranked
        if (not judged.profit or PROFIT_LINE.search(head(n)))
        and (judged.kind != "occurred" or n.item <= asked_words)
        and not before_asked(n)
        and not (part and n.context <= n.item)
    ]
    # The row that names most of the question is the line asked: "Provision for (benefit from) income
    # taxes", not "Net income", for the provision.
    return sorted(rows, key=lambda n: -len(n.item & asked_words))


def judged_lead(
    question: str, judged: Judgement, ranked: list[Named], direct: frozenset[str], sentences: Sequence[Sentence]
) -> tuple[list[Scored], str] | None:
    """The rows a yes/no question's figure is read from, and the line that opens the answer with its
    verdict (shared/llm/offline/verdict.py). A ratio is judged as computed from its lines, whatever
    the filing prints under its name (Apple's "Gross margin" row is in dollars; "an improving gross
    margin profile" is the percentage's), else on the filing's row of it (a rate printed where its lines
    are not); a difference the filing prints itself ("Free cash flow") on the filing's own row, else as
    computed (a figure stated only in prose has no row to read); a line, on the best named row that
    gives the periods."""
    figure = computation(question)
    computed = _computed_verdict(question, judged, figure, ranked, sentences) if figure else None
    printed = figure is None or prints_itself(figure, ranked, direct, sentences)
    if figure is not None and (not printed or figure.formula.over and computed):
        return computed
    # The filing's own row says the figure's whole name ("Free cash flow", not the operating cash flow).
    name = label_terms(figure.name) - GENERIC_LABEL_WORDS if figure else frozenset()
    rows = [n for n in _judged_rows(question, judged, ranked, sentences) if name <= n.label]
    for named in rows[:GROWTH_ROWS]:
        measure = row_measure(question, sentences[named.row.index].text)
        line = verdict_line(question, judged, measure)
        if line:
            return [named.row], line
        now = measure(None)
        if now and now.outflow and judged.kind in ("sign", "bar"):
            # The line asked is a charge, with no sign to judge: a row that names less of the question
            # ("Net income" of "the provision for income taxes") is not it.
            return computed
    return computed


def _verdict(
    question: str,
    judged: Judgement,
    ranked: list[Named],
    direct: frozenset[str],
    extended: Sequence[Sentence],
    sentences: Sequence[Sentence],
    scored: Sequence[Scored],
) -> tuple[list[Scored], str] | None:
    """A yes/no question's verdict from its rows (judged_lead, on the sentences with printed rows
    added), else from a sentence that says it (shared/llm/offline/stated_verdict.py: "There were no
    repurchases of our common stock in 2025.")."""
    found = judged_lead(question, judged, ranked, direct, extended) if ranked else None
    stated = None if found else stated_verdict(question, sentences, scored)
    return found or (([stated[0]], stated[1]) if stated else None)


@dataclass(frozen=True)
class Led:
    """An answer's sentences (printed rows added), its picks, and the line of a figure computed from
    the rows that lead it, or restated in the unit asked (shared/llm/offline/computed.py)."""

    sentences: list[Sentence]
    picked: list[Scored]
    computed: str | None = None


def lead_with_named_row(
    question: str,
    passages: Sequence[Passage],
    sentences: Sequence[Sentence],
    scored: list[Scored],
    picked: list[Scored],
    *,
    k: int,
    floor: float,
) -> Led:
    """`picked` led by the row an amount question names (at most k sentences), and the sentences
    the picks index (printed rows added); both as they were for other questions. A figure to compute
    is led by its lines' rows, and computed from them when they give one period's figures."""
    asks = asked_superlative(question)
    if asks:
        extended, rows = rows_of(sentences, scored, passages, floor=floor)
        members = compared(question, asks, rows, extended)
        if members:
            # The passage most like the question follows the rows compared: the table it holds may be
            # the one asked where the rows compared are of another.
            rest = [p for p in picked if p not in members[0]][:1]
            return Led(extended, [*members[0], *rest], members[1])
    # The line items are read in the statements' words ("EPS" is "earnings per share"), without the
    # statement the question names as its source.
    items = retrieval_query(question, statements=False)
    # A question that asks its figure in a unit asks an amount ("payments for PP&E, in USD billions"),
    # and so does one that judges a figure it computes ("positive working capital?").
    judged = asked_judgement(question)
    amount = asks_amount(items) or asked_unit(question) or bool(judged and computation(question))
    if not (amount or judged):
        return Led(list(sentences), picked)
    extended, rows = rows_of(sentences, scored, passages, floor=floor)
    direct = label_terms(retrieval_query(question, statements=False, parts=False))
    pages = statement_pages(question, passages)
    titled = frozenset(naming_terms(items, document_titles(passages)))
    ranked = named_rows(items, rows, floor=floor, statement_pages=pages, direct=direct, titled=titled)
    verdict = _verdict(question, judged, ranked, direct, extended, sentences, scored) if judged else None
    if not amount:
        # A yes/no question of a line ("Did it record a goodwill impairment?") is led by the row only
        # where the row decides it; else it is answered from its sentences, as before.
        return _led(extended, verdict, picked, k) if verdict else Led(list(sentences), picked)
    if not ranked:
        return _led(extended, verdict, picked, k) if verdict else Led(extended, picked)
    # A ratio the filing prints no row of is led by its parts' rows, and so is a figure the question
    # defines (its operands are the question's words, so the best row is always one of them).
    named = [] if ranked[0].item <= direct else named_parts(question)
    parts = parts_labels(list(dict.fromkeys([*named, *defined_parts(question)])))
    lead = lead_rows(ranked, parts)
    computed = verdict or computed_lead(question, ranked, direct, extended)
    if computed is None:
        # The figure asked in another unit than the statement's ("in USD billions" of a statement in
        # millions), restated from the best named row that says its unit (a row printed in the
        # page's text says none), leads the rows.
        restated = ((n.row, restated_line(question, extended[n.row.index].text)) for n in ranked[:GROWTH_ROWS])
        computed = next((([row], line) for row, line in restated if line), None)
    if computed is None:
        return _led(extended, (lead, None), picked, k)
    return _led(extended, (list(dict.fromkeys([*computed[0], *lead])), computed[1]), picked, k)


def _led(sentences: list[Sentence], lead: tuple[list[Scored], str | None], picked: list[Scored], k: int) -> Led:
    """The rows that lead, then the picks (at most k in all, unless more rows lead), and the line
    that states what was computed of them. A sentence that lists the statements (the auditor's
    opinion that "the consolidated balance sheets … statements of operations … and cash flows"
    present fairly) is about them, not what they print."""
    rows, line = lead
    rest = [p for p in picked if p not in rows and len(named_statements(sentences[p.index].text)) < 2]
    return Led(sentences, [*rows, *rest][: max(k, len(rows))], line)
