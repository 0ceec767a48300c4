"""The short version of the fault campaign (`policypal bench faults`), run in CI.

Under a steady load of turns and uploads, SIGKILL the resolver and the inquire worker mid-stage,
the inquire worker right after its terminal publish, and the ingest worker mid-upload; then count
on the bus: every turn ended exactly once, nothing lost, nothing duplicated, no upload stuck or
stored twice. Its own system with the default lease (`PP_ACK_WAIT_S`), so redelivery is what a
user gets.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from bench.fault_audit import RowCount, count_row, events_by_run
from bench.fault_load import Load
from bench.faults import ENV, ROWS, Campaign, launch, settle, with_load
from shared.runtime.endpoints import read_endpoints
from shared.runtime.launcher import LaunchedSystem

TRIALS = 2


@pytest.fixture(scope="module")
def launched(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LaunchedSystem]:
    system = launch(tmp_path_factory.mktemp("faults"), ENV)
    yield system
    system.stop()


def test_killed_workers_lose_and_duplicate_nothing(launched: LaunchedSystem):
    names = ["kill-resolver", "kill-inquire", "kill-inquire-after-terminal", "kill-ingest"]

    async def campaign() -> tuple[Campaign, Load, int, dict]:
        holder: dict[str, Campaign] = {}

        async def body(load: Load) -> None:
            holder["campaign"] = Campaign(launched, load, TRIALS)
            for name in names:
                await holder["campaign"].run_row(RowCount(name, TRIALS), ROWS[name])

        load, chunks = await with_load(launched, 4, "ci", body)
        await settle(load, len(load.turns), len(load.uploads))
        return holder["campaign"], load, chunks, await events_by_run(read_endpoints(launched.data_dir).nats_url)

    ran, load, chunks, bus = asyncio.run(campaign())
    rows = [count_row(row, load.turns[t0:t1], load.uploads[u0:u1], bus, chunks) for row, t0, t1, u0, u1 in ran.rows]
    for row in rows:
        assert row.turns > 0, row.as_dict()
        assert (row.lost, row.duplicated, row.errored, row.refused_5xx) == (0, 0, 0, 0), row.as_dict()
        assert row.completed == row.turns, row.as_dict()
        assert (row.uploads_lost, row.uploads_duplicated) == (0, 0), row.as_dict()
    mid_stage = [r for r in rows if r.fault in ("kill-resolver", "kill-inquire")]
    assert all(len(r.recovery_s) == TRIALS for r in mid_stage), [r.as_dict() for r in mid_stage]
    assert sum(row.uploads for row in rows) > 0
