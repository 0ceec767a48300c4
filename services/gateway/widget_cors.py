"""CORS for the widget API: it is called from tenants' own sites, which no static list can name.

The handshake checks the page's origin against the tenant's allowed domains and every later call
needs the session token (a bearer header, never a cookie), so reflecting the caller's origin on
/v1/widget/* grants a page nothing it could not already do; the rest of the API keeps the
configured allow-list.
"""

from __future__ import annotations

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PREFIX = "/v1/widget/"
ALLOW_HEADERS = "Authorization, Content-Type, Last-Event-ID"


class WidgetCORS:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(PREFIX):
            await self.app(scope, receive, send)
            return
        origin = Headers(scope=scope).get("origin")
        if origin is None:
            await self.app(scope, receive, send)
            return
        if scope["method"] == "OPTIONS":
            preflight = PlainTextResponse("", headers=self._headers(origin) | {"Access-Control-Max-Age": "600"})
            await preflight(scope, receive, send)
            return

        async def with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in self._headers(origin).items():
                    headers[key] = value
            await send(message)

        await self.app(scope, receive, with_cors)

    @staticmethod
    def _headers(origin: str) -> dict[str, str]:
        return {
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
            "Access-Control-Allow-Headers": ALLOW_HEADERS,
            "Access-Control-Expose-Headers": "X-Thread-Id, X-Run-Id",
            "Vary": "Origin",
        }
