"""How fast the pruner goes: threads per second, and the time of each batch (one transaction).

Usage: python bench/thread_prune.py [--threads 5000] [--batch 500]
On an embedded PostgreSQL in a temporary folder, one real conversation is written through
LangGraph's checkpointer (three answered turns and a failed one between them, committed as
the server commits) and copied to `--threads` threads of 50 people in two tenants. Then
three passes, each on all of them:

- failed turns: every thread still owned, its failed turn's checkpoints, writes and blobs
  cleared (the pass a busy deployment makes most);
- retention: every thread idle 100 days, deleted with everything of it;
- orphans: the same conversations with no owner row, past the grace.

Each prints threads, rows removed, batches, the median and p95 of a batch's time, and
threads per second over the whole pass (its scans included).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' conversations

from orquestra.core.database import admin_url, stop_embedded, with_database
from orquestra.core.settings import Settings
from orquestra.graph.checkpoints import SCHEMA
from orquestra.server.auth import Caller
from orquestra.server.retention import Pruner, PruneReport
from tests.conversations import StateDatabase, conversation, state_database

SCOPE = "logistics/bench"
TEMPLATE = "template-thread"

COPY = f"""
WITH clones AS (SELECT n, gen_random_uuid()::text AS id FROM generate_series(1, $2) AS n),
owners AS (
    INSERT INTO {SCHEMA}.threads (thread_id, tenant, user_id, title, checkpoint_id, scope)
    SELECT id, (100 + n % 2)::text, 'person-' || (n % 50), t.title, t.checkpoint_id, $3
    FROM clones, {SCHEMA}.threads t WHERE t.thread_id = $1),
checkpoints AS (
    INSERT INTO {SCHEMA}.checkpoints
    SELECT id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, c.type, c.checkpoint,
           c.metadata FROM clones, {SCHEMA}.checkpoints c WHERE c.thread_id = $1),
blobs AS (
    INSERT INTO {SCHEMA}.checkpoint_blobs
    SELECT id, b.checkpoint_ns, b.channel, b.version, b.type, b.blob
    FROM clones, {SCHEMA}.checkpoint_blobs b WHERE b.thread_id = $1)
INSERT INTO {SCHEMA}.checkpoint_writes
SELECT id, w.checkpoint_ns, w.checkpoint_id, w.task_id, w.idx, w.channel, w.type, w.blob,
       w.task_path FROM clones, {SCHEMA}.checkpoint_writes w WHERE w.thread_id = $1
"""


async def conversations(db: StateDatabase, count: int, *, owned: bool = True) -> None:
    """`count` copies of the template conversation (with no owner row unless `owned`)."""
    async with db.pool.acquire() as conn:
        await conn.execute(COPY, TEMPLATE, count, SCOPE)
        if not owned:
            await conn.execute(f"DELETE FROM {SCHEMA}.threads WHERE thread_id <> $1", TEMPLATE)
        await conn.execute(f"ANALYZE {SCHEMA}.checkpoints, {SCHEMA}.checkpoint_blobs")


async def rows(db: StateDatabase) -> int:
    async with db.pool.acquire() as conn:
        counts = [
            await conn.fetchval(f"SELECT count(*) FROM {SCHEMA}.{table}")
            for table in ("checkpoints", "checkpoint_writes", "checkpoint_blobs")
        ]
    return sum(counts)


def line(name: str, threads: int, report: PruneReport, wall_s: float) -> str:
    times = sorted(report.batch_s)
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    removed = report.removed
    rows_gone = removed.checkpoints + removed.writes + removed.blobs
    return (
        f"{name:<12}{threads:>8}{rows_gone:>12}{len(times):>9}"
        f"{statistics.median(times) * 1000:>13.0f}{p95 * 1000:>10.0f}{threads / wall_s:>12.0f}"
    )


async def timed(pruner: Pruner) -> tuple[PruneReport, float]:
    started = time.perf_counter()
    report = await pruner.prune()
    assert report is not None
    return report, time.perf_counter() - started


async def bench(url: str, threads: int, batch: int) -> None:
    async with state_database(url) as db:
        store = db.store(SCOPE)
        template = ["quanto faturamos?", "e por canal?", "fail", "e no ano passado?"]
        await conversation(db, store, Caller("template", "100"), TEMPLATE, template)
        async with db.pool.acquire() as conn:
            per_thread = await conn.fetchval(
                f"SELECT (SELECT count(*) FROM {SCHEMA}.checkpoints WHERE thread_id = $1)"
                f" + (SELECT count(*) FROM {SCHEMA}.checkpoint_writes WHERE thread_id = $1)"
                f" + (SELECT count(*) FROM {SCHEMA}.checkpoint_blobs WHERE thread_id = $1)",
                TEMPLATE,
            )
        print(f"one conversation: 3 answered turns and 1 failed, {per_thread} checkpointer rows")
        print(f"batch: {batch} threads per transaction\n")
        print(
            f"{'pass':<12}{'threads':>8}{'rows gone':>12}{'batches':>9}"
            f"{'median ms':>13}{'p95 ms':>10}{'threads/s':>12}"
        )

        def pruner(retention_s: float | None = None) -> Pruner:
            return Pruner(
                db.pool,
                scope=SCOPE,
                retention_s=retention_s,
                orphan_grace_s=0.0,
                batch=batch,
                lease_ttl_s=30.0,
                note_window_s=3600.0,
            )

        await conversations(db, threads)
        report, wall = await timed(pruner())
        print(line("failed turns", threads + 1, report, wall))

        async with db.pool.acquire() as conn:
            await conn.execute(
                f"UPDATE {SCHEMA}.threads SET updated_at = now() - interval '100 days'"
            )
        report, wall = await timed(pruner(retention_s=90 * 86_400.0))
        print(line("retention", threads + 1, report, wall))
        assert await rows(db) == 0

        await conversation(db, store, Caller("template", "100"), TEMPLATE, template)
        await conversations(db, threads, owned=False)
        report, wall = await timed(pruner())
        print(line("orphans", threads, report, wall))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=5000)
    parser.add_argument("--batch", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(data_dir=Path(folder))
        server = admin_url(settings)
        root = await asyncpg.connect(with_database(server, "postgres"))
        try:
            await root.execute("CREATE DATABASE bench_prune")
        finally:
            await root.close()
        try:
            await bench(with_database(server, "bench_prune"), args.threads, args.batch)
        finally:
            stop_embedded(settings.data_dir)


if __name__ == "__main__":
    asyncio.run(main())
