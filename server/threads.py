"""Thread ownership: every conversation belongs to one tenant and one user.

The checkpointer keeps the conversation itself; this small table (in the state database,
beside the checkpoints) says whose it is, so a thread of another tenant or user is simply
not found (HTTP 404), never shown. It also holds
each thread's committed checkpoint: a turn that ends well moves it forward in one statement,
and a turn that fails never does, so a turn is all or nothing — a failed one leaves no
question without its answer, and a new thread whose first turn failed (or was refused) is
not in the caller's list. Every statement is bounded in time: a lost database is
`DatabaseUnavailable`, never a hang.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import asyncpg

from orquestra.core.database import admin_url, database_work, setup_lock, state_scope
from orquestra.core.settings import Settings
from orquestra.graph.checkpoints import SCHEMA
from orquestra.server.auth import Caller
from orquestra.server.schemas import THREAD_ID

TABLE = f"{SCHEMA}.threads"
TITLE_CHARS = 120


def new_thread_id() -> str:
    return str(uuid.uuid4())


def thread_scope(settings: Settings) -> str:
    """The deployment and the data database a server answers about: `shops/orquestra_shops`."""
    return state_scope(settings.active_deployment.name, admin_url(settings))


class ThreadStore:
    """The threads table, through the owner's pool, each call within `timeout_s`."""

    def __init__(self, pool: asyncpg.Pool, timeout_s: float, scope: str = "") -> None:
        self.pool = pool
        self.timeout_s = timeout_s
        self.scope = scope
        """Which deployment and data database these threads answer about. One state
        database may serve several (`ORQUESTRA_STATE_URL`, or `orquestra_state` beside
        several data databases), and tenant codes and user names repeat between them: a
        thread is found only in its own scope."""

    async def ensure_table(self) -> None:
        async with self.pool.acquire() as conn, setup_lock(conn, "preparing the threads table"):
            await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
            await conn.execute(
                f"CREATE TABLE IF NOT EXISTS {TABLE} (thread_id text PRIMARY KEY,"
                " tenant text NOT NULL, user_id text NOT NULL, title text NOT NULL,"
                " created_at timestamptz NOT NULL DEFAULT now(),"
                " updated_at timestamptz NOT NULL DEFAULT now())"
            )
            await conn.execute(f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS checkpoint_id text")
            await conn.execute(
                f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS scope text NOT NULL DEFAULT ''"
            )
            # The committed checkpoint the pruner last cleared failed turns up to.
            await conn.execute(f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS clean_through text")
            await conn.execute("DROP INDEX IF EXISTS " + f"{SCHEMA}.threads_owner_idx")
            await conn.execute(
                f"CREATE INDEX IF NOT EXISTS threads_scope_owner_idx ON {TABLE}"
                " (scope, tenant, user_id, updated_at)"
            )

    async def commit(
        self,
        caller: Caller,
        thread_id: str,
        title: str,
        checkpoint_id: str,
        *,
        previous: str | None,
    ) -> bool:
        """A turn ended well: the thread (recorded if new) now stands at `checkpoint_id`.

        Compare-and-set: only if it still stood at `previous`, where the turn started, so two
        processes answering on one thread can never commit each other's turn. False when
        another turn was committed first, or when the thread was deleted meanwhile (a turn on
        an existing thread never records it again).
        """
        if previous is None:
            sql = (
                f"INSERT INTO {TABLE} (thread_id, tenant, user_id, title, checkpoint_id, scope)"
                " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (thread_id) DO UPDATE"
                " SET checkpoint_id = EXCLUDED.checkpoint_id, updated_at = now()"
                f" WHERE {TABLE}.tenant = EXCLUDED.tenant AND {TABLE}.user_id = EXCLUDED.user_id"
                f" AND {TABLE}.scope = EXCLUDED.scope AND {TABLE}.checkpoint_id IS NULL"
            )
            args: tuple[str, ...] = (thread_id, caller.tenant, caller.user)
            args += ((title.strip() or "…")[:TITLE_CHARS], checkpoint_id, self.scope)
        else:
            sql = (
                f"UPDATE {TABLE} SET checkpoint_id = $5, updated_at = now() WHERE thread_id = $1"
                " AND tenant = $2 AND user_id = $3 AND scope = $4 AND checkpoint_id = $6"
            )
            args = (thread_id, caller.tenant, caller.user, self.scope, checkpoint_id, previous)
        async with database_work(self.timeout_s, "committing the turn"):
            status: str = await self.pool.execute(sql, *args)
        return status.endswith(" 1")

    async def ping(self) -> None:
        """`DatabaseUnavailable` unless the database answers now."""
        async with database_work(self.timeout_s, "starting the turn"):
            await self.pool.fetchval("SELECT 1")

    async def owned(self, caller: Caller, thread_id: str) -> dict[str, Any] | None:
        """The thread if the caller owns it; None if it does not exist or is someone else's."""
        if not THREAD_ID.match(thread_id):
            return None  # no thread has such an id; PostgreSQL need not see it
        async with database_work(self.timeout_s, "reading the thread"):
            row = await self.pool.fetchrow(
                f"SELECT thread_id, title, checkpoint_id, created_at, updated_at FROM {TABLE}"
                " WHERE thread_id = $1 AND tenant = $2 AND user_id = $3 AND scope = $4",
                thread_id,
                caller.tenant,
                caller.user,
                self.scope,
            )
        return dict(row) if row else None

    async def listed(self, caller: Caller, limit: int = 100) -> list[dict[str, Any]]:
        async with database_work(self.timeout_s, "listing threads"):
            rows = await self.pool.fetch(
                f"SELECT thread_id, title, created_at, updated_at FROM {TABLE}"
                " WHERE scope = $1 AND tenant = $2 AND user_id = $3"
                " ORDER BY updated_at DESC LIMIT $4",
                self.scope,
                caller.tenant,
                caller.user,
                limit,
            )
        return [
            {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in r.items()}
            for r in rows
        ]
