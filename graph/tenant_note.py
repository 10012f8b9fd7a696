"""The per-person allowance of "another tenant named" notes, kept in the state database.

A note tells the asker that a name they wrote belongs to another tenant, so a person gets at
most `per_user` noted messages in any `window_s` (`Settings.tenant_name_note`); past that the
answer says nothing about the name. The count is one row per (deployment scope, tenant,
user) in Orquestra's state database (`orquestra_sessions.tenant_name_notes`), holding the
times of the notes still inside the window, so the limit holds across every replica, as the
run leases' limit does (`server.run_leases`).

Every message checked runs the same single statement, whether it named another tenant or
not: an upsert of the person's row (the row lock of `ON CONFLICT DO UPDATE` makes concurrent
replicas count one after another). The time the check takes therefore says nothing about
whether a name was found. Bounded in time: a lost database is `DatabaseUnavailable`, which
the caller answers by leaving the note out.
"""

from __future__ import annotations

import asyncpg

from orquestra.core.database import database_work, setup_lock
from orquestra.core.settings import TenantNameNote
from orquestra.graph.checkpoints import SCHEMA

TABLE = f"{SCHEMA}.tenant_name_notes"

TAKE = f"""
INSERT INTO {TABLE} AS t (scope, tenant, user_id, noted, granted)
VALUES ($1, $2, $3,
        CASE WHEN $4 AND $5 > 0 THEN ARRAY[now()] ELSE '{{}}'::timestamptz[] END,
        $4 AND $5 > 0)
ON CONFLICT (scope, tenant, user_id) DO UPDATE SET (noted, granted) = (
    SELECT live || CASE WHEN ok THEN ARRAY[now()] ELSE '{{}}'::timestamptz[] END, ok
    FROM (SELECT live, $4 AND cardinality(live) < $5 AS ok
          FROM (SELECT ARRAY(SELECT s FROM unnest(t.noted) AS s
                             WHERE s > now() - make_interval(secs => $6) ORDER BY s) AS live
               ) AS window_
         ) AS decision)
RETURNING granted
"""
"""One statement for every message: the notes still inside the window are kept, and one is
added (`granted`) when the message named another tenant and fewer than the limit remain."""


class NoteAllowance:
    """The notes table, through the state database's pool."""

    def __init__(
        self, pool: asyncpg.Pool, note: TenantNameNote, *, timeout_s: float, scope: str = ""
    ) -> None:
        self.pool = pool
        self.per_user = note.per_user
        self.window_s = note.window_s
        self.timeout_s = timeout_s
        self.scope = scope
        """Which deployment and data database (as `server.threads.thread_scope`): tenant codes
        and user names repeat between deployments sharing one state database."""

    async def ensure_table(self) -> None:
        # The lock's wait has its own bound (another replica may be creating its objects).
        work = database_work(self.timeout_s, "preparing tenant-name notes")
        async with self.pool.acquire() as conn, setup_lock(conn, "preparing the notes"), work:
            await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
            await conn.execute(
                f"CREATE TABLE IF NOT EXISTS {TABLE} (scope text NOT NULL,"
                " tenant text NOT NULL, user_id text NOT NULL,"
                " noted timestamptz[] NOT NULL, granted boolean NOT NULL,"
                " PRIMARY KEY (scope, tenant, user_id))"
            )

    async def take(self, tenant: str, user: str, *, named: bool) -> bool:
        """Whether this message of `user` of `tenant`, which `named` another tenant or not,
        may say so: True (and counted) while the person has notes left. Called for every
        message checked, named or not: the same statement either way."""
        async with database_work(self.timeout_s, "counting tenant-name notes"):
            granted = await self.pool.fetchval(
                TAKE, self.scope, tenant, user, named, self.per_user, float(self.window_s)
            )
        return bool(granted)
