"""Thread ownership: every conversation belongs to one tenant and one user.

The checkpointer keeps the conversation itself; this small table says whose it is, so a
thread of another tenant or user is simply not found (HTTP 404), never shown.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import asyncpg

from graph.checkpoints import SCHEMA
from server.auth import Caller

TABLE = f"{SCHEMA}.threads"


async def ensure_table(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as conn:
        await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
        await conn.execute(
            f"CREATE TABLE IF NOT EXISTS {TABLE} (thread_id text PRIMARY KEY, tenant text NOT NULL,"
            " user_id text NOT NULL, title text NOT NULL, created_at timestamptz NOT NULL"
            " DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now())"
        )
        await conn.execute(
            f"CREATE INDEX IF NOT EXISTS threads_owner_idx ON {TABLE} (tenant, user_id, updated_at)"
        )


async def create(pool: asyncpg.Pool, caller: Caller, title: str) -> str:
    thread_id = str(uuid.uuid4())
    async with pool.acquire() as conn:
        await conn.execute(
            f"INSERT INTO {TABLE} (thread_id, tenant, user_id, title) VALUES ($1, $2, $3, $4)",
            thread_id,
            caller.tenant,
            caller.user,
            title[:120],
        )
    return thread_id


async def owned(pool: asyncpg.Pool, caller: Caller, thread_id: str) -> dict[str, Any] | None:
    """The thread if the caller owns it; None if it does not exist or is someone else's."""
    async with pool.acquire() as conn:
        row = await conn.fetchrow(
            f"SELECT thread_id, title, created_at, updated_at FROM {TABLE}"
            " WHERE thread_id = $1 AND tenant = $2 AND user_id = $3",
            thread_id,
            caller.tenant,
            caller.user,
        )
    return dict(row) if row else None


async def touch(pool: asyncpg.Pool, thread_id: str) -> None:
    async with pool.acquire() as conn:
        await conn.execute(f"UPDATE {TABLE} SET updated_at = now() WHERE thread_id = $1", thread_id)


async def listed(pool: asyncpg.Pool, caller: Caller, limit: int = 100) -> list[dict[str, Any]]:
    async with pool.acquire() as conn:
        rows = await conn.fetch(
            f"SELECT thread_id, title, created_at, updated_at FROM {TABLE}"
            " WHERE tenant = $1 AND user_id = $2 ORDER BY updated_at DESC LIMIT $3",
            caller.tenant,
            caller.user,
            limit,
        )
    return [
        {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in r.items()} for r in rows
    ]
