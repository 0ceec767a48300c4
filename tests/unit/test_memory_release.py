"""Freed heap memory goes back to the OS (the embedding service does this after ingest work)."""

from __future__ import annotations

import sys

import psutil
import pytest

from shared.runtime.memory import release_freed_memory


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="malloc_trim is glibc's")
def test_freed_memory_is_returned_to_the_os():
    process = psutil.Process()
    blocks = [bytes(2048) for _ in range(100_000)]  # ~200 MB of malloc'd (not mmap'd) blocks
    keep = blocks[::500]  # a few survivors pin the heap's top, as a model's buffers do
    del blocks
    held = process.memory_info().rss
    assert release_freed_memory()
    released = held - process.memory_info().rss
    assert released > 100 * 2**20, f"only {released / 2**20:.0f} MB returned"
    assert len(keep) == 200
