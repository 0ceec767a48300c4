"""Which member of a table is the largest, the smallest, or changed the most.

"Which product category had the largest decline in net sales in fiscal 2024?" is answered by a
table's rows compared, not by one row: the answer names the member and quotes every member's row,
so the reader checks the comparison. Members are the rows of one printed table ("Net sales by
category: iPhone", "Mac", "iPad"…; its totals are no members), or the rows of one line across
groups ("Americas: Operating income", "Europe: Operating income"…: a segment note prints each
segment's lines under its name). Of the candidate groups in the passages, the one that holds the
members the question lists, then says the most of its other words, then ranks best is compared.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from shared.llm.offline.columns import cells, column, header_years, value_of
from shared.llm.offline.compose import STEM_CHARS, STOPWORDS, TERM, Scored
from shared.llm.offline.computed import number
from shared.llm.offline.restated import change_columns, earlier_year
from shared.llm.offline.rows import Row, label_terms
from shared.text.comparisons import (
    ASKING,
    KIND,
    MIN_MEMBERS,
    POSSESSIVE,
    Superlative,
    listed_members,
)
from shared.text.periods import asked_span
from shared.text.sentences import Sentence
from shared.text.tables import row_headers
from shared.text.years import asked_years

_TERM_OR_BREAK = re.compile(r"\||" + TERM.pattern)
_TOTAL = re.compile(r"\btotal\b|^\s*(?:consolidated\b|net (?:increase|decrease|change)\b)", re.I)
_CHANGES = re.compile(r"\b(?:growth|change|increase|decrease|decline)\b|\by/y\b|\byear[- ]over[- ]year\b", re.I)


@dataclass(frozen=True)
class Member:
    """One member compared: its name, its row, and its figure(s) for the period(s) compared."""

    name: str
    row: Scored
    header: str
    printed: str
    value: float
    before: tuple[str, str] | None = None
    # The figure is itself a change ("Year-over-year percentage growth (decline): Fulfillment — 13%").
    printed_change: bool = False

    def metric(self, asks: Superlative) -> float | None:
        if not asks.change or self.printed_change:
            return self.value
        old = value_of(self.before[1]) if self.before else None
        if old is None:
            return None
        if not asks.percent:
            return self.value - old
        return (self.value - old) / abs(old) * 100 if old else None

    def shown(self, asks: Superlative) -> str:
        metric = self.metric(asks)
        if not asks.change or metric is None or self.before is None:
            return f"{self.name} {self.printed}{'%' if self.printed_change and not self.printed.endswith('%') else ''}"
        # An amount's change as printed amounts are ("+19,977"), a rate to one decimal ("+22.6%").
        decimals = 0 if not asks.percent and metric.is_integer() else 1
        change = f"{'+' if metric > 0 else ''}{number(metric, decimals)}{'%' if asks.percent else ''}"
        return f"{self.name} {self.before[1]} → {self.printed} ({change})"


def _groups(rows: Sequence[Row], sentences: Sequence[Sentence]) -> list[list[tuple[str, Row]]]:
    """Candidate groups of (member name, row): the rows of one table (one passage's rows in a run,
    with the same headers), by label; and the rows of one line under different groups, by group."""
    tables: dict[tuple[str, tuple[str, ...]], list[tuple[str, Row]]] = {}
    by_line: dict[tuple[str, tuple[str, ...]], list[tuple[str, Row]]] = {}
    last: tuple[int, tuple[str, ...]] | None = None
    runs = 0
    for row in sorted((r for r in rows if r.structured), key=lambda r: r.scored.index):
        sentence = sentences[row.scored.index]
        headers = tuple(row_headers(sentence.text))
        if not headers or _TOTAL.search(row.label):
            last = None
            continue
        previous = sentences[row.scored.index - 1] if row.scored.index else None
        if not (last == (row.scored.index - 1, headers) and previous and previous.chunk_index == sentence.chunk_index):
            runs += 1
        last = (row.scored.index, headers)
        group = row.head.rsplit(": ", 1)[0] if ": " in row.head else None
        # A table with a caption or group is one wherever its rows were found (two passages may each
        # hold part of it); one without is one run of rows.
        table = tables.setdefault((group.lower() if group else f"run {runs}", headers), [])
        if row.label.lower() not in {name.lower() for name, _ in table}:
            table.append((row.label, row))
        if group:
            by_line.setdefault((row.label.lower(), headers), []).append((group, row))
    groups = [*tables.values(), *by_line.values()]
    # A member is named once: a segment note's "Net sales" and "Operating income" under each segment
    # are no members of one table (by line, they are).
    return [g for g in groups if len(g) >= MIN_MEMBERS and len({name.lower() for name, _ in g}) == len(g)]


def _listed_group(
    items: list[frozenset[str]], rows: Sequence[Row], sentences: Sequence[Sentence]
) -> list[tuple[str, Row]]:
    """For each member listed, the row that is it: one whose label says the member's words (or,
    failing that, its group and label do), of the fewest other words; all with the same headers."""
    chosen: list[tuple[str, Row]] = []
    headers: tuple[str, ...] | None = None
    for words in items:
        fits = []
        for row in rows:
            heads = tuple(row_headers(sentences[row.scored.index].text))
            if not row.structured or not heads or headers not in (None, heads):
                continue
            label, head = label_terms(row.label), label_terms(row.head)
            if words <= head:
                fits.append(((words <= label, -len(head - words), row.scored.score), heads, row))
        if not fits:
            return []
        _, headers, row = max(fits, key=lambda fit: fit[0])
        chosen.append((row.label, row))
    return chosen


def _about(group: list[tuple[str, Row]]) -> list[list[str]]:
    """What a group is about beyond its members' names, as runs of words: its rows' groups (a
    table's caption, "Net sales by category") or, of a line across groups, the line's label."""
    return [_ordered_terms(row.head.replace(name, "|")) for name, row in group]


def _ordered_terms(text: str) -> list[str]:
    """The text's content words in order (as compose.terms cuts them), "|" where a word was taken out."""
    words = _TERM_OR_BREAK.findall(text.lower())
    return [w if w == "|" else w[:STEM_CHARS] for w in words if w == "|" or w not in STOPWORDS and len(w) > 2]


def _measure(question: str) -> list[list[str]]:
    """The runs of the question's words once what it asks of the members, their kind and the period
    are taken out: "operating income" of "Which segment had the highest operating income in 2024?"."""
    rest = KIND.sub(" | ", ASKING.sub(" | ", POSSESSIVE.sub(" | ", question)))
    return [run.split() for run in " ".join(_ordered_terms(rest)).split("|") if run.split()]


def _says(about: list[list[str]], measure: list[list[str]]) -> int:
    """The most words of one of the measure's runs that one of the group's runs holds in a row."""
    best = 0
    for run in measure:
        for words in about:
            for i in range(len(run)):
                for j in range(len(words)):
                    n = 0
                    while i + n < len(run) and j + n < len(words) and run[i + n] == words[j + n]:
                        n += 1
                    best = max(best, n)
    return best


def _members(
    question: str, group: list[tuple[str, Row]], asks: Superlative, sentences: Sequence[Sentence]
) -> list[Member]:
    """The group's members with their figures for the period asked (and the one before, for a
    change); none when a member has no such figure."""
    years, span, fiscal = asked_years(question), asked_span(question), change_columns(question)
    # A table of changes ("Year-over-year percentage growth (decline)") answers a change asked of
    # its period as printed; a percentage is compared only there.
    printed_change = asks.change and asks.percent and bool(_CHANGES.search(" ".join(r.head for _, r in group)))
    # "The lowest gross margin percentage" is of a row of percentages, not of the amounts beside it.
    percentages = printed_change or asks.percent and not asks.change
    out = []
    for name, row in group:
        read = cells(sentences[row.scored.index].text)
        now = column(read[1], years[-1] if years else None, span, fiscal) if read else None
        if read is None or now is None or percentages and not now[1].endswith("%"):
            return []
        value = value_of(now[1].removesuffix("%") if percentages else now[1])
        if value is None:
            return []
        if printed_change:
            out.append(Member(name, row.scored, now[0], now[1], value, printed_change=True))
            continue
        before = None
        if asks.change:
            later = years[-1] if years else max(header_years(now[0]), default=None)
            before = column(read[1], earlier_year(years, later), span, fiscal) if later else None
            if before is None or before[0] == now[0]:
                return []
        out.append(Member(name, row.scored, now[0], now[1], value, before))
    return out


def compared(
    question: str, asks: Superlative, rows: Sequence[Row], sentences: Sequence[Sentence]
) -> tuple[list[Scored], str] | None:
    """The rows of the members compared, and the line that names the largest (or smallest) with each
    member's figures (what `asks` reads of the question: shared/text/comparisons.py); none when no
    group of rows has a figure for each member."""
    wanted = label_terms(question)
    measure = _measure(question)
    items = [label_terms(item) for item in listed_members(question)]
    groups = _groups(rows, sentences)
    if items and (named := _listed_group(items, rows, sentences)):
        groups.append(named)
    elif items:
        # The members the question lists have no rows here: another group is not the one asked.
        return None
    enough = min(2, max((len(run) for run in measure), default=1))
    best: tuple[tuple[int, int, int, int, float], list[Member]] | None = None
    for group in groups:
        members = _members(question, group, asks, sentences)
        if len(members) < MIN_MEMBERS or any(m.metric(asks) is None for m in members):
            continue
        # The members a question lists ("Among operating, investing and financing activities").
        said_names = sum(any(words <= label_terms(row.head) for _, row in group) for words in items)
        listed_names = said_names if said_names >= MIN_MEMBERS else 0
        unlisted = sum(not any(words <= label_terms(row.head) for words in items) for _, row in group)
        about = _about(group)
        said = len({w for words in about for w in words} & wanted)
        runs = _says(about, measure)
        fit = (listed_names, -unlisted if listed_names else 0, runs, said, max(row.scored.score for _, row in group))
        # A group is the one asked when the question lists its members or says what they are of
        # ("net sales" of "Net sales by category"; not of "net income … operating activities").
        if (listed_names or runs >= enough) and (best is None or fit > best[0]):
            best = (fit, members)
    if best is None:
        return None
    members = best[1]
    pick = (max if asks.most else min)(members, key=lambda m: m.metric(asks) or 0.0)
    return [m.row for m in members], _line(asks, pick, members)


def _line(asks: Superlative, pick: Member, members: list[Member]) -> str:
    """ "**Services** has the largest increase (2023 to 2024) of the 5 rows compared below: …"."""
    metric = pick.metric(asks) or 0.0
    if asks.change:
        rises = metric > 0 if asks.most else metric >= 0
        size = ("largest" if asks.most == rises else "smallest") + (" increase" if rises else " decrease")
        what = f"{size}{' in percentage terms' if asks.percent else ''}"
    elif asks.used:
        what = "most cash used" if not asks.most else "least cash used"
    else:
        what = "highest figure" if asks.most else "lowest figure"
    period = f"{pick.before[0]} to {pick.header}" if asks.change and pick.before else pick.header
    listed = "; ".join(m.shown(asks) for m in members)
    return f"**{pick.name}** has the {what} ({period}) of the {len(members)} rows compared below: {listed}."
