"""Build the evaluation corpus: public licence texts (plain text) → multi-page PDFs.

    .venv/bin/python examples/eval/make_eval_pdfs.py [OUT_DIR]

The texts in `examples/eval/texts/` are verbatim copies of licence files: from installed wheels
(Apache-2.0 from requests, MIT from pydantic, BSD-3-Clause from psutil, the Python/PSF licence
stack from typing_extensions, MPL-2.0 from orjson, LGPL-3.0 from psycopg), from Debian's
/usr/share/common-licenses (GPL 1/2/3, LGPL-2.1, GFDL-1.3, Artistic, CC0-1.0, MPL-1.1), and
Debian's copyright file of openjdk-17 (the GPL with the Classpath exception and ~40 third-party
notices; its " ." paragraph markers became blank lines) — the long document, 44 pages. Licence
texts may be copied verbatim. `cloud-security-standard.txt` is a one-page company standard of
five short numbered sections written for the evaluation (the shape of issue #16's first report).
Short lines without a final full stop become headings (so ingestion detects sections); other
blocks become paragraphs. The corpus also includes the six example documents in `examples/`
(company policies, guideline editions, a regulation extract, a marketing email), already PDFs.
The PDFs are generated at bench and test time (nothing large is committed).

`bench/retrieval_eval.py` calls `build_corpus()`; questions and answers are in
`examples/eval/questions.json`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent

# slug → (title, source, doc_type)
DOCUMENTS: dict[str, tuple[str, str, str]] = {
    "apache-2.0": ("Apache License 2.0", "texts/apache-2.0.txt", "regulatory_source"),
    "mit": ("MIT License", "texts/mit.txt", "regulatory_source"),
    "bsd-3-clause": ("BSD 3-Clause License", "texts/bsd-3-clause.txt", "regulatory_source"),
    "psf-2.0": ("Python Software Foundation License", "texts/psf-2.0.txt", "regulatory_source"),
    "mpl-2.0": ("Mozilla Public License 2.0", "texts/mpl-2.0.txt", "regulatory_source"),
    "lgpl-3.0": ("GNU Lesser General Public License v3", "texts/lgpl-3.0.txt", "regulatory_source"),
    "gpl-3.0": ("GNU General Public License v3", "texts/gpl-3.0.txt", "regulatory_source"),
    "gpl-2.0": ("GNU General Public License v2", "texts/gpl-2.0.txt", "regulatory_source"),
    "gpl-1.0": ("GNU General Public License v1", "texts/gpl-1.0.txt", "regulatory_source"),
    "lgpl-2.1": ("GNU Lesser General Public License v2.1", "texts/lgpl-2.1.txt", "regulatory_source"),
    "gfdl-1.3": ("GNU Free Documentation License 1.3", "texts/gfdl-1.3.txt", "regulatory_source"),
    "artistic-1.0": ("Artistic License 1.0", "texts/artistic-1.0.txt", "regulatory_source"),
    "cc0-1.0": ("Creative Commons CC0 1.0 Universal", "texts/cc0-1.0.txt", "regulatory_source"),
    "mpl-1.1": ("Mozilla Public License 1.1", "texts/mpl-1.1.txt", "regulatory_source"),
    "openjdk-17-notices": (
        "OpenJDK 17 Licence and Third-Party Notices",
        "texts/openjdk-17-notices.txt",
        "regulatory_source",
    ),
    "cloud-security-standard": (
        "Northwind Cloud Security Standard",
        "texts/cloud-security-standard.txt",
        "company_policy",
    ),
    "aml-policy": ("Anti-Money Laundering Policy", "../aml-policy.pdf", "company_policy"),
    "capital-requirements-guideline-2023": (
        "Capital Requirements Guideline 2023",
        "../capital-requirements-guideline-2023.pdf",
        "regulatory_source",
    ),
    "capital-requirements-guideline-2025": (
        "Capital Requirements Guideline 2025",
        "../capital-requirements-guideline-2025.pdf",
        "regulatory_source",
    ),
    "marketing-email": ("Spring Savings Campaign Email", "../marketing-email.pdf", "company_policy"),
    "data-retention-policy": ("Northwind Data Retention Policy", "../data-retention-policy.pdf", "company_policy"),
    "storage-limitation-regulation": (
        "Regulation on Personal Data Processing",
        "../storage-limitation-regulation.pdf",
        "regulatory_source",
    ),
}
UNDERLINE = re.compile(r"^\s*[=\-~*]{3,}\s*$")


def blocks(text: str) -> list[tuple[str, str]]:
    """(kind, text) pairs: 'heading' or 'paragraph', in reading order."""
    out = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.splitlines() if line.strip() and not UNDERLINE.match(line)]
        if not lines:
            continue
        joined = " ".join(" ".join(line.split()) for line in lines)
        heading = len(lines) == 1 and len(joined) < 70 and not joined.endswith((".", ",", ";", ":"))
        out.append(("heading" if heading else "paragraph", joined))
    return out


def build_pdf(source: Path, target: Path, title: str) -> None:
    styles = getSampleStyleSheet()
    story = [Paragraph(escape(title), styles["Title"])]
    for kind, text in blocks(source.read_text()):
        if kind == "heading":
            story += [Spacer(1, 6), Paragraph(escape(text), styles["Heading2"])]
        else:
            story.append(Paragraph(escape(text), styles["BodyText"]))
    SimpleDocTemplate(str(target), pagesize=A4, title=title).build(story)


def build_corpus(out_dir: Path) -> dict[str, Path]:
    """Every evaluation document as a PDF in `out_dir`; returns slug → path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {}
    for slug, (title, source, _) in DOCUMENTS.items():
        src = (HERE / source).resolve()
        if src.suffix == ".pdf":
            paths[slug] = src
            continue
        target = out_dir / f"{slug}.pdf"
        build_pdf(src, target, title)
        paths[slug] = target
    return paths


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "pdfs"
    for slug, path in build_corpus(out).items():
        print(f"{slug:<32}{path}")


if __name__ == "__main__":
    main()
