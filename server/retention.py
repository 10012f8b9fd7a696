"""Retention: conversations idle past `thread_retention_days`, what failed turns left, and
conversations nobody owns are deleted from the state database, in bounded batches, by one
process at a time.

Every serving replica runs `Pruner.run` in the background (every `thread_prune_interval_s`),
and `orquestra threads prune` runs one pass on demand. A pass first takes an advisory lock,
held by a transaction of its own connection (`core.database.take_lock`): while one process
prunes a state database, the others skip their turn instead of queueing. A batch holds at most
`thread_prune_batch` threads, in two short transactions: the first takes each thread's run
lease (`server.thread_erasure.claim`: a thread a turn is answering on is skipped, and no
turn starts on one being pruned), the second deletes and gives the leases back. What each
batch deletes is `server.retention_sql`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field

import asyncpg
from prometheus_client import Counter

from orquestra.core.database import take_lock
from orquestra.core.settings import Settings
from orquestra.server import retention_sql as sql
from orquestra.server.thread_erasure import (
    CHECKPOINTS,
    Removed,
    claim,
    erase,
    eraser_name,
    release,
)

log = logging.getLogger("orquestra.retention")
PRUNE_LOCK = 7_460_004
"""The advisory lock's key (beside `core.database.SETUP_LOCK`): one pruner per state database."""
PRUNED = Counter("orquestra_pruned_rows_total", "Rows the thread pruner deleted", ["kind"])
FIRST_PASS_S = 300.0
"""A replica's first pass comes within this (or the interval, if shorter) after it starts,
so that replicas restarted more often than the interval still prune."""


@dataclass
class PruneReport:
    """What one pass removed (or, dry, would remove), and how long each batch took."""

    removed: Removed = field(default_factory=Removed)
    batch_s: list[float] = field(default_factory=list)
    dry_run: bool = False

    @property
    def seconds(self) -> float:
        return round(sum(self.batch_s), 3)

    def as_json(self) -> dict[str, object]:
        return {
            "dry_run": self.dry_run,
            "removed": asdict(self.removed),
            "batches": len(self.batch_s),
            "seconds": self.seconds,
        }


Batch = Callable[[asyncpg.Connection, list[str]], Awaitable[Removed]]


