"""Documents API: upload (→ object store + `pp.cmd.ingest`), list by set, get, delete, progress SSE."""

from __future__ import annotations

import contextlib
import hashlib
import uuid
from collections.abc import AsyncGenerator
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, File, Form, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from nats.js.errors import ObjectNotFoundError
from pydantic import ValidationError

from services.gateway.auth import WorkspaceUser, rate_limited
from services.gateway.deps import Gateway, GatewayState, bus_up
from services.gateway.errors import ApiError, documented_errors, not_found
from services.gateway.relay import (
    SSE_RESPONSES,
    follow,
    indexing_terminal,
    ingest_terminal,
    relay,
    sse_item,
)
from services.gateway.sse import EventStream
from services.gateway.tenancy import ensure_user
from shared.auth.tokens import Principal
from shared.bus.publish import publish
from shared.contracts import DocType, IngestCommand, IngestProgress, Visibility
from shared.contracts.api import DocumentGroup, DocumentList, DocumentOut, ErrorBody
from shared.db import audit
from shared.db import documents as docs
from shared.db.conn import Conn
from shared.db.pool import in_tenant_tx, tenant_tx
from shared.documents.filetype import ParseError, mime_of, sniff_type

router = APIRouter(
    prefix="/v1", tags=["documents"], responses=documented_errors(400, 401, 403, 404, 413, 415, 422, 429, 503)
)

CLAIMED_TYPES = (
    ".pdf", ".txt", ".md", ".markdown", ".html", ".htm", ".xhtml", ".epub", ".xps", ".docx", ".pptx", ".xlsx",
)  # fmt: skip


def document_out(row: dict[str, Any]) -> DocumentOut:
    fields = {k: row[k] for k in DocumentOut.model_fields if k in row}
    return DocumentOut(**fields, display_name=docs.display_name(row))


async def read_limited(file: UploadFile, limit: int) -> bytes:
    data = await file.read(limit + 1)
    if len(data) > limit:
        raise ApiError(413, "payload_too_large", f"file exceeds the {limit}-byte upload limit")
    return data


def check_type(data: bytes, filename: str) -> str | None:
    """The content's MIME type; content no parser can read is refused unless the name claims a
    type the worker will judge (and then give the document its precise reason)."""
    try:
        return mime_of(sniff_type(data, filename))
    except ParseError as exc:
        if not filename.lower().endswith(CLAIMED_TYPES):
            raise ApiError(415, "unsupported_media_type", str(exc)) from exc
        return None


async def refuse_duplicate(conn: Any, sha256: str, p: Principal, title: str) -> None:
    """The same bytes already in the user's library under another title: a 409 that
    names it, so the user can open that one or upload again with `keep_duplicate` on purpose."""
    rows = await docs.same_content(conn, sha256, p.user_id)
    if any(row["title"] == title for row in rows):
        return  # the same document again, or a new version label of it: not a duplicate by mistake
    for row in rows:
        if row["title"] != title:
            raise ApiError(
                409,
                "duplicate_document",
                f"this file is already in your library as {docs.display_name(row)}",
                {"existing": document_out(row).model_dump(mode="json")},
            )


@router.post(
    "/documents",
    status_code=202,
    response_model=DocumentOut,
    responses={
        200: {"model": DocumentOut, "description": "Same bytes, title and version: the existing document"},
        409: {
            "model": ErrorBody,
            "description": "`duplicate_document`: the same bytes are in the library under another title "
            "(`details.existing` names it; `keep_duplicate` uploads it again on purpose)",
        },
    },
    dependencies=[Depends(bus_up), Depends(rate_limited)],
)
async def upload_document(
    file: Annotated[UploadFile, File(description="PDF, Word, PowerPoint, Excel, text/Markdown, HTML, EPUB or XPS")],
    title: Annotated[str, Form(min_length=1, max_length=300)],
    p: WorkspaceUser,
    gw: Gateway,
    version: Annotated[str, Form(min_length=1, max_length=100)] = "1",
    doc_type: Annotated[DocType, Form()] = "regulatory_source",
    set_name: Annotated[str | None, Form(min_length=1, max_length=100)] = None,
    visibility: Annotated[Visibility, Form()] = "private",
    keep_duplicate: Annotated[
        bool, Form(description="Keep a second copy of bytes already uploaded under another title")
    ] = False,
) -> Any:
    data = await read_limited(file, gw.settings.max_upload_bytes)
    if not data:
        raise ApiError(422, "validation_error", "file: the uploaded file is empty")
    filename = file.filename or "upload"
    mime = check_type(data, filename) or file.content_type
    sha256 = hashlib.sha256(data).hexdigest()
    document_id = uuid.uuid4()
    object_name = f"{p.tenant_id}/{document_id}"
    cmd = ingest_command(
        p,
        document_id=document_id,
        object_name=object_name,
        filename=filename,
        title=title,
        version=version,
        doc_type=doc_type,
        set_name=set_name,
        visibility=visibility,
    )

    async def write(conn: Conn) -> tuple[dict[str, Any], bool]:
        await ensure_user(conn, p)
        if not keep_duplicate:
            await refuse_duplicate(conn, sha256, p, title)
        set_id = await docs.get_or_create_set(conn, p.tenant_id, p.user_id, set_name) if set_name else None
        row, created = await docs.insert_document(conn, document_fields(cmd, data, set_id=set_id, mime=mime))
        if created:
            await audit.record(conn, p.tenant_id, p.user_id, "document.upload", str(document_id), upload_detail(row))
        return row, created

    row, created = await in_tenant_tx(gw.db, p.tenant_id, p.user_id, write)
    if not created:
        return JSONResponse(document_out(row).model_dump(mode="json"), status_code=200)
    await queue_ingest(gw, p, data, cmd, document_id)
    return document_out(row)


