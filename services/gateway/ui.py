"""The browser UIs, served as static files by the gateway (no build step).

Pages: the workspace at `/` (and at `/c/<thread_id>`, a conversation's own address), the human
agents' inbox at `/agent`, tenant administration at `/admin`, the account pages (`/signin`,
`/signup`, `/invite`, `/onboarding`, `/settings`), and the embeddable support widget at `/widget.js`.
Everything else the pages load lives under `/static/` (their ES modules and the vendored libraries of `static/vendor/`).

Every page is sent with a strict Content-Security-Policy: scripts and styles only from this
origin, no inline script, no eval. Document text and model output are untrusted; the CSP is the
second line of defence behind sanitising them before they reach the DOM.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

STATIC_DIR = Path(__file__).parent / "static"

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "frame-src 'self' blob:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS = {
    b"content-security-policy": CONTENT_SECURITY_POLICY.encode(),
    b"x-content-type-options": b"nosniff",
    b"referrer-policy": b"no-referrer",
}

PAGES = {
    "/": "workspace/index.html",
    "/agent": "agent/index.html",
    "/admin": "admin/index.html",
    **{f"/{name}": f"account/{name}.html" for name in ("signin", "signup", "invite", "onboarding", "settings")},
}

router = APIRouter(include_in_schema=False)


def _page(relative: str) -> Callable[[], Awaitable[FileResponse]]:
    async def page() -> FileResponse:
        # no-cache: a page must pick up a new deployment's module graph at once.
        return FileResponse(STATIC_DIR / relative, media_type="text/html", headers={"Cache-Control": "no-cache"})

    return page


for _path, _file in PAGES.items():
    router.add_api_route(_path, _page(_file), methods=["GET"])

CONVERSATION_PATH = re.compile(r"/c/[0-9a-fA-F-]{36}")
_workspace = _page(PAGES["/"])


@router.get("/c/{thread_id}")
async def conversation_page(thread_id: uuid.UUID) -> FileResponse:
    """A conversation's address: the workspace, which opens the thread named in its path (a reload or a
    shared link lands here). The page is the same for every id: whether the conversation exists and is
    the reader's is the history API's answer, shown in the page."""
    return await _workspace()


@router.get("/widget.js")
async def widget_script() -> FileResponse:
    """The one file a tenant's website loads; it brings everything else it needs with it."""
    return FileResponse(
        STATIC_DIR / "widget" / "widget.js",
        media_type="text/javascript",
        headers={"Cache-Control": "public, max-age=300", "Cross-Origin-Resource-Policy": "cross-origin"},
    )


class UISecurityHeaders:
    """Adds the CSP and companions to every HTML response and every static file.

    Pure ASGI (not BaseHTTPMiddleware) so SSE streams pass through untouched.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _is_ui_path(scope["path"]):
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in SECURITY_HEADERS.items() if k not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _is_ui_path(path: str) -> bool:
    return path in PAGES or path.startswith("/static/") or CONVERSATION_PATH.fullmatch(path) is not None


def install_ui(app: FastAPI) -> None:
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    app.add_middleware(UISecurityHeaders)
