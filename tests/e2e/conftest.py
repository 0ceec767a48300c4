"""The whole system as users run it: `policypal up` in a subprocess, driven over HTTP and SSE."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import nats
import pytest
from nats.js.errors import NotFoundError
from playwright.sync_api import Browser, sync_playwright

from shared.config import get_settings
from shared.runtime.launcher import LaunchedSystem, launch_up
from tests.e2e.browser import launch
from tests.integration.oidc_provider import CLIENT_ID, CLIENT_SECRET, OidcProvider, oidc_provider

pytestmark = pytest.mark.e2e

MAX_UPLOAD_BYTES = 2_000_000


@dataclass
class System:
    launched: LaunchedSystem

    @property
    def url(self) -> str:
        return self.launched.url

    @property
    def token(self) -> str:
        return self.launched.token

    @property
    def process(self) -> subprocess.Popen:
        return self.launched.process

    def client(self, token: str | None = None, **kwargs) -> httpx.Client:
        headers = {"Authorization": f"Bearer {token or self.token}"}
        return httpx.Client(base_url=self.url, headers=headers, timeout=httpx.Timeout(120.0), **kwargs)

    def object_names(self) -> list[str]:
        """Names in the `pp-uploads` object store, read over NATS."""

        async def names() -> list[str]:
            nc = await nats.connect(f"nats://127.0.0.1:{self.launched.env['PP_NATS_PORT']}")
            try:
                store = await nc.jetstream().object_store("pp-uploads")
                try:
                    return [info.name for info in await store.list() if not info.deleted]
                except NotFoundError:
                    return []
            finally:
                await nc.close()

        return asyncio.run(names())

    def mint(self, *args: str) -> str:
        out = subprocess.run(
            [sys.executable, "-m", "policypal.cli", "token", *args],
            env=self.launched.env,
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()


@pytest.fixture(scope="session")
def oidc() -> Iterator[OidcProvider]:
    """The demo tenant's identity provider (wire-level), so single sign-on runs end to end."""
    with oidc_provider() as provider:
        yield provider


@pytest.fixture(scope="session")
def system(tmp_path_factory: pytest.TempPathFactory, oidc: OidcProvider) -> Iterator[System]:
    sso = {
        "issuer": oidc.issuer,
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "name": "Corp SSO",
        "role_map": {"pp-admins": "admin"},
    }
    launched = launch_up(
        tmp_path_factory.mktemp("up"),
        {
            "PP_ACK_WAIT_S": "6",
            "PP_RPC_TIMEOUT_S": "30",
            "PP_SECRET_KEY": "e2e-secret-0123456789abcdef0123456789",
            "PP_MAX_UPLOAD_BYTES": str(MAX_UPLOAD_BYTES),
            # Answers stream at a model's pace, so browser tests can stop and reload mid-answer.
            "PP_OFFLINE_DELTA_INTERVAL_S": "0.2",
            "PP_OIDC_PROVIDERS": json.dumps({get_settings().demo_tenant_id: sso}),
            # Every client here is 127.0.0.1: the API fuzzer's failed sign-ins would otherwise throttle
            # the browser tests' address (the throttle is tested in tests/integration/test_accounts.py).
            "PP_SIGNIN_FREE_FAILURES": "100000",
        },
    )
    yield System(launched)
    launched.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the session; tests open their own contexts (separate storage).

    While it is open an event loop runs on the main thread: browser tests must not call
    `asyncio.run` (the root conftest orders them after every other test).
    """
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()
