"""Files attached to a chat message, as LangChain clients send them: content parts of the user's
message next to its text parts.

Accepted shapes (Agent Chat UI sends the first two; LangChain's older blocks and OpenAI's image
parts are read too):

- `{"type": "file", "mimeType": "application/pdf", "data": <base64>, "metadata": {"filename": …}}`
- `{"type": "image", "mimeType": "image/png", "data": <base64>, "metadata": {"name": …}}`
- the same with `mime_type`, `source_type: "base64"`, or a `data:` URL in `url`
- `{"type": "image_url", "image_url": {"url": "data:image/png;base64,…"}}`

Only inline data is taken: a part that points at a remote URL is refused rather than fetched (the
gateway never fetches a client's URL). What the bytes are is judged from the bytes by the gateway,
never from the declared MIME type.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

FILE_PART_TYPES = ("file", "image", "image_url")
DATA_URL = re.compile(r"^data:(?P<mime>[\w.+-]+/[\w.+-]+)?(;[\w-]+=[^;,]*)*;base64,(?P<data>.*)$", re.DOTALL)
NAME_LIMIT = 200


class Attachment(BaseModel):
    """One decoded file of a message."""

    model_config = ConfigDict(frozen=True)

    filename: str = Field(min_length=1, max_length=NAME_LIMIT)
    declared_mime: str | None = None
    data: bytes


class AttachmentError(ValueError):
    """A part that cannot be read; `field` is where in the part (`data`, `url`…)."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field, self.reason = field, reason


def _decoded(value: Any, field: str, limit: int) -> bytes:
    if not isinstance(value, str) or not value:
        raise AttachmentError(field, "base64 file data is required")
    if len(value) > (limit // 3 + 1) * 4 + 4:
        raise AttachmentError(field, f"the file exceeds the {limit}-byte upload limit")
    try:
        data = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise AttachmentError(field, "not valid base64") from None
    if not data:
        raise AttachmentError(field, "the file is empty")
    return data


def _name(part: dict[str, Any], mime: str | None, index: int) -> str:
    found = part.get("metadata")
    meta: dict[str, Any] = found if isinstance(found, dict) else {}
    name = meta.get("filename") or meta.get("name") or part.get("filename") or part.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip().replace("/", "_").replace("\\", "_")[:NAME_LIMIT]
    extension = (mime or "application/octet-stream").rsplit("/", 1)[-1].split("+")[0]
    return f"attachment-{index + 1}.{extension}"


def attachment_of(part: dict[str, Any], index: int, limit: int) -> Attachment:
    """The file of a `file`/`image`/`image_url` part (`index`: its place among the message's parts)."""
    mime = part.get("mimeType") or part.get("mime_type")
    url = part.get("url")
    if part.get("type") == "image_url":
        image = part.get("image_url")
        url, field = (image.get("url") if isinstance(image, dict) else image), "image_url.url"
    else:
        field = "url"
    if part.get("data") is not None:
        data = _decoded(part["data"], "data", limit)
    elif isinstance(url, str):
        found = DATA_URL.match(url)
        if found is None:
            raise AttachmentError(field, "only inline data (a base64 data: URL) is accepted, never a link to fetch")
        mime = mime or found["mime"]
        data = _decoded(found["data"], field, limit)
    else:
        raise AttachmentError("data", "base64 file data is required")
    if len(data) > limit:
        raise AttachmentError("data", f"the file exceeds the {limit}-byte upload limit")
    declared = mime if isinstance(mime, str) and len(mime) <= 100 else None
    return Attachment(filename=_name(part, declared, index), declared_mime=declared, data=data)


def is_file_part(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") in FILE_PART_TYPES
