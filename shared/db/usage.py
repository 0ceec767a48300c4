"""The `usage` ledger: what each model call cost, per tenant, user, thread, run and task."""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import Counter

from shared.db.conn import Conn, one

# What operators alert on besides backlog: spend. Counted where the ledger row is written.
TOKENS = Counter("pp_llm_tokens_total", "Model tokens recorded in the usage ledger", ["task", "model", "direction"])
COST = Counter("pp_llm_cost_usd_total", "Model cost recorded in the usage ledger, USD", ["task", "model"])


@dataclass(frozen=True)
class UsageRow:
    user_id: str | None
    thread_id: str | None
    run_id: str | None
    task: str
    model: str
    input_tokens: int
    output_tokens: int
    cost_usd: float
    request_hash: str | None = None
    output: str | None = None


async def record_usage(conn: Conn, tenant_id: str, row: UsageRow) -> None:
    await conn.execute(
        "INSERT INTO usage (tenant_id, user_id, thread_id, run_id, task, model, input_tokens, output_tokens,"
        " cost_usd, request_hash, output) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
        (
            tenant_id,
            row.user_id,
            row.thread_id,
            row.run_id,
            row.task,
            row.model,
            row.input_tokens,
            row.output_tokens,
            row.cost_usd,
            row.request_hash,
            row.output,
        ),
    )
    TOKENS.labels(row.task, row.model, "input").inc(row.input_tokens)
    TOKENS.labels(row.task, row.model, "output").inc(row.output_tokens)
    COST.labels(row.task, row.model).inc(row.cost_usd)


async def recorded_output(conn: Conn, run_id: str, request_hash: str) -> str | None:
    """The output an identical request of the same run already paid for, if any."""
    row = await (
        await conn.execute(
            "SELECT output FROM usage WHERE run_id = %s AND request_hash = %s AND output IS NOT NULL"
            " ORDER BY id DESC LIMIT 1",
            (run_id, request_hash),
        )
    ).fetchone()
    return row["output"] if row else None


async def run_totals(conn: Conn, run_id: str) -> tuple[int, float]:
    """(tokens, USD) of every model call of a run, across all its stages and processes."""
    row = await one(
        await conn.execute(
            "SELECT coalesce(sum(input_tokens + output_tokens), 0) AS tokens, coalesce(sum(cost_usd), 0) AS cost"
            " FROM usage WHERE run_id = %s",
            (run_id,),
        )
    )
    return int(row["tokens"]), float(row["cost"])
