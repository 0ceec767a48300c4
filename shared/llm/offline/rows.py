"""The table row a question about an amount names: its figure is the answer.

"What was the total revenue from iPhone sales?" is answered by the statement's row "Net sales by
category: iPhone — Three Months Ended July 1, 2023: 39,669 · …", not by the narrative sentence
that explains why iPhone sales fell. A small embedder ranks the narrative higher: a row's column
headers and figures say nothing about its topic and drown its label in the row's vector. So an
amount question is matched to rows by their labels' words instead: the row whose label the question
names best (and a second row of another line item it names) leads the answer, and the ranked
sentences follow (shared/llm/offline/compose.py).

Words every statement's labels share ("Total net sales", "Other income, net") name no line item
on their own, so they neither make nor break a match; a table of contents ("Financial Statements
— 3.") is not a table of figures. A row may be a recognised table's row sentence or a row printed
inside a statement's text run together (shared/text/tables.py): a statement page's text and its
row sentences often land in different passages, and only one of them may be retrieved.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from shared.llm.offline.compose import QUANTITY_QUESTION, Scored, terms
from shared.llm.schemas import Passage
from shared.text.formulas import Part
from shared.text.pages import page_of_sentence, page_pieces
from shared.text.periods import asked_span, span_fit
from shared.text.ratios import UNNAMING
from shared.text.search_query import asks_reason, expand
from shared.text.sentences import Sentence
from shared.text.statements import named_statements, statement_titled
from shared.text.tables import contents_line, header_row, lines_with_rows, printed_rows, row_head, row_parts
from shared.text.years import column_years

GENERIC_LABEL_WORDS = frozenset({"total", "net", "other", "less", "plus"})
OTHER = "other"
# "Other current assets", "Total other income": a line of other items ("Accounts receivable, net and
# other" is the receivables).
_OTHER = re.compile(r"^\s*(?:total\s+)?other\b", re.I)
# Cash paid out, as statements label it and as people ask it: "Payments for acquisition of
# property, plant and equipment", "Purchases of property and equipment", "what did it spend on",
# "cash paid for income taxes" all name the same kind of line (stems as compose.terms cuts them).
PAID_OUT = frozenset({"purcha", "paymen", "acquis", "paid", "pays", "spend", "spent", "bought"})
NAMED_SHARE = 2 / 3
MAX_NAMED_ROWS = 2


@dataclass(frozen=True)
class Row:
    """A row among an answer's candidates: its sentence's score, text, label, group and label, and
    its passage's page (`structured`: a recognised table's row, whose headers and group are known)."""

    scored: Scored
    text: str
    label: str
    head: str
    structured: bool
    page: int | None


@dataclass(frozen=True)
class Named:
    """A row the question names, the words of its line item and of its whole label, and the
    question's words its label says ("net" too, "total" not)."""

    row: Scored
    item: frozenset[str]
    label: frozenset[str]
    says: frozenset[str]
    # The question's words its group and label say ("AWS" of "AWS: Operating income").
    context: frozenset[str] = frozenset()

    def part_named(self, parts: list[list[frozenset[str]]]) -> int | None:
        """Which of `parts` (each the labels of one line) the row is: one whose label it says whole
        ("Total net sales" for "net sales", not "Cost of sales"), or, failing that, one that says its
        whole line item of two words or more ("Purchases of property and equipment" among the ways
        statements name capex). The part it says most of wins: "Provision for income taxes" is that
        line, not also "income before income taxes" (whose words it holds). A row of "other" items is
        no line but one that says "other" itself."""
        said = [
            ((label <= self.label, len(label & self.label)), i)
            for i, labels in enumerate(parts)
            for label in labels
            if (label <= self.label or (len(self.item) >= 2 and self.item <= label))
            and (OTHER in label or OTHER not in self.label)
        ]
        return max(said)[1] if said else None


