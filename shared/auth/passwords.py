"""Password hashing with Argon2 (pwdlib), and the dummy check that keeps unknown emails as slow as known ones."""

from __future__ import annotations

import asyncio
from functools import lru_cache

from pwdlib import PasswordHash


@lru_cache(maxsize=1)
def _hasher() -> PasswordHash:
    return PasswordHash.recommended()


@lru_cache(maxsize=1)
def _dummy_hash() -> str:
    return _hasher().hash("policypal-dummy-password-for-timing")


async def hash_password(password: str) -> str:
    """Argon2id; run off the event loop (tens of milliseconds of CPU by design)."""
    return await asyncio.to_thread(_hasher().hash, password)


async def verify_password(password: str, stored_hash: str | None) -> bool:
    """True when it matches. With no stored hash (unknown email, SSO-only account) a dummy
    hash is verified instead, so the answer takes as long as for a real account."""
    if stored_hash is None:
        await asyncio.to_thread(_hasher().verify, password, _dummy_hash())
        return False
    return await asyncio.to_thread(_hasher().verify, password, stored_hash)
