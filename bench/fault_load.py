"""Steady load for the fault campaign: users sending inquire turns (and uploads) over HTTP/SSE.

Every turn is recorded with what the client saw; `bench/fault_audit.py` then decides from the bus
itself whether each run ended exactly once. Trials wait on `next_event` to strike at a precise
moment (a stage's status event, a terminal event) of some in-flight turn.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from httpx_sse import aconnect_sse

QUESTION = "How long are backups kept?"
TERMINAL = ("response", "error", "interrupt", "escalation")


@dataclass
class Turn:
    user: str
    started: float
    run_id: str | None = None
    thread_id: str | None = None
    http_status: int | None = None
    ended: float | None = None
    terminal: str | None = None
    error: str | None = None


@dataclass
class Upload:
    started: float
    document_id: str | None = None
    http_status: int | None = None
    status: str | None = None
    chunks: int | None = None
    ended: float | None = None


@dataclass
class Waiter:
    matches: Callable[[str, dict], bool]
    future: asyncio.Future


@dataclass
class Load:
    """`users` concurrent users; each asks QUESTION about `document_id` in a new thread, again and again."""

    url: str
    tokens: dict[str, str]
    document_id: str
    upload_pdf: Path | None = None
    upload_every: int = 5
    turn_timeout_s: float = 300.0
    turns: list[Turn] = field(default_factory=list)
    uploads: list[Upload] = field(default_factory=list)
    waiters: list[Waiter] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        await asyncio.gather(*(self._user(name, token) for name, token in self.tokens.items()))

    def in_flight(self) -> list[Turn]:
        return [t for t in self.turns if t.ended is None]

    async def next_event(self, matches: Callable[[str, dict], bool], timeout_s: float = 120.0) -> dict:
        """The next SSE event (any user's) for which `matches(event_name, data)` holds."""
        waiter = Waiter(matches, asyncio.get_running_loop().create_future())
        self.waiters.append(waiter)
        try:
            return await asyncio.wait_for(waiter.future, timeout_s)
        finally:
            self.waiters.remove(waiter)

    async def settle(self, timeout_s: float = 240.0) -> None:
        """Wait until no turn is in flight (every started turn ended one way or another)."""
        deadline = time.monotonic() + timeout_s
        while self.in_flight() and time.monotonic() < deadline:
            await asyncio.sleep(0.2)

    async def _user(self, name: str, token: str) -> None:
        timeout = httpx.Timeout(10.0, read=self.turn_timeout_s)
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=self.url, headers=headers, timeout=timeout) as client:
            n = 0
            while not self.stop.is_set():
                n += 1
                if self.upload_pdf is not None and n % self.upload_every == 0:
                    await self._upload(client, self.upload_pdf)
                else:
                    await self._turn(client, name)

    async def _turn(self, client: httpx.AsyncClient, name: str) -> None:
        turn = Turn(user=name, started=time.monotonic())
        self.turns.append(turn)
        body = {"message": QUESTION, "tagged_doc_ids": [self.document_id]}
        try:
            async with aconnect_sse(client, "POST", "/v1/chat", json=body) as source:
                turn.http_status = source.response.status_code
                turn.run_id = source.response.headers.get("X-Run-Id")
                turn.thread_id = source.response.headers.get("X-Thread-Id")
                if turn.http_status != 200:
                    turn.ended, turn.terminal = time.monotonic(), f"http {turn.http_status}"
                    await asyncio.sleep(0.5)
                    return
                async for sse in source.aiter_sse():
                    if not sse.data:
                        continue
                    self._notify(sse.event, json.loads(sse.data))
                    if sse.event in TERMINAL:
                        turn.terminal = sse.event
                        break
            if turn.terminal is None:
                turn.error = "stream ended without a terminal event"
        except (httpx.HTTPError, json.JSONDecodeError) as exc:
            turn.error = f"{type(exc).__name__}: {exc}"
            await asyncio.sleep(0.5)
        finally:
            turn.ended = time.monotonic()

    def _notify(self, event: str, data: dict) -> None:
        for waiter in list(self.waiters):
            if not waiter.future.done() and waiter.matches(event, data):
                waiter.future.set_result({"event": event, **data})

    async def _upload(self, client: httpx.AsyncClient, pdf: Path) -> None:
        upload = Upload(started=time.monotonic())
        self.uploads.append(upload)
        try:
            with pdf.open("rb") as fh:
                response = await client.post(
                    "/v1/documents",
                    files={"file": (pdf.name, fh, "application/pdf")},
                    # The same bytes each time, on purpose: each upload must be a new ingest.
                    data={"title": f"Fault load {len(self.uploads)}", "keep_duplicate": "true"},
                )
            upload.http_status = response.status_code
            if response.status_code not in (200, 202):
                return
            upload.document_id = response.json()["id"]
            deadline = time.monotonic() + self.turn_timeout_s
            while time.monotonic() < deadline:
                document = (await client.get(f"/v1/documents/{upload.document_id}")).json()
                if document.get("status") in ("ready", "failed"):
                    upload.status, upload.chunks = document["status"], document.get("chunk_count")
                    return
                await asyncio.sleep(0.5)
        except httpx.HTTPError as exc:
            upload.status = f"{type(exc).__name__}"
        finally:
            upload.ended = time.monotonic()
