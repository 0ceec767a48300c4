"""Request body size limit for every route except uploads (which have their own, larger limit).
Requests that may carry a message's attached files (`/lg` runs, base64 in JSON) get room for one
upload-sized file.

Pure ASGI so it also stops chunked bodies that carry no Content-Length.
"""

from __future__ import annotations

import re

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from services.gateway.errors import error_response


class BodyTooLarge(Exception):
    pass


class BodySizeLimit:
    def __init__(
        self,
        app: ASGIApp,
        max_bytes: int,
        exempt_paths: tuple[str, ...],
        attachment_paths: re.Pattern[str] | None = None,
        attachment_bytes: int = 0,
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.exempt_paths = exempt_paths
        self.attachment_paths = attachment_paths
        self.attachment_bytes = attachment_bytes

    def limit(self, path: str) -> int:
        if self.attachment_paths is not None and self.attachment_paths.match(path):
            return max(self.max_bytes, self.attachment_bytes)
        return self.max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.exempt_paths:
            await self.app(scope, receive, send)
            return
        limit = self.limit(scope["path"])
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self.reject(scope, receive, send, limit)
            return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge
            return message

        try:
            await self.app(scope, counting_receive, send)
        except BodyTooLarge:
            await self.reject(scope, receive, send, limit)

    async def reject(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        response = error_response(413, "payload_too_large", f"request body exceeds {limit} bytes")
        await response(scope, receive, send)