def document_fields(cmd: IngestCommand, data: bytes, *, set_id: uuid.UUID | None, mime: str | None) -> dict[str, Any]:
    """The row of an uploaded document, queued for the ingest job `cmd`."""
    return {
        "id": cmd.document_id,
        "tenant_id": cmd.tenant_id,
        "user_id": cmd.user_id,
        "title": cmd.title,
        "version": cmd.version,
        "doc_type": cmd.doc_type,
        "set_id": set_id,
        "source_type": "upload",
        "filename": cmd.filename,
        "mime": mime,
        "sha256": hashlib.sha256(data).hexdigest(),
        "byte_size": len(data),
        "object_key": cmd.object_name,
        "visibility": cmd.visibility,
    }


def ingest_command(p: Principal, **fields: Any) -> IngestCommand:
    """The ingest job, validated before anything is written: a bad field (the file's own name is
    the one not checked by the form) is a 422, not a document row without a job."""
    try:
        return IngestCommand(tenant_id=p.tenant_id, user_id=p.user_id, **fields)
    except ValidationError as exc:  # answered like every other invalid request (errors.py)
        raise RequestValidationError(exc.errors(include_url=False)) from exc


async def queue_ingest(gw: GatewayState, p: Principal, data: bytes, cmd: IngestCommand, document_id: uuid.UUID) -> None:
    """Store the bytes and publish `pp.cmd.ingest`; document `document_id` (the one `cmd` names: the
    contract leaves it optional, the gateway always sets it) is deleted again if it cannot be queued,
    so that no row waits for an ingest that will never come."""
    try:
        store = await gw.bus.uploads()
        await store.put(cmd.object_name, data)
        await publish(gw.bus, gw.bus.subjects.cmd_ingest, cmd, msg_id=f"ingest:{document_id}")
    except Exception:
        async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
            await docs.delete_document(conn, document_id)
            await audit.record(
                conn, p.tenant_id, p.user_id, "document.delete", str(document_id), {"reason": "not queued"}
            )
        raise


def upload_detail(row: dict[str, Any]) -> dict[str, Any]:
    """The audit detail of a document: its identity and size, not its title or text."""
    return {"sha256": row["sha256"], "byte_size": row["byte_size"], "visibility": row["visibility"]}


@router.get("/documents", response_model=DocumentList)
async def list_documents(p: WorkspaceUser, gw: Gateway) -> DocumentList:
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        rows = await docs.list_documents(conn)
    groups: dict[uuid.UUID | None, DocumentGroup] = {}
    for row in rows:
        group = groups.setdefault(
            row["set_id"],
            DocumentGroup(set_id=row["set_id"], set_name=row["set_name"], set_color=row["set_color"], documents=[]),
        )
        group.documents.append(document_out(row))
    return DocumentList(groups=list(groups.values()))


async def visible_document(gw: GatewayState, p: Principal, document_id: uuid.UUID) -> dict[str, Any]:
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        row = await docs.get_document(conn, document_id)
    if row is None:
        raise not_found("document")
    return row


@router.get("/documents/{document_id}", response_model=DocumentOut)
async def get_document(document_id: uuid.UUID, p: WorkspaceUser, gw: Gateway) -> DocumentOut:
    return document_out(await visible_document(gw, p, document_id))