class Pruner:
    """One state database's pruning, for the deployment named by `scope`
    (`server.threads.thread_scope`): its own threads past retention and their failed turns;
    conversations nobody owns, whichever deployment they were asked in."""

    def __init__(
        self,
        pool: asyncpg.Pool,
        *,
        scope: str,
        retention_s: float | None,
        orphan_grace_s: float,
        batch: int,
        lease_ttl_s: float,
        note_window_s: float,
    ) -> None:
        self.pool = pool
        self.scope = scope
        self.retention_s = retention_s
        """Idle time after which a conversation goes; None keeps conversations."""
        self.orphan_grace_s = orphan_grace_s
        self.batch = batch
        self.lease_ttl_s = lease_ttl_s
        self.note_window_s = note_window_s
        self._running: asyncio.Task[None] | None = None

    @classmethod
    def of(
        cls,
        pool: asyncpg.Pool,
        settings: Settings,
        scope: str,
        *,
        older_than_days: float | None = None,
    ) -> Pruner:
        """The settings' pruner; `older_than_days` (even 0) in place of the retention."""
        retention = retention_of(settings.thread_retention_days)
        if older_than_days is not None:
            retention = older_than_days * 86_400.0
        return cls(
            pool,
            scope=scope,
            retention_s=retention,
            orphan_grace_s=settings.thread_orphan_grace_s,
            batch=settings.thread_prune_batch,
            lease_ttl_s=settings.run_lease_s,
            note_window_s=float(settings.tenant_name_note.window_s),
        )

    async def prune(self, *, dry_run: bool = False) -> PruneReport | None:
        """One pass; None when another process holds the lock (it is pruning now). A dry run
        makes the same deletions in transactions it rolls back, and holds no thread."""
        # The lock is held by a transaction of its own connection for the whole pass
        # (transaction-scoped: a database Orquestra owns revokes the session-level lock
        # functions from PUBLIC); the batches commit on the other connection as they go.
        async with self.pool.acquire() as holder, holder.transaction():
            if not await take_lock(holder, PRUNE_LOCK, 0):
                return None
            async with self.pool.acquire() as conn:
                report = PruneReport(dry_run=dry_run)
                if await _checkpoints_exist(conn):
                    await self._owned(conn, report)
                    await self._orphans(conn, report)
                report.removed += await sql.spent_note_counters(
                    conn, self.scope, self.note_window_s, self.batch, dry_run=dry_run
                )
                return report

    async def _owned(self, conn: asyncpg.Connection, report: PruneReport) -> None:
        """This deployment's threads past retention, and their failed turns."""
        cursor = ""
        while True:
            rows = await conn.fetch(
                sql.OWNED_TO_LOOK_AT, self.scope, cursor, self.retention_s, self.batch
            )
            if not rows:
                return
            cursor = rows[-1]["thread_id"]
            await self._batch(conn, [r["thread_id"] for r in rows], self._owned_batch, report)
            if len(rows) < self.batch:
                return

    async def _owned_batch(self, conn: asyncpg.Connection, held: list[str]) -> Removed:
        threads = await sql.owned_now(conn, held, self.retention_s)
        expired = [t.thread_id for t in threads if t.expired]
        removed = await erase(conn, expired) if expired else Removed()
        return removed + await sql.clear_failed_turns(conn, [t for t in threads if not t.expired])

    async def _orphans(self, conn: asyncpg.Connection, report: PruneReport) -> None:
        """Checkpoints of conversations nobody owns, past the grace."""
        cursor = ""
        while True:
            rows = await conn.fetch(sql.ORPHANS_TO_LOOK_AT, cursor, self.batch, self.orphan_grace_s)
            if not rows:
                return
            cursor = rows[-1]["thread_id"]
            orphans = [r["thread_id"] for r in rows if r["orphan"]]
            if orphans:
                await self._batch(conn, orphans, self._orphan_batch, report)
            if len(rows) < self.batch:
                return

    async def _orphan_batch(self, conn: asyncpg.Connection, held: list[str]) -> Removed:
        # Held now: a first turn that committed before the hold is no orphan any more.
        unowned = [r["t"] for r in await conn.fetch(sql.UNOWNED_NOW, held)]
        return await erase(conn, unowned) if unowned else Removed()

    async def _batch(
        self, conn: asyncpg.Connection, thread_ids: Sequence[str], work: Batch, report: PruneReport
    ) -> None:
        """`work` on the threads of `thread_ids` no turn is answering on: held, then done in
        a transaction of its own (rolled back in a dry run), then given back."""
        started = time.perf_counter()
        holder = eraser_name()
        if report.dry_run:
            held = [r["t"] for r in await conn.fetch(sql.NOT_ANSWERING, list(thread_ids))]
        else:
            async with conn.transaction():
                held = await claim(conn, thread_ids, holder=holder, ttl_s=self.lease_ttl_s)
        if not held:
            return
        try:
            async with conn.transaction():
                removed = await work(conn, held)
                if report.dry_run:
                    raise _RolledBack
                await release(conn, holder)  # with the deletions, in one commit
        except _RolledBack:
            pass
        except BaseException:
            await _give_back(self.pool, holder)
            raise
        report.removed += removed
        report.batch_s.append(time.perf_counter() - started)
        if not report.dry_run:
            for kind, count in asdict(removed).items():
                PRUNED.labels(kind).inc(count)

    def start(self, interval_s: float) -> None:
        """Prune every `interval_s` (jittered, so replicas drift apart) until `stop()`."""
        self._running = asyncio.create_task(self.run(interval_s), name="thread-pruning")

    async def stop(self) -> None:
        if self._running is not None:
            self._running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._running
            self._running = None

    async def run(self, interval_s: float) -> None:
        await asyncio.sleep(random.uniform(0.1, 1.0) * min(interval_s, FIRST_PASS_S))
        while True:
            try:
                report = await self.prune()
                if report is None:
                    log.info("thread pruning skipped: another process is pruning")
                elif report.removed.total():
                    log.info(
                        "threads pruned",
                        extra={**asdict(report.removed), "batches": len(report.batch_s)},
                    )
            except Exception as error:  # the database is away, say: retried next time
                log.warning("thread pruning failed", extra={"error": str(error)})
            await asyncio.sleep(interval_s * random.uniform(0.9, 1.1))


def retention_of(days: int) -> float | None:
    """`thread_retention_days` as the pruner takes it: 0 keeps conversations (None).

    >>> retention_of(90), retention_of(0)
    (7776000.0, None)
    """
    return days * 86_400.0 if days > 0 else None


async def _checkpoints_exist(conn: asyncpg.Connection) -> bool:
    found = await conn.fetchval("SELECT to_regclass($1)", CHECKPOINTS)
    return found is not None


class _RolledBack(Exception):
    """A dry run's batch: its deletions are counted, then undone."""


async def _give_back(pool: asyncpg.Pool, holder: str) -> None:
    """A failed batch's leases, given back on a connection of their own (the batch's may be
    broken); if the database is away they expire by themselves within their life."""
    with contextlib.suppress(Exception):
        async with asyncio.timeout(5), pool.acquire() as conn:
            await release(conn, holder)
