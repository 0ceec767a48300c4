"""Where a running `policypal up` keeps its embedded NATS and Postgres, for the other CLI commands.

`up` picks free ports and URLs at start; `policypal token`, `tenant`, `ingest` and `migrate` run as
separate processes and would otherwise need those URLs exported by hand. `up` writes them to
`<data_dir>/endpoints.json` (owner-only: it holds the owner database URL) and removes the file on exit.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import BaseModel, ValidationError

from shared.config import Settings

FILENAME = "endpoints.json"


class Endpoints(BaseModel):
    nats_url: str
    database_url: str
    database_admin_url: str


def endpoints_file(data_dir: Path) -> Path:
    return data_dir / FILENAME


def publish_endpoints(data_dir: Path, endpoints: Endpoints) -> Path:
    """Write atomically with mode 0600 so a reader never sees half a file and no other user reads it."""
    path = endpoints_file(data_dir)
    partial = path.with_suffix(".tmp")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(endpoints.model_dump_json())
    partial.replace(path)
    return path


def withdraw_endpoints(data_dir: Path) -> None:
    endpoints_file(data_dir).unlink(missing_ok=True)


def read_endpoints(data_dir: Path) -> Endpoints | None:
    try:
        return Endpoints.model_validate(json.loads(endpoints_file(data_dir).read_text()))
    except (OSError, ValueError, ValidationError):
        return None


def with_running_platform(settings: Settings) -> Settings:
    """The settings, completed with the running embedded platform's URLs where none are configured."""
    if settings.database_url and settings.nats_url:
        return settings
    found = read_endpoints(settings.data_dir.resolve())
    if found is None:
        return settings
    return settings.model_copy(
        update={
            "nats_url": settings.nats_url or found.nats_url,
            "database_url": settings.database_url or found.database_url,
            "database_admin_url": settings.database_admin_url or settings.database_url or found.database_admin_url,
        }
    )
