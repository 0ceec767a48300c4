"""A small OpenAI-wire-compatible server for tests of the real `openai` client.

Speaks POST /v1/chat/completions (plain, streamed as SSE chunks with a final usage chunk, and
JSON-schema structured output) and POST /v1/embeddings, with `usage` fields like the real
API. Answers are synthetic but shaped by the request: a structured request gets JSON valid
for its schema, an answer request cites its first passage. Tests queue faults that the next
requests hit in order: HTTP statuses, or one bad answer ("malformed": invalid JSON, "empty":
nothing, "cut": JSON cut off at max_tokens, "answer:<text>": this content instead, "break": a
stream whose connection drops after two deltas).

`dialect` imitates servers that support less than OpenAI (docs/model-servers.md): "llama_cpp"
answers `json_schema` with llama-cpp-python's 500 validation error and takes `json_object` with
a schema; "plain" refuses any `response_format` with a 400, so the schema is only in the prompt,
where the double answers the way small models do, JSON in a code fence after a sentence.
`stream_usage` False sends no usage chunk; `refuse_stream_options` answers it with a 422.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.integration.wire import serve

API_KEY = "sk-test-key"
PROMPT_TOKENS = 120
COMPLETION_TOKENS = 30
_PASSAGE = re.compile(r"^\[(\d+)\] [^\n]*\n(.+?)(?:\n\n|\Z)", re.M | re.S)
SCHEMA_INSTRUCTION = "Reply with only one JSON object"
# llama-cpp-python's answer to response_format json_schema (a pydantic error, as a 500).
LLAMA_CPP_REFUSAL = {
    "error": {
        "message": "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be "
        "'text' or 'json_object'\", 'input': 'json_schema'}]",
        "type": "internal_server_error",
    }
}

STRUCTURED_ANSWERS: dict[str, dict[str, Any]] = {
    "IntentOutput": {"actions": ["inquire"], "confidence": "high", "web_search": False},
    "DocResolutionOutput": {"ids": [], "candidates": [], "source": "none", "confidence": "low"},
    "RewriteOutput": {"query": "retention period for customer records"},
    "TextOutput": {"text": "How do I export a DOCX file to PDF?"},
    "GradeOutput": {"score": 0.82},
    "AuditOutput": {"findings": [], "similarities": [0.7]},
}


@dataclass
class OpenAIServer:
    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    faults: list[int | str] = field(default_factory=list)
    # A real model's pace, for benchmarks: seconds before each answer starts, and between streamed deltas.
    latency_s: float = 0.0
    token_interval_s: float = 0.0
    # A streamed free-text answer gets this many extra words, one delta each (e.g. 100 words at 0.01 s
    # ≈ 100 tokens/s), for token-event measurements. Structured (JSON) replies never do: words after
    # the JSON would make every streamed step invalid, which no real server does.
    extra_words: int = 0
    dialect: str = "openai"
    stream_usage: bool = True
    refuse_stream_options: bool = False

    def chat_requests(self) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["path"] == "/v1/chat/completions"]


def _answer_text(messages: list[dict[str, Any]]) -> str:
    """The first sentence of the first passage, cited; what a faithful model might write."""
    user = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    match = _PASSAGE.search(user)
    if not match:
        return "The passages do not contain the answer."
    first = re.split(r"(?<=[.!?])\s", " ".join(match.group(2).split()), maxsplit=1)[0]
    return f"{first} [{match.group(1)}]"


def _structured_answer(schema: dict[str, Any]) -> dict[str, Any]:
    """The canned answer whose fields the schema (given without its name) has most of."""
    fields = set(schema.get("properties", {}))
    return max(STRUCTURED_ANSWERS.values(), key=lambda answer: len(fields & set(answer)) - len(set(answer) - fields))


def _refusal(server: OpenAIServer, body: dict[str, Any]) -> Response | None:
    """What a server of the configured dialect says to a request feature it does not take."""
    kind = (body.get("response_format") or {}).get("type")
    if server.dialect == "llama_cpp" and kind == "json_schema":
        return JSONResponse(LLAMA_CPP_REFUSAL, status_code=500)
    if server.dialect == "plain" and kind:
        return JSONResponse({"error": {"message": "response_format is not supported", "type": "invalid"}}, 400)
    if server.refuse_stream_options and "stream_options" in body:
        return JSONResponse({"detail": [{"loc": ["body", "stream_options"], "msg": "extra fields not permitted"}]}, 422)
    return None


def _completion(model: str, content: str, finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": PROMPT_TOKENS,
            "completion_tokens": COMPLETION_TOKENS,
            "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
        },
    }


def _chunk(model: str, delta: dict[str, Any] | None, usage: dict[str, int] | None = None) -> str:
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": None}],
        "usage": usage,
    }
    return f"data: {json.dumps(body)}\n\n"


class BrokenOff(Exception):
    """Raised inside a streamed response: the server drops the connection mid-answer."""


async def _stream(
    model: str, content: str, token_interval_s: float = 0.0, usage: bool = True, break_after: int | None = None
) -> AsyncIterator[str]:
    yield _chunk(model, {"role": "assistant", "content": ""})
    for i, piece in enumerate(re.findall(r"\S+\s*", content)):
        if i == break_after:
            raise BrokenOff("connection dropped mid-answer")
        if token_interval_s:
            await asyncio.sleep(token_interval_s)
        yield _chunk(model, {"content": piece})
    if usage:
        yield _chunk(
            model,
            None,
            {
                "prompt_tokens": PROMPT_TOKENS,
                "completion_tokens": COMPLETION_TOKENS,
                "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS,
            },
        )
    yield "data: [DONE]\n\n"


def _embedding(text: str, dim: int) -> list[float]:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return np.random.default_rng(seed).normal(size=dim).tolist()  # deliberately not normalised


def build_app(server: OpenAIServer) -> Starlette:
    def authorised(request: Request) -> bool:
        return request.headers.get("authorization") == f"Bearer {API_KEY}"

    def fault() -> Response | str | None:
        if not server.faults:
            return None
        planned = server.faults.pop(0)
        if isinstance(planned, str) and not planned.isdigit():
            return planned
        return JSONResponse({"error": {"message": f"injected {planned}", "type": "test"}}, status_code=int(planned))

    async def chat(request: Request) -> Response:
        body = await request.json()
        server.requests.append({"path": request.url.path, "body": body})
        if not authorised(request):
            return JSONResponse({"error": {"message": "Incorrect API key", "type": "invalid_request_error"}}, 401)
        refused = _refusal(server, body)
        if refused is not None:
            return refused
        injected = fault()
        if isinstance(injected, Response):
            return injected
        if server.latency_s:
            await asyncio.sleep(server.latency_s)
        model = body["model"]
        response_format = body.get("response_format") or {}
        last = body["messages"][-1]["content"]
        structured = bool(response_format) or SCHEMA_INSTRUCTION in last
        finish = "stop"
        if response_format.get("type") == "json_schema":
            content = json.dumps(STRUCTURED_ANSWERS[response_format["json_schema"]["name"]])
        elif response_format.get("type") == "json_object":
            content = json.dumps(_structured_answer(response_format["schema"]))
        elif SCHEMA_INSTRUCTION in last:
            schema = json.loads(last.split(SCHEMA_INSTRUCTION, 1)[1].split("\n", 1)[1])
            content = f"Sure! Here it is:\n```json\n{json.dumps(_structured_answer(schema))}\n```"
        else:
            content = _answer_text(body["messages"])
        if injected == "malformed":
            content = "{not json"
        elif injected == "empty":
            content = ""
        elif injected == "cut":
            content, finish = content[: len(content) // 2], "length"
        elif isinstance(injected, str) and injected.startswith("answer:"):
            content = injected.removeprefix("answer:")
        if body.get("stream"):
            if not structured:
                content += "".join(f" word{i}" for i in range(server.extra_words))
            break_after = 2 if injected == "break" else None
            stream = _stream(model, content, server.token_interval_s, server.stream_usage, break_after)
            return StreamingResponse(stream, media_type="text/event-stream")
        return JSONResponse(_completion(model, content, finish))

    async def embeddings(request: Request) -> Response:
        body = await request.json()
        server.requests.append({"path": request.url.path, "body": body})
        if not authorised(request):
            return JSONResponse({"error": {"message": "Incorrect API key"}}, 401)
        injected = fault()
        if isinstance(injected, Response):
            return injected
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        dim = body.get("dimensions") or 1536
        data = [{"object": "embedding", "index": i, "embedding": _embedding(t, dim)} for i, t in enumerate(texts)]
        tokens = sum(len(t.split()) for t in texts)
        return JSONResponse(
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    return Starlette(
        routes=[
            Route("/v1/chat/completions", chat, methods=["POST"]),
            Route("/v1/embeddings", embeddings, methods=["POST"]),
        ]
    )


@contextmanager
def openai_server(latency_s: float = 0.0, token_interval_s: float = 0.0, **behaviour: Any) -> Iterator[OpenAIServer]:
    """The double on a free port; `behaviour` sets OpenAIServer fields (dialect, stream_usage, ...)."""
    state = OpenAIServer(url="", latency_s=latency_s, token_interval_s=token_interval_s, **behaviour)

    def app_for(port: int) -> Starlette:
        state.url = f"http://127.0.0.1:{port}/v1"
        return build_app(state)

    with serve(app_for):
        yield state
