"""A customer's website for the widget tests: plain HTML pages on their own loopback port.

The widget has to work from an origin other than the gateway's (that is the whole point of an
embed), so each site is a separate HTTP server on `127.0.0.1:<port>` serving nothing but pages
that carry the one-line script tag — and, for the hostile page, CSS that tries to break it.
"""

from __future__ import annotations

import contextlib
import html
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SITE_CSS = """
body { margin: 0; font: 16px/1.6 Georgia, serif; color: #1c1917; background: #fafaf9; }
.site header { background: #14532d; color: #f0fdf4; padding: 18px 48px; font: 600 22px/1 system-ui, sans-serif; }
.site main { max-width: 640px; padding: 32px 48px; }
.site h1 { font-size: 34px; margin: 0 0 12px; }
"""
HOSTILE_CSS = """
* { all: unset !important; }
div { display: none !important; }
body { font: 40px/1 serif !important; color: red !important; background: #ffe4e6 !important; }
button, textarea, section { display: none; visibility: hidden; opacity: 0; transform: scale(0); }
[data-testid] { display: none !important; }
"""


def page(gateway: str, tenant_id: str, *, hostile: bool = False, **data: str) -> str:
    attrs = "".join(f' data-{k}="{html.escape(v)}"' for k, v in data.items())
    style = f"<style>{HOSTILE_CSS if hostile else SITE_CSS}</style>"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>Northwind — Help</title>{style}</head>
<body>
<div class="site"><header>Northwind</header><main><h1>Help centre</h1>
<p>Orders, invoices, deliveries and your data: find answers here, or ask in the chat at the bottom right.</p>
<p>Our team answers questions the assistant cannot, usually within the hour.</p></main></div>
<script src="{gateway}/widget.js" data-tenant="{tenant_id}"{attrs} async></script>
</body></html>"""


@contextmanager
def host_site(gateway: str, tenant_id: str, **data: str) -> Iterator[str]:
    """Serve `/` (a plain page) and `/hostile` (aggressive CSS); yields the site's origin."""

    class Pages(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            if self.path.split("?")[0] not in ("/", "/hostile"):
                self.send_error(404)
                return
            body = page(gateway, tenant_id, hostile=self.path.startswith("/hostile"), **data).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class Relay:
    """A TCP relay in front of the gateway that a test can take down and bring back on the same
    port: from the browser's side, the gateway becoming unreachable and returning."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.port = 0
        self._listener: socket.socket | None = None
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Relay:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        self.port = listener.getsockname()[1]
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return self

    def stop(self) -> None:
        """Refuse new connections and cut the open ones."""
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
            listener.close()
        with self._lock:
            for conn in self._open:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
                conn.close()
            self._open.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            with self._lock:
                self._open.update((client, upstream))
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                dst.shutdown(socket.SHUT_WR)
