"""Issue #27, tables: a policy's ruled table of words is answered row by row, with its headers,
through the real system (bus, ingest, retrieval, inquire worker, Postgres), from the PDF and from the
Word document, Markdown file, web page and slide deck it may be kept in (whose renditions draw the
table's rules: services/ingest/word.py, markdown.py, html_pages.py, slides.py).

"How must confidential data be handled?" is answered by the table's "Confidential" row, whose
handling cell alone ("Encrypt at rest and in transit; …") never says what it applies to: the row
sentence carries the level and the column ("Handling requirements"), and it is cited to its page.
"""

from __future__ import annotations

import pytest

from shared.text.tables import printed_parts
from tests.integration.conftest import running
from tests.integration.test_actions import turn
from tests.integration.test_turn import services
from tests.integration.test_whole_read import ingested
from tests.pdf_tables import policy_docx, policy_html, policy_markdown, policy_pdf, policy_pptx

pytestmark = pytest.mark.integration


WRITTEN = [
    ("classification.pdf", policy_pdf),
    ("classification.docx", policy_docx),
    ("classification.md", policy_markdown),
    ("classification.html", policy_html),
    ("classification.pptx", policy_pptx),
]


@pytest.mark.parametrize(("name", "written"), WRITTEN)
async def test_a_row_of_a_ruled_table_answers_with_its_level_and_column(
    infra, tenant, embedder, tmp_path, name, written
):
    tenant_id, user_id = tenant
    path = tmp_path / name
    path.write_bytes(written())
    async with running(*services(infra)):
        policy = await ingested(infra, tenant, path, "Data classification standard")
        for question, row in (
            ("How must confidential data be handled?", "Confidential — Examples:"),
            ("Who reviews access to restricted data, and how often?", "Restricted — Examples:"),
        ):
            _, answered = await turn(infra, tenant_id, user_id, question, action="inquire", tagged_doc_ids=[policy])
            assert answered["type"] == "response", answered
            assert row in answered["response"], answered["response"]
            quotes = [c for c in answered["citations"] if c["quote"].startswith(row)]
            assert quotes and all(c["page"] == 1 for c in quotes), answered["citations"]
            assert printed_parts(quotes[0]["quote"].split("…")[0]), quotes[0]
