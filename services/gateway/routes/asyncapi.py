"""`GET /v1/asyncapi.json`: the bus contract for integrators, generated from the workers' routers.

It is generated once, by `policypal asyncapi` in a child process: building the routers imports
the workers' code (PDF parsing, model runtimes) that the gateway itself never loads.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from fastapi import APIRouter, HTTPException

router = APIRouter(prefix="/v1", tags=["bus"])

_document: dict[str, Any] | None = None
_lock = asyncio.Lock()


async def generate() -> dict[str, Any]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "policypal.cli",
        "asyncapi",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    if process.returncode != 0:
        raise HTTPException(500, f"generating the AsyncAPI document failed: {err.decode()[-500:]}")
    return json.loads(out)


@router.get("/asyncapi.json", summary="AsyncAPI 3 document of the NATS bus")
async def asyncapi() -> dict[str, Any]:
    """Every subject (commands, events, RPC, dead letters) with its payload schema."""
    global _document
    async with _lock:
        if _document is None:
            _document = await generate()
    return _document
