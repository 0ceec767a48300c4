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
"""

from __future__ import annotations

import csv
import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

ROOT = Path(__file__).resolve().parent.parent
REAL = ROOT / "evals" / "real"
SEC_SPLIT = {"AAPL": "dev", "AMZN": "dev", "NVDA": "test", "INTC": "test"}

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

    @property
    def extraction(self) -> bool:
        """A question whose gold answer states figures: the figure must appear in our answer."""
        return bool(self.figures)


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


def sec_10q(folder: Path | None = None) -> tuple[list[RealQuestion], dict[str, Path]]:
    folder = folder or REAL / "sec-10q"
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


SETS = {"sec-10q": sec_10q}


def load(name: str) -> tuple[list[RealQuestion], dict[str, Path]]:
    if name not in SETS:
        raise SystemExit(f"unknown set {name!r}; sets: {', '.join(SETS)}")
    return SETS[name]()
