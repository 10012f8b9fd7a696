"""Run leases: the per-tenant run limit and one turn per thread, held for the whole deployment.

Every streamed run takes a lease row in the state database before it starts (one
transaction), and gives it back when its stream ends. The limit counts live leases of the
tenant across every replica (`max_runs_per_tenant`), so N replicas never allow N times the
limit, and a thread holds at most one live lease (a second turn on it is `THREAD_BUSY`,
whichever replica it reaches).

A lease lives `run_lease_s` seconds unless renewed: each server renews its own every third
of that while the runs stream. A replica that dies mid-run stops renewing, and its leases
expire — a crash never locks a tenant out for longer than `run_lease_s`. Counting and taking
happen under a transaction-scoped advisory lock on the tenant, so two replicas deciding at the
same moment see each other's lease. Every statement is bounded in time: a lost database is
`DatabaseUnavailable` (503), never a hang.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import AsyncIterator

import asyncpg

from orquestra.core.database import database_work, setup_lock
from orquestra.graph.checkpoints import SCHEMA

log = logging.getLogger("orquestra.server")
TABLE = f"{SCHEMA}.run_leases"


def holder_name() -> str:
    """This server process, as its leases name it: host, process id and a random part (a
    restarted process with a reused pid is another holder)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class LeaseRefused(Exception):
    """No lease: the tenant is at its limit (`TOO_MANY_RUNS`) or the thread is answering
    (`THREAD_BUSY`)."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


class RunLeases:
    """The lease table, through the state database's pool; `holder` names this process."""

    def __init__(
        self, pool: asyncpg.Pool, *, ttl_s: float, timeout_s: float, scope: str = ""
    ) -> None:
        self.pool = pool
        self.ttl_s = ttl_s
        self.timeout_s = timeout_s
        self.scope = scope
        """Which deployment and data database (`threads.thread_scope`): tenant codes repeat
        between deployments sharing one state database, and so do their limits."""
        self.holder = holder_name()
        self._renewing: asyncio.Task[None] | None = None
        self._unreturned: set[str] = set()
        """Leases whose run ended while the database was away: given back (and never renewed)
        as soon as it answers again, so an outage does not hold a thread for `ttl_s`."""

    async def ensure_table(self) -> None:
        async with self.pool.acquire() as conn, setup_lock(conn, "preparing the run leases"):
            await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
            await conn.execute(
                f"CREATE TABLE IF NOT EXISTS {TABLE} (run_id text PRIMARY KEY,"
                " scope text NOT NULL, tenant text NOT NULL, thread_id text,"
                " holder text NOT NULL, expires_at timestamptz NOT NULL)"
            )
            await conn.execute(
                f"CREATE INDEX IF NOT EXISTS run_leases_tenant_idx ON {TABLE} (scope, tenant)"
            )
            await conn.execute(
                f"CREATE UNIQUE INDEX IF NOT EXISTS run_leases_thread_idx ON {TABLE} (thread_id)"
                " WHERE thread_id IS NOT NULL"
            )

    async def take(self, tenant: str, limit: int, thread_id: str) -> str:
        """A new lease for one of `tenant`'s runs on `thread_id` (its id), in one transaction:
        `LeaseRefused("TOO_MANY_RUNS")` when the tenant already holds `limit` live leases
        anywhere in the deployment, `LeaseRefused("THREAD_BUSY")` while another live lease
        holds the thread (an expired one, of a replica that died, is taken over)."""
        run_id = str(uuid.uuid4())
        async with self._connection("taking a run slot") as conn, conn.transaction():
            # One decision at a time per tenant, whichever replica makes it.
            await conn.execute(
                "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                f"orquestra:runs:{self.scope}:{tenant}",
            )
            live = await conn.fetchval(
                f"SELECT count(*) FROM {TABLE}"
                " WHERE scope = $1 AND tenant = $2 AND expires_at > now()",
                self.scope,
                tenant,
            )
            if live >= limit:
                raise LeaseRefused("TOO_MANY_RUNS")
            await conn.execute(
                f"DELETE FROM {TABLE} WHERE expires_at <= now()"
                " AND ((scope = $1 AND tenant = $2) OR thread_id = $3)",
                self.scope,
                tenant,
                thread_id,
            )
            try:
                await conn.execute(
                    f"INSERT INTO {TABLE} (run_id, scope, tenant, thread_id, holder, expires_at)"
                    " VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6))",
                    run_id,
                    self.scope,
                    tenant,
                    thread_id,
                    self.holder,
                    self.ttl_s,
                )
            except asyncpg.UniqueViolationError:
                raise LeaseRefused("THREAD_BUSY") from None
        return run_id

    async def give_back(self, run_id: str) -> None:
        """End the lease now. If the database cannot be reached, the lease expires by itself
        within `run_lease_s` (logged, never raised: the stream is over either way)."""
        self._unreturned.add(run_id)
        try:
            async with self._connection("giving back a run slot"):
                pass  # opening the connection gives back every unreturned lease
        except Exception as error:
            log.warning(
                "run lease not given back yet; retried at the next database call",
                extra={"run_id": run_id, "error": str(error)},
            )

    async def renew(self) -> int:
        """Extend every lease this process holds; how many it holds."""
        async with self._connection("renewing run leases") as conn:
            status = await conn.execute(
                f"UPDATE {TABLE} SET expires_at = now() + make_interval(secs => $2)"
                " WHERE holder = $1",
                self.holder,
                self.ttl_s,
            )
        return int(status.split()[-1])

    @contextlib.asynccontextmanager
    async def _connection(self, what: str) -> AsyncIterator[asyncpg.Connection]:
        """A connection within the time bound, after the leases of ended runs are gone."""
        async with database_work(self.timeout_s, what), self.pool.acquire() as conn:
            if self._unreturned:
                ended = list(self._unreturned)
                await conn.execute(f"DELETE FROM {TABLE} WHERE run_id = ANY($1::text[])", ended)
                self._unreturned.difference_update(ended)
            yield conn

    def start(self) -> None:
        """Renew this process's leases every third of their life, until `stop()`."""
        self._renewing = asyncio.create_task(self._renew_forever(), name="run-lease-renewal")

    async def stop(self) -> None:
        if self._renewing is not None:
            self._renewing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._renewing
            self._renewing = None
        with contextlib.suppress(Exception):  # a clean stop frees this process's slots now
            async with self._connection("giving back run slots") as conn:
                await conn.execute(f"DELETE FROM {TABLE} WHERE holder = $1", self.holder)

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(self.ttl_s / 3)
            try:
                await self.renew()
            except Exception as error:  # the database is away: retry at the next beat
                log.warning("run leases not renewed", extra={"error": str(error)})
