"""The operator's CLI against the embedded default: `token` and `tenant` find the running `up`
through its data directory, and a token is never minted for a tenant that does not exist."""

from __future__ import annotations

import stat
import subprocess
import sys
import uuid

from tests.e2e.conftest import System


def policypal(system: System, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "policypal.cli", *args], env=system.launched.env, capture_output=True, text=True
    )


def test_token_refuses_an_unknown_tenant_unless_asked_to_register_it(system: System):
    unknown = str(uuid.uuid4())
    refused = policypal(system, "token", "--tenant", unknown)
    assert refused.returncode == 2 and refused.stdout == ""
    assert f"tenant {unknown} is not registered" in refused.stderr

    created = policypal(system, "token", "--tenant", unknown, "--create", "Globex", "--user", "hank")
    assert created.returncode == 0, created.stderr
    with system.client(created.stdout.strip()) as client:
        assert client.get("/v1/documents").status_code == 200
    assert policypal(system, "token", "--tenant", unknown).returncode == 0


def test_tenant_registers_against_the_embedded_default_and_the_endpoints_stay_private(system: System):
    assert not any(key in system.launched.env for key in ("PP_DATABASE_URL", "PP_DATABASE_ADMIN_URL"))
    tenant = str(uuid.uuid4())
    registered = policypal(system, "tenant", "--id", tenant, "--name", "Initech", "--user", "peter")
    assert registered.returncode == 0, registered.stderr
    assert f"tenant {tenant} ready with user peter" in registered.stdout
    operator = policypal(system, "token", "--tenant", tenant, "--user", "ops", "--role", "operator")
    assert operator.returncode == 0, operator.stderr
    with system.client(operator.stdout.strip()) as client:
        assert client.post("/v1/admin/tenants", json={"name": "Made by the operator"}).status_code == 201
    endpoints = system.launched.data_dir / "endpoints.json"
    assert stat.S_IMODE(endpoints.stat().st_mode) == 0o600


def test_every_token_the_cli_mints_is_in_the_tenants_audit_log_but_not_the_token(system: System):
    tenant = str(uuid.uuid4())
    minted = policypal(system, "token", "--tenant", tenant, "--create", "Umbrella", "--user", "ada", "--role", "admin")
    assert minted.returncode == 0, minted.stderr
    token = minted.stdout.strip()
    with system.client(token) as client:
        entries = client.get("/v1/admin/audit").json()["items"]
    (entry,) = [e for e in entries if e["action"] == "token.mint"]
    assert entry["actor"].startswith("cli:") and entry["target"] == "ada"
    assert entry["detail"]["role"] == "admin" and entry["detail"]["sub"] == "ada"
    assert token not in str(entries)