def table_groups(sentences: Sequence[Sentence]) -> dict[int, str]:
    """The group each row without one takes from the other rows of its table.

    A table printed without row headers comes as a caption glued to one of its rows, the first or
    the last ("Operating income by segment is as follows (in millions): Consolidated — 68,593 ·
    79,975.") and bare rows beside it ("AWS — 39,834 · 45,606."): the rows of one passage in a row,
    with as many cells. A bare row takes the group of the nearest row of its table above it that has
    one, else of the nearest below.
    """
    tables: list[list[tuple[int, str]]] = []
    width: dict[int, int] = {}
    for i, sentence in enumerate(sentences):
        head = row_head(sentence.text)
        if head is None:
            continue
        width[i] = len(row_parts(sentence.text) or ())
        last = tables[-1][-1][0] if tables else -2
        if last == i - 1 and sentences[last].chunk_index == sentence.chunk_index and width[last] == width[i]:
            tables[-1].append((i, head))
        else:
            tables.append([(i, head)])
    groups: dict[int, str] = {}
    for table in tables:
        own = [head.rsplit(": ", 1)[0] if ": " in head else None for _, head in table]
        for at, (i, _) in enumerate(table):
            if own[at] is not None:
                continue
            above = next((g for g in reversed(own[:at]) if g), None)
            group = above or next((g for g in own[at + 1 :] if g), None)
            if group:
                groups[i] = group
    return groups


def rows_of(
    sentences: Sequence[Sentence], scored: list[Scored], passages: Sequence[Passage], *, floor: float
) -> tuple[list[Sentence], list[Row]]:
    """The rows among the candidates and in the passages' lines, and the sentences with each printed
    row added as a sentence of its own.

    A printed row ("Repurchases of common stock (19,475) (20,478)" in the run of a whole financing
    section, or "Cash and cash equivalents $ 53,888 $ 49,529" on a line of its own, too short to be
    a candidate sentence) is quoted as printed and scored as its passage's best sentence, or as
    the least relevant candidate at the floor when the passage has none (a balance sheet's lines are
    all too short to be one). A table of contents' line and a header line read as a row are no rows.
    """
    extended = list(sentences)
    found: list[Row] = []
    best: dict[int, Scored] = {}
    groups = table_groups(sentences)
    for s in scored:
        chunk, text = sentences[s.index].chunk_index, sentences[s.index].text
        if chunk not in best or s.score > best[chunk].score:
            best[chunk] = s
        parts = row_parts(text)
        if parts and not contents_line(text) and not header_row(parts):
            head = row_head(text) or parts[0]
            head = f"{groups[s.index]}: {head}" if s.index in groups else head
            found.append(Row(s, text, parts[0], head, True, page_of(passages[chunk], text)))
    least = Scored(0, floor, min((s.score for s in scored), default=0.0), frozenset())
    for chunk, passage in enumerate(passages):
        seen: set[str] = set()
        years_line = ""
        for line in lines_with_rows([" ".join(line.split()) for line in passage.text.splitlines() if line.strip()]):
            # A line of years heads the rows printed under it, until prose ends its table.
            if column_years(line):
                years_line = line
            elif line.endswith(".") and not printed_rows(line):
                years_line = ""
            if row_parts(line):
                continue
            for label, printed in printed_rows(line):
                if printed not in seen:
                    seen.add(printed)
                    extended.append(Sentence(chunk, printed, alone=True, years_line=years_line))
                    as_scored = replace(best.get(chunk, least), index=len(extended) - 1)
                    found.append(Row(as_scored, printed, label, label, False, page_of(passage, printed)))
    return extended, found


def page_of(passage: Passage, text: str) -> int | None:
    """The page a row of the passage is printed on (a passage may run over a page break)."""
    return None if passage.page is None else page_of_sentence(passage.text, passage.page, passage.page_breaks, text)


def statement_pages(question: str, passages: Sequence[Passage]) -> set[int]:
    """The pages of the statements the question names: those the search found titled (the title may
    sit in a chunk not retrieved) and those whose titles the passages show (a page titling several
    is a table of contents, none of them)."""
    named = named_statements(question)
    titled = {
        page
        for p in passages
        if p.page is not None
        for page, text in page_pieces(p.text, p.page, p.page_breaks)
        if statement_titled(text) in named
    }
    return titled | {page for p in passages for page in p.statement_pages}


def label_terms(text: str) -> frozenset[str]:
    """The text's terms, the words for cash paid out read as one, and "other" where it opens the
    label (a stop word to the search, but "Other current assets" is not the current assets)."""
    found = frozenset("paid" if t in PAID_OUT else t for t in terms(text))
    return found | {OTHER} if _OTHER.search(text) else found


def item_words(label: str) -> frozenset[str]:
    """The line item a row's label names: its words beyond the generic ones."""
    return label_terms(label) - GENERIC_LABEL_WORDS


