"""Files attached to a chat message (`/lg` content parts, the workspace composer): each one joins
the sender's library as a document, tagged for the turn it came with.

The same bytes already in the sender's library are that document again (no second copy, no second
ingest); anything else is stored and queued for ingest exactly as an upload is
(routes/documents.py), so it gets the same type check, rendition, OCR and audit entry. An image is
stored as the one-page PDF it becomes (PyMuPDF), whose textless page the ingest reads by OCR. The
turn does not wait here: the resolver waits for the documents and says so (PalReasoning),
services/resolver/attachments.py.
"""

from __future__ import annotations

import hashlib
import uuid
from pathlib import PurePath
from typing import Any

import pymupdf

from services.gateway.deps import GatewayState
from services.gateway.errors import ApiError
from services.gateway.routes.documents import check_type, document_fields, ingest_command, queue_ingest, upload_detail
from services.gateway.tenancy import ensure_user
from shared.auth.tokens import Principal
from shared.contracts.attachments import Attachment, AttachmentError, attachment_of, is_file_part
from shared.db import audit
from shared.db import documents as docs
from shared.db.conn import Conn
from shared.db.pool import in_tenant_tx

MAX_TAGGED = 5  # documents named one by one per message, tagged and attached (ChatCommand.tagged_doc_ids)
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp", "image/tiff")
PDF_MAGIC = b"%PDF-"


def attachments_of(parts: list[dict[str, Any]] | str, field: str, limit: int) -> list[Attachment]:
    """The decoded files among a message's content parts; a part that cannot be read is a 422
    naming it (`field` is where the parts are, e.g. `input.messages[0].content`)."""
    if isinstance(parts, str):
        return []
    found = []
    for index, part in enumerate(parts):
        if not is_file_part(part):
            continue
        try:
            found.append(attachment_of(part, index, limit))
        except AttachmentError as exc:
            where = f"{field}[{index}].{exc.field}"
            raise ApiError(422, "validation_error", f"{where}: {exc.reason}", {"field": where}) from None
    return found


def as_document(attachment: Attachment, field: str) -> tuple[str, bytes]:
    """The file name and bytes to ingest: an image becomes a one-page PDF (its text is read by OCR)."""
    if attachment.data.startswith(PDF_MAGIC) or not _is_image(attachment):
        return attachment.filename, attachment.data
    try:
        with pymupdf.open(stream=attachment.data) as image:
            pdf = image.convert_to_pdf()
    except (RuntimeError, ValueError) as exc:
        raise ApiError(415, "unsupported_media_type", f"{field}: the image cannot be read ({exc})") from None
    return f"{PurePath(attachment.filename).stem or 'image'}.pdf", pdf


def _is_image(attachment: Attachment) -> bool:
    if attachment.declared_mime in IMAGE_TYPES:
        return True
    signatures = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"BM", b"II*\x00", b"MM\x00*")
    return attachment.data.startswith(signatures) or attachment.data[8:12] == b"WEBP"


async def store_attachments(
    gw: GatewayState, p: Principal, attachments: list[Attachment], field: str
) -> list[uuid.UUID]:
    """Each attachment as a document of the sender's library (created and queued, or the same bytes
    found there); returns their ids in order."""
    ids: list[uuid.UUID] = []
    for index, attachment in enumerate(attachments):
        filename, data = as_document(attachment, f"{field}[{index}]")
        ids.append(await store_one(gw, p, filename, data))
    return ids


async def store_one(gw: GatewayState, p: Principal, filename: str, data: bytes) -> uuid.UUID:
    mime = check_type(data, filename)
    sha256 = hashlib.sha256(data).hexdigest()
    document_id = uuid.uuid4()
    cmd = ingest_command(
        p,
        document_id=document_id,
        object_name=f"{p.tenant_id}/{document_id}",
        filename=filename,
        title=PurePath(filename).stem.strip()[:300] or filename[:300],
    )

    async def write(conn: Conn) -> uuid.UUID | None:
        """The document already holding these bytes, or None once this one is inserted."""
        await ensure_user(conn, p)
        same = await docs.same_content(conn, sha256, p.user_id)
        if same:
            return same[0]["id"]
        row, created = await docs.insert_document(conn, document_fields(cmd, data, set_id=None, mime=mime))
        if not created:
            return row["id"]
        await audit.record(conn, p.tenant_id, p.user_id, "document.upload", str(document_id), upload_detail(row))
        return None

    held = await in_tenant_tx(gw.db, p.tenant_id, p.user_id, write)
    if held is not None:
        return held
    await queue_ingest(gw, p, data, cmd, document_id)
    return document_id
