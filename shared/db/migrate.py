"""`policypal migrate`: versioned SQL files, the application role, and LangGraph's tables.

Runs as the owner (`PP_DATABASE_ADMIN_URL`); the services then log in as the app role, which
neither owns the tables nor has BYPASSRLS, so `FORCE ROW LEVEL SECURITY` binds it.
"""

from __future__ import annotations

import logging
from importlib import resources

import psycopg
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg import sql
from psycopg.rows import dict_row

from shared.config import Settings
from shared.db.conn import Conn, one

log = logging.getLogger(__name__)

MIGRATIONS_LOCK = 727_001
# Tables the app role may only read and append to: the blanket grant below is narrowed for them.
APPEND_ONLY = ("audit_log",)


def migration_files() -> list[tuple[str, str]]:
    folder = resources.files("shared.db") / "migrations"
    files = sorted((p for p in folder.iterdir() if p.name.endswith(".sql")), key=lambda p: p.name)
    return [(p.name.removesuffix(".sql"), p.read_text()) for p in files]


def render(text: str, settings: Settings) -> str:
    return text.replace("{{EMBEDDING_DIM}}", str(settings.embedding_dim))


async def ensure_app_role(conn: Conn, settings: Settings) -> None:
    role = settings.db_app_role
    exists = await (await conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,))).fetchone()
    if not exists:
        await conn.execute(sql.SQL("CREATE ROLE {} LOGIN NOBYPASSRLS").format(sql.Identifier(role)))
    await conn.execute(sql.SQL("ALTER ROLE {} NOBYPASSRLS NOSUPERUSER").format(sql.Identifier(role)))
    if settings.db_app_password:
        await conn.execute(
            sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(role), sql.Literal(settings.db_app_password))
        )


async def grant_app_role(conn: Conn, settings: Settings) -> None:
    role = sql.Identifier(settings.db_app_role)
    for statement in (
        "GRANT USAGE ON SCHEMA public TO {}",
        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {}",
        "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {}",
    ):
        await conn.execute(sql.SQL(statement).format(role))
    for table in APPEND_ONLY:
        await conn.execute(sql.SQL("REVOKE UPDATE, DELETE, TRUNCATE ON {} FROM {}").format(sql.Identifier(table), role))


async def apply_migrations(settings: Settings) -> list[str]:
    """Apply pending migrations; returns the versions applied now. Safe to run concurrently."""
    url = settings.admin_url
    if not url:
        raise RuntimeError("set PP_DATABASE_ADMIN_URL or PP_DATABASE_URL")
    applied_now: list[str] = []
    async with await psycopg.AsyncConnection.connect(url, autocommit=True, row_factory=dict_row) as conn:
        await conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATIONS_LOCK,))
        try:
            await conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            await ensure_app_role(conn, settings)
            done = {
                r["version"] for r in await (await conn.execute("SELECT version FROM schema_migrations")).fetchall()
            }
            for version, text in migration_files():
                if version in done:
                    continue
                async with conn.transaction():
                    await conn.execute(render(text, settings))
                    await conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
                applied_now.append(version)
                log.info("applied migration %s", version)
            await AsyncPostgresSaver(conn).setup()
            await grant_app_role(conn, settings)
        finally:
            await conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATIONS_LOCK,))
    return applied_now


async def check_embedding_dim(conn: Conn, expected: int) -> None:
    """Fail fast when the deployment's embedder and the database disagree on dimensions."""
    row = await one(
        await conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attname = 'embedding'"
        )
    )
    actual = row["atttypmod"]
    if actual != expected:
        raise RuntimeError(
            f"embedding dimension mismatch: database chunks.embedding is vector({actual}) "
            f"but PP_EMBEDDING_DIM is {expected}"
        )
