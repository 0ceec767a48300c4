"""The connection type every query function takes.

Both pools open their connections with `row_factory=dict_row`, so a row is a `dict`; annotating a
parameter as bare `AsyncConnection` would tell the type checker rows are tuples.
"""

from typing import TypeAlias

from psycopg import AsyncConnection, AsyncCursor
from psycopg.rows import DictRow

Conn: TypeAlias = AsyncConnection[DictRow]


async def one(cursor: AsyncCursor[DictRow]) -> DictRow:
    """The row of a statement that always returns one (`INSERT … RETURNING`, an aggregate, an upsert)."""
    row = await cursor.fetchone()
    if row is None:
        raise LookupError("the statement returned no row")
    return row
