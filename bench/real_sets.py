"""Evaluation sets of real public documents under evals/real/<name>/ (bench/answers.py reads them).

Each set yields `RealQuestion`s: the question, the files to tag, the gold figures, the evidence
pages and a dev/test split. Nothing here is tuned: evidence pages are derived mechanically from
the gold answer and the source files, so anyone can reproduce them.

`sec-10q` (docugami KG-RAG-datasets, MIT): single-filing questions only (a multi-filing question
has no single evidence page). Gold figures are the numbers of the reviewed answer that a filing
would print (amounts with thousands separators or decimals, percentages, integers ≥ 100 that are
not years). Evidence pages are the pages of the source filing whose text holds the largest number
of distinct gold figures (ties all count); a question whose figures appear on no page has no
evidence page and counts only for the measures that need none. Split by company, so no filing of a
test company is ever seen while tuning: dev = AAPL and AMZN, test = NVDA and INTC.

`sec-statements` (the way analysts ask about statements): questions written for this benchmark over
the same vendored filings, in the style of statement benchmarks ("What is Amazon's capital
expenditure for the nine months ended September 30, 2022 (in USD millions)? Give a response by
relying on the cash flow statement."; current ratios, margins and other figures to compute), in
evals/real/sec-10q/statement_questions.jsonl. Each question carries its evidence pages (the named
statement's page, or every page that prints that item's figure) and, for extraction questions, the
figures as the page prints them; computed questions count only for the evidence page. Split by
company as `sec-10q` is; the test questions were written by another engineer and never looked at
while tuning.

`sec-10k` (annual reports): two real 10-Ks (Apple FY2024, Tesla FY2023; 121 and 130 pages) under
evals/real/sec-10k/, with questions written for this benchmark from the PDFs alone, in the same form
as `sec-statements`: statement and note figures, figures to compute, and narrative questions (a
reason, a name, a policy) that count for the evidence page only. Dev = Apple, test = Tesla (written by
another engineer, never read while tuning); six more since (evals/real/sec-10k/README.md).

`sec-8k` (earnings releases): seven real results press releases (Form 8-K, Exhibit 99.1; a bank, a
utility, browser prints among them) under evals/real/sec-8k/, with questions written for this
benchmark from the PDFs alone, in the same form as `sec-10k`. Split by company.

`sec-fresh` (held out whole): three more filings (an insurer's 10-K, a 10-Q, a marketplace's 10-K)
under evals/real/sec-fresh/, questions in the same form, every one in the test split: a set no
round has tuned on, to confirm what earlier rounds settled after seeing their test splits.

`sec-analyst` (analysts' questions on fiscal calendars): three 10-Qs and three 10-Ks under
evals/real/sec-analyst/, five of them of companies whose fiscal year does not end in December (two
print in thousands), questions in the same form plus, for an extraction question asking another
unit than the statement prints ("Answer in USD billions"), the figure in that unit. Split by company;
the dev and test questions were written by two engineers, neither reading the other's.

`sec-metrics` (analysts' metrics): computed questions only, over six 10-Ks of `sec-10k` and
`sec-analyst` (none of another split's companies): formulas of several lines, with parentheses and
constants ("365 * (average accounts payable …) / (cost of sales)"), averages over years, shares
asked without an operator, average balances, changes and ratios named only by their common name.
The dev and test questions were written by two engineers, neither reading the other's.

`sec-compare` (which member is the largest): questions that ask which segment, category,
region, channel, activity or line of one table is the largest, the smallest or changed the most,
over filings of the sets above; the measure is the member named before any figure. The dev and
test questions were written by two engineers, neither reading the other's.

`sec-verdict` (yes/no judgements): questions an analyst answers yes or no over the same filings
(a sign, "positive working capital"; a bar, "a quick ratio above 1.0"; a trend, "an improving gross
margin profile"; a disclosure, "customer concentration"); the measures are the right verdict as the
answer's first word, and a wrong one. The dev and test questions were written by two engineers,
neither reading the other's.

The policy, regulation and standard sets are in bench/policy_sets.py.
"""

from __future__ import annotations

import csv
import fnmatch
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "evals" / "real"
SEC_SPLIT = {
    "AAPL": "dev",
    "AMZN": "dev",
    "MS": "dev",
    "PEP": "dev",
    "NVDA": "test",
    "INTC": "test",
    "TSLA": "test",
    "FDX": "test",
    "GOOGL": "test",
    "C": "dev",
    "CPK": "dev",
    "DNUT": "dev",
    "LPLA": "test",
    "DCH": "test",
    # sec-fresh: held out whole, for rounds that tuned on every other split.
    "PGR": "test",
    "QCOM": "test",
    "GCT": "test",
    # sec-analyst: dev and test companies written by two engineers, neither reading the other's.
    "LULU": "dev",
    "CSCO": "dev",
    "META": "test",
    "V": "test",
    "SANM": "test",
}

# $82,959 million · (1,577) · 12.5% · 0.82 · 1,024: a figure as a filing prints it.
_NUMBER = re.compile(r"(?<![\w.,])\(?\$?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\)?(\s?%)?")


