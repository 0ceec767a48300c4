"""What opening and holding a thread stream asks Postgres, batched across streams (`TenantBatch`).

Opening asks, in one query, what `principal` and `owned_thread` would ask in two: the account as it
is now (disabled, or its role changed since the token was minted) and whether the thread is the
caller's. Holding a replayed stream asks, now and then, whether anything still runs on its thread.
"""

from __future__ import annotations

import uuid

from services.gateway.access import apply_access, workspace_role
from services.gateway.batching import TenantBatch
from services.gateway.errors import not_found
from shared.auth.tokens import Principal
from shared.db import streams
from shared.db.pool import Database


class StreamChecks:
    def __init__(self, db: Database) -> None:
        self._access = TenantBatch(db, streams.stream_access)
        self._active = TenantBatch(db, streams.threads_active)

    async def open_thread(self, p: Principal, thread_id: uuid.UUID) -> Principal:
        """The caller as the account is now, if it may read the thread's events; 401/403/404 otherwise."""
        row = await self._access.get(p.tenant_id, (p.user_id, thread_id))
        account = None if row["role"] is None else {"role": row["role"], "disabled": row["disabled"]}
        current = workspace_role(apply_access(p, account))
        if not row["owned"]:
            raise not_found("thread")
        return current

    async def thread_active(self, tenant_id: uuid.UUID, thread_id: uuid.UUID) -> bool:
        """Whether a run is in progress on the thread, or (support) its ticket waits for a human."""
        return await self._active.get(tenant_id, thread_id)
