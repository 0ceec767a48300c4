"""Files attached to a `/lg` message, as Agent Chat UI sends them (base64 content parts): each one
joins the sender's library, is tagged for the turn, and the answer waits for it, saying so."""

from __future__ import annotations

import asyncio
import base64
import io

import docx
import httpx
import pymupdf
import pytest
from langgraph_sdk import get_client

from tests.e2e.test_langgraph_sdk import _workers, frozen

pytestmark = pytest.mark.e2e


def pdf_part(data: bytes, filename: str) -> dict:
    encoded = base64.b64encode(data).decode()
    return {"type": "file", "mimeType": "application/pdf", "data": encoded, "metadata": {"filename": filename}}


def flight_log_policy() -> bytes:
    """A one-page policy no other test uploads (the same bytes would be that document again)."""
    with pymupdf.open() as doc:
        page = doc.new_page()
        lines = [
            "Drone Flight Log Policy",
            "Flight logs of company drones are kept for seven years after the flight.",
            "Pilots must upload each flight log within two days of landing.",
            "Logs of flights over private property are reviewed by the privacy officer.",
        ]
        for n, line in enumerate(lines):
            page.insert_text((60, 80 + 24 * n), line, fontsize=12)
        return doc.tobytes()


def png_of_text(text: str) -> bytes:
    """A picture of a sentence (what a phone photo of a policy is): read back by OCR."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=700, height=160)
        page.insert_text((20, 80), text, fontsize=22)
        return page.get_pixmap(dpi=150).tobytes("png")


def _announces_wait(part) -> bool:
    return part.event == "updates" and "attachments" in part.data


def test_a_pdf_alone_is_ingested_tagged_and_summarized_after_the_wait_is_announced(system):
    """The ingest worker is held until the wait is announced: a resolver that finds the file already
    read (a loaded machine, a fast ingest) rightly announces nothing, which made this test flaky."""

    async def flow():
        client = get_client(url=f"{system.url}/lg", api_key=system.token)
        tid = (await client.threads.create())["thread_id"]
        message = {"type": "human", "content": [pdf_part(flight_log_policy(), "flight-logs.pdf")]}
        stream = client.runs.stream(tid, "policypal", input={"messages": [message]}, stream_mode=["values", "updates"])
        parts = []
        with frozen(_workers(system, "worker", "ingest")):
            async with asyncio.timeout(120):
                async for p in stream:
                    parts.append(p)
                    if _announces_wait(p):
                        break
        parts += [p async for p in stream]
        async with httpx.AsyncClient(base_url=system.url, headers={"Authorization": f"Bearer {system.token}"}) as http:
            documents = {}
            for message in [p.data for p in parts if p.event == "values"][-1]["messages"][-2:-1]:
                for doc_id in message["additional_kwargs"]["tagged_doc_ids"]:
                    documents[doc_id] = (await http.get(f"/v1/documents/{doc_id}")).json()
        return parts, documents

    parts, documents = asyncio.run(flow())
    statuses = [next(iter(p.data.values()))["status"] for p in parts if _announces_wait(p)]
    assert statuses and "flight-logs" in statuses[0] and "before answering" in statuses[0]
    final = [p.data for p in parts if p.event == "values"][-1]["messages"]
    asked, answer = final[-2], final[-1]
    assert asked["content"] == "Attached: flight-logs.pdf"
    attached = asked["additional_kwargs"]["tagged_doc_ids"]
    assert len(attached) == 1
    document = documents[attached[0]]
    assert document["status"] == "ready" and document["title"] == "flight-logs"
    assert answer["response_metadata"]["action"] == "summarize"
    assert {c["document_id"] for c in answer["additional_kwargs"]["citations"]} == {document["id"]}


def test_an_image_with_a_question_is_read_by_ocr_and_cited(system):
    text = "Visitor badges must be returned within 48 hours of issue."
    image = base64.b64encode(png_of_text(text)).decode()

    async def flow():
        client = get_client(url=f"{system.url}/lg", api_key=system.token)
        tid = (await client.threads.create())["thread_id"]
        content = [
            {"type": "text", "text": "When must visitor badges be returned?"},
            {"type": "image", "mimeType": "image/png", "data": image, "metadata": {"name": "badge-rule.png"}},
        ]
        return await client.runs.wait(tid, "policypal", input={"messages": [{"type": "human", "content": content}]})

    values = asyncio.run(flow())
    answer = values["messages"][-1]
    assert "48 hours" in answer["content"]
    assert answer["additional_kwargs"]["citations"]


def word_rule() -> bytes:
    """A Word document no other test uploads, as Agent Chat UI's file picker would send it."""
    document = docx.Document()
    document.add_heading("Lab Notebook Policy", level=1)
    document.add_paragraph("Paper lab notebooks are scanned and archived for fifteen years after the project ends.")
    document.add_paragraph("Notebooks leave the building only with the lab manager's written approval.")
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_a_word_document_with_a_question_is_ingested_tagged_and_cited(system):
    word = base64.b64encode(word_rule()).decode()
    mime = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

    async def flow():
        client = get_client(url=f"{system.url}/lg", api_key=system.token)
        tid = (await client.threads.create())["thread_id"]
        content = [
            {"type": "text", "text": "How long are paper lab notebooks archived?"},
            {"type": "file", "mimeType": mime, "data": word, "metadata": {"filename": "lab-notebooks.docx"}},
        ]
        values = await client.runs.wait(tid, "policypal", input={"messages": [{"type": "human", "content": content}]})
        attached = values["messages"][-2]["additional_kwargs"]["tagged_doc_ids"]
        async with httpx.AsyncClient(base_url=system.url, headers={"Authorization": f"Bearer {system.token}"}) as http:
            document = (await http.get(f"/v1/documents/{attached[0]}")).json()
        return values, attached, document

    values, attached, document = asyncio.run(flow())
    answer = values["messages"][-1]
    assert len(attached) == 1 and document["status"] == "ready" and document["title"] == "lab-notebooks"
    assert "fifteen years" in answer["content"]
    assert {c["document_id"] for c in answer["additional_kwargs"]["citations"]} == {document["id"]}


def test_unreadable_attachments_are_422_naming_the_part(system):
    def refused(content: list) -> dict:
        with httpx.Client(base_url=f"{system.url}/lg", headers={"X-Api-Key": system.token}) as http:
            tid = http.post("/threads", json={}).json()["thread_id"]
            response = http.post(
                f"/threads/{tid}/runs/wait", json={"input": {"messages": [{"type": "human", "content": content}]}}
            )
        return {"status": response.status_code, **response.json()["error"]}

    not_base64 = refused([{"type": "file", "mimeType": "application/pdf", "data": "%%%"}])
    assert not_base64["status"] == 422
    assert not_base64["details"]["field"] == "input.messages[0].content[0].data"
    remote = refused([{"type": "text", "text": "hi"}, {"type": "image", "url": "https://example.com/x.png"}])
    assert remote["status"] == 422 and remote["details"]["field"] == "input.messages[0].content[1].url"
    nothing = refused([{"type": "text", "text": "  "}])
    assert nothing["status"] == 422 and "no text and no attached file" in nothing["message"]
    junk = refused([{"type": "file", "data": base64.b64encode(io.BytesIO(b"\x00\x01junk").read()).decode()}])
    assert junk["status"] == 415
