"""Running a wire-level test double (a Starlette app) on a free local port for a test's duration."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.applications import Starlette

from shared.runtime.embedded import free_port


@contextmanager
def serve(app_for_port) -> Iterator[int]:
    """Serve `app_for_port(port)` on 127.0.0.1 in a thread; yields the port."""
    port = free_port()
    app: Starlette = app_for_port(port)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(10)
