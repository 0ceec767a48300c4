"""Evaluation sets of public policies, regulations, standards and documentation under
evals/real/<name>/ (bench/answers.py reads them; the filings' sets are in bench/real_sets.py).

`gdpr` (closer to our users): 24 articles of Regulation (EU) 2016/679, as text under
evals/real/gdpr/ (EUR-Lex reuse notice there), turned into a PDF at run time the way the
synthetic set is (examples/eval/make_eval_pdfs.py), with 30 questions written for this benchmark
(6 that the articles do not answer). The gold fact is a verbatim phrase of the answering provision;
evidence pages are the pages of the generated PDF that hold it. Split by question id
(shared/eval_split.py); the test questions were written with the rest, before any run, and are
not looked at while tuning.

`policyqa` (closest to our users: real privacy notices): a lean subset of PolicyQA (Ahmad et al.,
EMNLP Findings 2020, MIT) under evals/real/policyqa/ (provenance and the script that drew it there):
12 websites' privacy policies and 8 crowd questions each, whose gold answer is a span an expert
marked in the policy. Each policy becomes a PDF at run time as the gdpr articles do; the gold fact is
the span, evidence pages are the pages that hold it. Split by policy as upstream splits them: dev =
upstream dev policies, test = upstream test policies (never looked at while tuning).

The written sets below are one folder each, its files under docs/ and its questions in
questions.jsonl, written here. The gold fact of a question is a phrase the document prints; its
evidence pages are the pages citations point at that hold it: a PDF's own, or those of the rendition
the ingest lays any other file out as (services/ingest/rendition.py). Split by document; each set's
README says which documents were read while tuning and which questions were run once.

`policy-tables`: compliance PDFs whose answers sit in ruled tables of words (NIST, HHS, OWASP).
`policy-office`: Word documents and a workbook of GSA's FedRAMP Tailored programme.
`policy-markdown`: Markdown documentation of two CISA tools, their answers in pipe tables and prose.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pymupdf

from bench.real_sets import REAL, RealQuestion, page_texts, states
from examples.eval.make_eval_pdfs import build_pdf
from services.ingest.rendition import to_pdf
from shared.documents.filetype import sniff_type
from shared.eval_split import split_of


def gdpr(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    """`work`: where the generated PDF goes (the caller removes it)."""
    folder = REAL / "gdpr"
    pdf = work / "GDPR selected articles.pdf"
    build_pdf(folder / "gdpr-selected-articles.txt", pdf, "General Data Protection Regulation (selected articles)")
    pages = page_texts(pdf)
    questions = []
    for line in (folder / "questions.jsonl").read_text().splitlines():
        row = json.loads(line)
        answer = row["answer"]
        evidence = tuple(i + 1 for i, text in enumerate(pages) if answer and states(text, answer))
        questions.append(
            RealQuestion(
                id=row["id"],
                question=row["question"],
                files=(pdf.name,),
                split=split_of(row["id"]),
                figures=(answer,) if answer else (),
                evidence={pdf.name: evidence} if evidence else {},
                answerable=answer is not None,
            )
        )
    return questions, {pdf.name: pdf}


def policyqa(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    """`work`: where the generated PDFs go (the caller removes it)."""
    folder = REAL / "policyqa"
    files: dict[str, Path] = {}
    pages: dict[str, list[str]] = {}
    questions = []
    for line in (folder / "questions.jsonl").read_text().splitlines():
        row = json.loads(line)
        name = f"{row['policy']} privacy policy.pdf"
        if name not in files:
            files[name] = work / name
            build_pdf(folder / "policies" / f"{row['policy']}.txt", files[name], f"{row['policy']} Privacy Policy")
            pages[name] = page_texts(files[name])
        evidence = tuple(i + 1 for i, text in enumerate(pages[name]) if states(text, row["answer"]))
        questions.append(
            RealQuestion(
                id=row["id"],
                question=row["question"],
                files=(name,),
                split=row["split"],
                figures=(row["answer"],),
                evidence={name: evidence} if evidence else {},
            )
        )
    return questions, files


def rendition_texts(path: Path) -> list[str]:
    """Plain text of each page of the PDF the ingest lays a non-PDF file out as: a run of an older
    checkout counts evidence on the pages its own rendition made (services/ingest/rendition.py). Its
    fonts print "fi" as a ligature, which is read as the two letters the questions' phrases have."""
    flags = pymupdf.TEXTFLAGS_TEXT & ~pymupdf.TEXT_PRESERVE_LIGATURES
    data = path.read_bytes()
    with pymupdf.open("pdf", to_pdf(data, sniff_type(data, path.name), max_pages=2000)) as doc:
        return [" ".join(page.get_text(flags=flags).split()) for page in doc]


def document_texts(path: Path) -> list[str]:
    """The pages citations point at: a PDF's own, or the rendition's of any other file."""
    return page_texts(path) if path.suffix.lower() == ".pdf" else rendition_texts(path)


def written_set(
    folder: Path, suffixes: tuple[str, ...], pages_of: Callable[[Path], list[str]]
) -> tuple[list[RealQuestion], dict[str, Path]]:
    """Documents of `folder` and the questions written for them (its questions.jsonl): the gold fact
    is a phrase the document prints, the evidence pages are those that hold it; split by document."""
    files = {p.name: p for p in sorted((folder / "docs").iterdir()) if p.suffix in suffixes}
    pages = {name: pages_of(path) for name, path in files.items()}
    questions = []
    for line in (folder / "questions.jsonl").read_text().splitlines():
        row = json.loads(line)
        evidence = tuple(i + 1 for i, text in enumerate(pages[row["file"]]) if states(text, row["answer"]))
        questions.append(
            RealQuestion(
                id=row["id"],
                question=row["question"],
                files=(row["file"],),
                split=row["split"],
                figures=(row["answer"],),
                evidence={row["file"]: evidence} if evidence else {},
            )
        )
    return questions, files


def policy_tables(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    """Public compliance PDFs whose answers sit in ruled tables of words (evals/real/policy-tables/README.md)."""
    return written_set(REAL / "policy-tables", (".pdf",), page_texts)


def policy_office(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    """Public Word and Excel documents whose answers sit in their tables and prose
    (evals/real/policy-office/README.md)."""
    return written_set(REAL / "policy-office", (".docx", ".xlsx"), document_texts)


def policy_markdown(work: Path) -> tuple[list[RealQuestion], dict[str, Path]]:
    """Public Markdown documentation whose answers sit in its pipe tables and prose
    (evals/real/policy-markdown/README.md)."""
    return written_set(REAL / "policy-markdown", (".md",), document_texts)


SETS: dict[str, Callable[[Path], tuple[list[RealQuestion], dict[str, Path]]]] = {
    "gdpr": gdpr,
    "policyqa": policyqa,
    "policy-tables": policy_tables,
    "policy-office": policy_office,
    "policy-markdown": policy_markdown,
}