@dataclass(frozen=True)
class RealQuestion:
    id: str
    question: str
    files: tuple[str, ...]
    split: str
    figures: tuple[str, ...] = ()
    evidence: dict[str, tuple[int, ...]] = field(default_factory=dict)
    answerable: bool = True
    # What a computed question's gold answer comes to ("28.1" of "About 28.1%: operating income …").
    computed: str | None = None
    # An extraction question that asks another unit than the filing prints: its figure in the unit
    # asked ("8.74" of "Answer in USD billions" where the balance sheet prints 8,738 in millions).
    in_unit: str | None = None
    # A question that asks which member of a table is the largest, the smallest or changed the most:
    # the member, as the filing prints its row's label.
    winner: str | None = None
    # A yes/no question an analyst asks ("Does Apple have positive working capital?"): "yes" or "no".
    verdict: str | None = None

    @property
    def extraction(self) -> bool:
        """A question whose gold answer states figures (or a phrase): it must appear in our answer."""
        return bool(self.figures)


def normalise(text: str) -> str:
    text = text.replace("‘", "'").replace("’", "'").replace("“", '"').replace("”", '"')
    return " ".join(text.split()).lower()


def states(text: str, fact: str) -> bool:
    """The text states the fact: a figure as a whole number, a phrase word for word."""
    if re.fullmatch(r"[\d,.]+%?", fact):
        return has_figure(text, fact)
    return normalise(fact) in normalise(text)


def gold_figures(answer: str) -> tuple[str, ...]:
    """The figures of a gold answer, as printed in a filing (digits, separators, decimals)."""
    found: list[str] = []
    for match in _NUMBER.finditer(answer):
        whole, decimals, percent = match.group(1), match.group(2) or "", match.group(3)
        plain = int(whole.replace(",", ""))
        if not decimals and not percent and "," not in whole and (plain < 100 or 1900 <= plain <= 2100):
            continue  # small counts, quarter numbers and years are not figures of a statement
        found.append(whole + decimals + ("%" if percent else ""))
    return tuple(dict.fromkeys(found))


# A computed answer's result: "About 0.94: …", "… = about 1.87x", "… = $108,807M for FY2024".
_RESULT = re.compile(r"(?:\babout\b|=)\s*(-)?\s*\$?\s*(-)?(\d[\d,]*(?:\.\d+)?)", re.I)


def computed_figure(answer: str) -> str | None:
    """The figure a computed question's gold answer comes to: after its first "about", else after
    its last "="; none when it states neither."""
    found = list(_RESULT.finditer(answer))
    about = [m for m in found if m.group(0)[:1].lower() == "a"]
    match = about[0] if about else (found[-1] if found else None)
    if match is None:
        return None
    return ("-" if match.group(1) or match.group(2) else "") + match.group(3).replace(",", "")


def has_computed(text: str, figure: str) -> bool:
    """The text states the computed figure, within a unit of its last digit (rounding) or 0.2 %."""
    gold = float(figure)
    decimals = len(figure.partition(".")[2])
    tolerance = max(10.0**-decimals, abs(gold) * 0.002) * 1.001
    numbers = re.findall(r"(?<![\d.])-?\d[\d,]*(?:\.\d+)?", text)
    # Magnitudes: "declined by about 1.4%" is a change of -1.4 %.
    return any(abs(abs(float(n.replace(",", ""))) - abs(gold)) <= tolerance for n in numbers)


def names_first(text: str, winner: str) -> bool:
    """The answer names the member asked for before it states any figure: "**Services** has the
    largest increase …" names it; a list of every member's row quoted alike does not, unless that
    member's comes first."""
    said = normalise(text)
    at = said.find(normalise(winner))
    figure = re.search(r"\d", said)
    return at >= 0 and (figure is None or at < figure.start())


_FIRST_WORD = re.compile(r"[a-z]+")


def verdict_of(text: str) -> str | None:
    """The verdict an answer opens with: "yes" or "no" as its first word ("**No**: working capital
    is negative …"); none when it opens otherwise (a quoted row, a sentence)."""
    first = _FIRST_WORD.search(normalise(text))
    word = first.group(0) if first else None
    return word if word in ("yes", "no") else None


def has_figure(text: str, figure: str) -> bool:
    """The figure occurs as a whole number in the text (82,959 is not found inside 182,959; 3% as 3% or 3 %)."""
    number = re.escape(figure.removesuffix("%")) + (r"\s?%" if figure.endswith("%") else "")
    return re.search(rf"(?<![\d,.]){number}(?![\d]|,\d|\.\d)", text) is not None


def page_texts(path: Path) -> list[str]:
    """Plain text of each page, by MuPDF's default extraction (independent of our parser)."""
    with pymupdf.open(path) as doc:
        return [" ".join(page.get_text().split()) for page in doc]


def evidence_pages(pages: list[str], figures: tuple[str, ...]) -> tuple[int, ...]:
    counts = [sum(has_figure(text, f) for f in figures) for text in pages]
    best = max(counts, default=0)
    return tuple(i + 1 for i, c in enumerate(counts) if best and c == best)


