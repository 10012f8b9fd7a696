"""Conversation memory: LangGraph's PostgreSQL checkpointer, in its own schema.

Threads survive restarts and can be served by any process sharing the database.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from urllib.parse import quote, urlsplit, urlunsplit

import psycopg
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg.rows import dict_row
from psycopg_pool import AsyncConnectionPool

SCHEMA = "orquestra_sessions"


def with_search_path(url: str, schema: str) -> str:
    parts = urlsplit(url)
    option = "options=" + quote(f"-c search_path={schema}")
    query = f"{parts.query}&{option}" if parts.query else option
    return urlunsplit(parts._replace(query=query))


@asynccontextmanager
async def postgres_checkpointer(admin_url: str) -> AsyncIterator[AsyncPostgresSaver]:
    """A ready checkpointer (tables created once) on a small connection pool."""
    async with await psycopg.AsyncConnection.connect(admin_url, autocommit=True) as conn:
        await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
    pool = AsyncConnectionPool(
        with_search_path(admin_url, SCHEMA),
        min_size=1,
        max_size=8,
        open=False,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
    )
    await pool.open()
    try:
        saver = AsyncPostgresSaver(pool)
        await saver.setup()
        yield saver
    finally:
        await pool.close()
