"""Build the example PDFs in `examples/` from the texts in `examples/texts/` (reportlab).

Each `.md` text becomes a multi-page PDF: lines starting with `# ` are set as headings (larger
font) so ingestion can detect sections; paragraphs flow across pages.
"""

from __future__ import annotations

import sys
from pathlib import Path

from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

HERE = Path(__file__).parent


def build(source: Path, target: Path) -> None:
    styles = getSampleStyleSheet()
    story = []
    title, *body = source.read_text().strip().split("\n\n")
    story.append(Paragraph(title.lstrip("# ").strip(), styles["Title"]))
    for block in body:
        block = block.strip()
        if block.startswith("# "):
            story.append(Spacer(1, 8))
            story.append(Paragraph(block[2:], styles["Heading2"]))
        else:
            story.append(Paragraph(" ".join(block.split()), styles["BodyText"]))
    SimpleDocTemplate(str(target), pagesize=A4, title=title.lstrip("# ")).build(story)


def main() -> None:
    for source in sorted((HERE / "texts").glob("*.md")):
        target = HERE / f"{source.stem}.pdf"
        build(source, target)
        print(target)


if __name__ == "__main__":
    sys.exit(main())