@router.get(
    "/documents/{document_id}/file",
    response_class=Response,
    responses={200: {"content": {"application/octet-stream": {}}, "description": "The uploaded bytes"}},
)
async def document_file(document_id: uuid.UUID, p: WorkspaceUser, gw: Gateway) -> Response:
    """The original upload, for the PDF viewer: visible exactly when the document is (RLS), else 404."""
    row = await visible_document(gw, p, document_id)
    store = await gw.bus.uploads()
    try:
        stored = await store.get(row["object_key"])
    except ObjectNotFoundError as exc:
        raise not_found("document file") from exc
    return Response(
        stored.data or b"",
        media_type=file_media_type(stored.data or b""),
        headers={
            "Content-Disposition": f"inline; filename*=UTF-8''{quote(row['filename'])}",
            "Cache-Control": "private, max-age=300",
            # Untrusted bytes: never let a browser render them as a page of this origin.
            "Content-Security-Policy": "sandbox; default-src 'none'",
            "X-Content-Type-Options": "nosniff",
        },
    )


@router.get(
    "/documents/{document_id}/pages",
    response_class=Response,
    responses={200: {"content": {"application/pdf": {}}, "description": "The document's pages as a PDF"}},
)
async def document_pages(document_id: uuid.UUID, p: WorkspaceUser, gw: Gateway) -> Response:
    """The pages citations point at, for the viewer: the PDF rendition made at ingest (a non-PDF
    upload, or a scan with its OCR text), else the uploaded PDF itself. Visible like the document."""
    row = await visible_document(gw, p, document_id)
    store = await gw.bus.uploads()
    try:
        stored = await store.get(row["rendition_key"] or row["object_key"])
    except ObjectNotFoundError as exc:
        raise not_found("document pages") from exc
    data = stored.data or b""
    if not data.startswith(b"%PDF-"):
        raise ApiError(404, "not_found", "this document has no pages yet (it is not a PDF and was not converted)")
    return Response(
        data,
        media_type="application/pdf",
        headers={
            "Cache-Control": "private, max-age=300",
            "Content-Security-Policy": "sandbox; default-src 'none'",
            "X-Content-Type-Options": "nosniff",
        },
    )


def file_media_type(data: bytes) -> str:
    """PDFs as PDF (the viewer needs it); anything else as opaque bytes, so it is never rendered."""
    return "application/pdf" if data.startswith(b"%PDF-") else "application/octet-stream"


@router.delete("/documents/{document_id}", status_code=204)
async def delete_document(document_id: uuid.UUID, p: WorkspaceUser, gw: Gateway) -> None:
    async with tenant_tx(gw.db, p.tenant_id, p.user_id) as conn:
        row = await docs.get_document(conn, document_id)
        if row is None or row["user_id"] != p.user_id:
            raise not_found("document")
        await docs.delete_document(conn, document_id)
        # What was deleted, never its content: the audit log must not keep what the user removed.
        await audit.record(conn, p.tenant_id, p.user_id, "document.delete", str(document_id), upload_detail(row))
    store = await gw.bus.uploads()
    for key in filter(None, (row["object_key"], row["rendition_key"])):
        with contextlib.suppress(ObjectNotFoundError):  # already gone: the document row is what mattered
            await store.delete(key)


@router.get("/documents/{document_id}/events", response_class=EventStream, responses=SSE_RESPONSES)
async def document_events(document_id: uuid.UUID, p: WorkspaceUser, gw: Gateway) -> EventStream:
    row = await visible_document(gw, p, document_id)
    # A ready document whose vectors are still on the way (or being retried) is followed to the
    # end of its second phase (the workspace shows "searchable by words; meaning search ready in
    # ~N s"); one whose every round failed is at its end, with the reason.
    indexing = row["status"] == "ready" and row["vectors_state"] in ("pending", "retrying")
    if row["status"] in ("ready", "failed") and not indexing:
        final = IngestProgress(
            document_id=document_id,
            status=row["status"],
            stage="done",
            done=row["chunk_count"],
            total=row["chunk_count"],
            error=row["vectors_error"] if row["vectors_state"] == "failed" else row["error"],
        )
        data = final.model_dump(mode="json")
        data.pop("type")

        async def once() -> AsyncGenerator[dict[str, str], None]:
            yield sse_item(None, "progress", data)

        return EventStream(once())
    sub = await gw.relay.subscribe(gw.bus.subjects.evt_ingest(document_id), from_start=True)
    return EventStream(
        relay(
            follow(
                sub,
                contract=IngestProgress.model_validate_json,
                timeout_s=gw.settings.turn_timeout_s,
                is_terminal=indexing_terminal if indexing else ingest_terminal,
                keepalive_s=gw.settings.sse_keepalive_s,
            )
        )
    )