def named_rows(
    question: str,
    rows: list[Row],
    *,
    floor: float,
    statement_pages: set[int],
    direct: frozenset[str] = frozenset(),
    titled: frozenset[str] = frozenset(),
) -> list[Named]:
    """The rows whose line item the question names, best named first.

    A line item is named when the question holds at least NAMED_SHARE of its words ("cash from
    operating activities" names "Cash generated by operating activities"), and not only by the
    words that name the document (`titled`, document_names.naming_terms): a document's title
    printed as its first line with a version ("Apache License 2.0", "Data Retention Policy 2.0")
    reads as a row, and "How many months are records kept under the retention policy?" names it
    no more than any other line of the policy. A row with more of its
    words named ranks first ("Cash generated by operating activities" over a marketable-securities
    table's "Cash"); then one whose group and label hold more of the question's words ("Net sales
    by category: iPhone" over "Total net sales" for "the total revenue from iPhone sales"); then one
    on the page of a statement the question names ("according to the balance sheet": the balance
    sheet's cash, not the same line in a note); then one with a column for the span asked (the
    quarter's net income in the income statement over the half-year's in the cash flow statement);
    then a recognised table's row over a printed one (its headers say which column is which); then
    one whose group holds fewer words the question does not say ("Operating income" over
    "Americas: Operating income" for the company's).
    """
    wanted = label_terms(question)
    span = asked_span(question)
    ranked: list[tuple[tuple[bool, float, int, bool, int, bool, int, float], Named]] = []
    for row in rows:
        item = item_words(row.label)
        if not item or row.scored.similarity < floor:
            continue
        hits = len(item & wanted)
        if hits < NAMED_SHARE * len(item) or item & wanted <= titled:
            continue
        # A caption's years ("… for 2024, 2023 and 2022") say which columns it prints, not which line.
        head = frozenset(t for t in label_terms(row.head) - GENERIC_LABEL_WORDS if not t.isdigit())
        said, unsaid = len(head & wanted), len(head - wanted)
        key = (
            item <= direct,
            hits * hits / len(item),
            said,
            row.page in statement_pages,
            span_fit(row.text, span),
            row.structured,
            -unsaid,
            row.scored.score,
        )
        label = label_terms(row.label)
        named = Named(row.scored, item, label, (label & wanted) - UNNAMING, (head | item) & wanted)
        ranked.append((key, named))
    return [named for _, named in sorted(ranked, key=lambda r: r[0], reverse=True)]


def asks_amount(question: str) -> bool:
    """The question asks how much of something there was, not why."""
    return bool(QUANTITY_QUESTION.search(question)) and not asks_reason(question)


def part_labels(part: Part) -> list[frozenset[str]]:
    """The labels a line may have, as words ("total" not): each as written, and its abbreviations and
    line items in the statements' words ("revenue" is "net sales"), alone and beside it ("capex" with
    "purchases of property and equipment")."""
    labels = []
    for label in part:
        spelled = " ".join(expand(label, parts=False))
        labels += [label, spelled, f"{label} {spelled}"] if spelled else [label]
    return [label_terms(label) - UNNAMING for label in labels]


def parts_labels(parts: Sequence[Part]) -> list[list[frozenset[str]]]:
    """Each part's labels (part_labels), less those that another part is called as written ("cost of
    revenues" spelled out says "net sales", which is the sales line, not the cost of it) and those
    that say only that cash was paid ("payments for PP&E" read without its abbreviation)."""
    written = [{label_terms(label) - UNNAMING for label in part} for part in parts]
    return [
        [
            label
            for label in part_labels(part)
            if label - {"paid"} and not any(label in own for j, own in enumerate(written) if j != i)
        ]
        for i, part in enumerate(parts)
    ]


def lead_rows(ranked: list[Named], parts: list[list[frozenset[str]]]) -> list[Scored]:
    """The rows that lead an answer: the best named, then the best that says a word of the question
    the lead does not ("Advertising services" after "Net service sales" for "advertising services
    net sales"; never the same item again); for the `parts` of a ratio or a definition (each the
    labels of one line), the best row of a part not yet led (gross margin: "Cost of sales", then
    "Total net sales"; operating margin: "Operating income", then "Total net sales", not a "Net
    income" that says "net")."""
    lead = [ranked[0]]
    led_parts = {ranked[0].part_named(parts)}
    for named in ranked[1:]:
        if len(lead) == MAX_NAMED_ROWS:
            break
        if parts:
            part = named.part_named(parts)
            new = part is not None and part not in led_parts
        else:
            new = bool(named.says - frozenset().union(*(led.says for led in lead)))
        if new:
            lead.append(named)
            led_parts.add(named.part_named(parts))
    return [named.row for named in lead]
