"""Who may do what, as pure checks of a principal (no request, no database): shared by the
dependencies of services/gateway/auth.py and the batched stream checks (stream_checks.py)."""

from __future__ import annotations

from services.gateway.errors import ApiError
from shared.auth.tokens import Principal


def apply_access(p: Principal, account: dict | None) -> Principal:
    """`p` with the account's current role; 401 when the account is disabled."""
    if account is None:
        return p
    if account["disabled"]:
        raise ApiError(401, "account_disabled", "this account is disabled; ask your tenant admin")
    return p if account["role"] == p.role else p.model_copy(update={"role": account["role"]})


def workspace_role(p: Principal) -> Principal:
    """`p` if it is a workspace user; other roles may not use the document and chat API."""
    if p.role not in ("user", "admin"):
        raise ApiError(403, "forbidden", f"role {p.role!r} cannot use this endpoint")
    return p