def sec_10q(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    folder = REAL / "sec-10q"
    files = {p.name: p for p in sorted((folder / "docs").glob("*.pdf"))}
    texts: dict[str, list[str]] = {}
    questions = []
    with (folder / "qna_data.csv").open(encoding="utf-8-sig", newline="") as handle:
        for row_number, row in enumerate(csv.DictReader(handle), 1):
            if row["Question Type"] == "Multi-Doc RAG":
                continue
            matched = fnmatch.filter(files, row["Source Docs"].strip())
            if len(matched) != 1:
                continue  # the filing is not vendored (or the pattern is ambiguous)
            name = matched[0]
            company = name.removesuffix(".pdf").split()[-1]
            figures = gold_figures(row["Answer"])
            if name not in texts:
                texts[name] = page_texts(files[name])
            evidence = evidence_pages(texts[name], figures)
            questions.append(
                RealQuestion(
                    id=f"q{row_number:03d}",
                    question=row["Question"].strip(),
                    files=(name,),
                    split=SEC_SPLIT[company],
                    figures=tuple(f for f in figures if any(has_figure(t, f) for t in texts[name])),
                    evidence={name: evidence} if evidence else {},
                )
            )
    return questions, files


def written_questions(
    folder: Path, *names: str, docs: tuple[Path, ...] = ()
) -> tuple[list[RealQuestion], dict[str, Path]]:
    """Questions written for this benchmark over the filings of the folder (or of `docs`), one JSON
    object a line, in the files named.

    A line names its filing, evidence pages and (for an extraction question) the figures as printed;
    the split is the filing's company's, so that no test company's filing is read while tuning.
    """
    files = {p.name: p for where in docs or (folder / "docs",) for p in sorted(where.glob("*.pdf"))}
    lines = [line for name in names for line in (folder / name).read_text().splitlines() if line.strip()]
    questions = []
    for line in lines:
        row = json.loads(line)
        company = next(word for word in row["file"].removesuffix(".pdf").split() if word in SEC_SPLIT)
        questions.append(
            RealQuestion(
                id=row["id"],
                question=row["question"],
                files=(row["file"],),
                split=SEC_SPLIT[company],
                figures=tuple(row["figures"]),
                evidence={row["file"]: tuple(row["evidence"])},
                computed=computed_figure(row.get("answer", "")) if row.get("kind") == "computed" else None,
                in_unit=row.get("unit_figure"),
                winner=row.get("winner"),
                verdict=row.get("verdict"),
            )
        )
    return questions, files


def sec_statements(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    return written_questions(folder_of("sec-statements"), "statement_questions.jsonl")


def sec_10k(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    return written_questions(REAL / "sec-10k", "questions.jsonl")


def sec_8k(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    return written_questions(REAL / "sec-8k", "questions.jsonl")


def sec_fresh(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    return written_questions(REAL / "sec-fresh", "questions.jsonl")


def sec_analyst(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    return written_questions(REAL / "sec-analyst", "questions.jsonl")


def sec_metrics(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    """Analysts' metrics over the annual reports of `sec-10k` and `sec-analyst`, each split written by
    another engineer (evals/real/sec-metrics/README.md)."""
    docs = (REAL / "sec-10k" / "docs", REAL / "sec-analyst" / "docs")
    return written_questions(REAL / "sec-metrics", "dev.jsonl", "test.jsonl", docs=docs)


def sec_verdict(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    """Yes/no questions analysts ask (a sign, a bar, a trend, a disclosure), over filings of the
    other sets; each split written by another engineer (evals/real/sec-verdict/README.md)."""
    docs = tuple(REAL / name / "docs" for name in ("sec-10k", "sec-analyst", "sec-8k", "sec-10q"))
    return written_questions(REAL / "sec-verdict", "dev.jsonl", "test.jsonl", docs=docs)


def sec_compare(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    """Which member of a table is the largest, the smallest or changed the most, over filings of
    the other sets; each split written by another engineer (evals/real/sec-compare/README.md)."""
    docs = tuple(REAL / name / "docs" for name in ("sec-10k", "sec-analyst", "sec-8k", "sec-10q"))
    return written_questions(REAL / "sec-compare", "dev.jsonl", "test.jsonl", docs=docs)


SETS: dict[str, Callable[[Path], tuple[list[RealQuestion], dict[str, Path]]]] = {
    "sec-10q": sec_10q,
    "sec-statements": sec_statements,
    "sec-10k": sec_10k,
    "sec-8k": sec_8k,
    "sec-fresh": sec_fresh,
    "sec-analyst": sec_analyst,
    "sec-metrics": sec_metrics,
    "sec-compare": sec_compare,
    "sec-verdict": sec_verdict,
}


def folder_of(name: str) -> Path:
    """Where a set's files live (the statement questions ask about the sec-10q filings)."""
    return REAL / ("sec-10q" if name == "sec-statements" else name)
