"""The pruner's statements: which threads to look at, and what one batch of them loses.

Three kinds of rows outlive their use (`server.retention` runs these in bounded batches):

- a conversation idle past the retention: its owner row and every checkpoint of it go
  (`server.thread_erasure.erase`);
- the checkpoints of turns that failed, were refused or were cancelled on a thread someone
  owns: a turn commits only when it ends well (`ThreadStore.commit`), and the next one forks
  from the committed checkpoint, so everything off the committed checkpoint's chain of
  parents is dead, with its writes and the blobs no kept checkpoint refers to;
- conversations nobody owns: checkpoints of a first turn that never committed (and of the
  terminal's `orquestra ask`), once their newest checkpoint is older than the grace.

Every statement reads the checkpointer's tables by primary key or thread index, never a
whole table in one go: the scans go `thread_id` by `thread_id` from a cursor.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from orquestra.graph.checkpoints import SCHEMA
from orquestra.server.run_leases import TABLE as LEASES
from orquestra.server.thread_erasure import BLOBS, CHECKPOINTS, WRITES, Removed
from orquestra.server.threads import TABLE as THREADS

NOTES = f"{SCHEMA}.tenant_name_notes"

OWNED_TO_LOOK_AT = f"""
SELECT t.thread_id FROM {THREADS} t
WHERE t.scope = $1 AND t.thread_id > $2 AND (
    t.updated_at < now() - make_interval(secs => $3)
    OR t.clean_through IS DISTINCT FROM t.checkpoint_id
    OR EXISTS (SELECT 1 FROM {CHECKPOINTS} c WHERE c.thread_id = t.thread_id
               AND c.checkpoint_ns = '' AND c.checkpoint_id > t.checkpoint_id))
ORDER BY t.thread_id LIMIT $4
"""
"""Threads of this deployment idle past the retention (`$3` seconds; NULL keeps them), or with turns
committed (or failed after the last commit) since their failed turns were last cleared."""

OWNED_NOW = f"""
SELECT thread_id, checkpoint_id,
       coalesce(updated_at < now() - make_interval(secs => $2), false) AS expired
FROM {THREADS} WHERE thread_id = ANY($1::text[]) FOR UPDATE
"""
"""The same threads read again once held: a turn may have committed before they were."""

ORPHANS_TO_LOOK_AT = f"""
WITH RECURSIVE ids(thread_id) AS (
    (SELECT thread_id FROM {CHECKPOINTS} WHERE thread_id > $1 ORDER BY thread_id LIMIT 1)
  UNION ALL
    SELECT (SELECT c.thread_id FROM {CHECKPOINTS} c WHERE c.thread_id > ids.thread_id
            ORDER BY c.thread_id LIMIT 1)
    FROM ids WHERE ids.thread_id IS NOT NULL
), scanned AS (SELECT thread_id FROM ids WHERE thread_id IS NOT NULL LIMIT $2)
SELECT s.thread_id,
       NOT EXISTS (SELECT 1 FROM {THREADS} t WHERE t.thread_id = s.thread_id)
       AND (SELECT (c.checkpoint ->> 'ts')::timestamptz FROM {CHECKPOINTS} c
            WHERE c.thread_id = s.thread_id ORDER BY c.checkpoint_id DESC LIMIT 1)
           < now() - make_interval(secs => $3) AS orphan
FROM scanned s ORDER BY s.thread_id
"""
"""The next `$2` thread ids the checkpoints hold after `$1` (one index probe each, however
many checkpoints a thread has), and which have no owner and nothing newer than `$3` s."""

UNOWNED_NOW = f"""
SELECT t FROM unnest($1::text[]) AS t
WHERE NOT EXISTS (SELECT 1 FROM {THREADS} o WHERE o.thread_id = t)
"""

NOT_ANSWERING = f"""
SELECT t FROM unnest($1::text[]) AS t
WHERE NOT EXISTS (SELECT 1 FROM {LEASES} l WHERE l.thread_id = t AND l.expires_at > now())
"""
"""Of some threads, those no live lease holds (what a dry run leaves out, without holding)."""

KEPT_TABLE = """
CREATE TEMP TABLE kept (thread_id text, checkpoint_id text, PRIMARY KEY (thread_id, checkpoint_id))
ON COMMIT DROP
"""

KEPT = f"""
WITH RECURSIVE chain(thread_id, checkpoint_id, parent) AS (
    SELECT c.thread_id, c.checkpoint_id, c.parent_checkpoint_id
    FROM unnest($1::text[], $2::text[]) AS b(thread_id, committed)
    JOIN {CHECKPOINTS} c ON c.thread_id = b.thread_id AND c.checkpoint_ns = ''
         AND c.checkpoint_id = b.committed
  UNION ALL
    SELECT p.thread_id, p.checkpoint_id, p.parent_checkpoint_id
    FROM chain JOIN {CHECKPOINTS} p ON p.thread_id = chain.thread_id
         AND p.checkpoint_ns = '' AND p.checkpoint_id = chain.parent
)
INSERT INTO kept SELECT thread_id, checkpoint_id FROM chain
"""
"""Each thread's committed checkpoint and its parents, back to the first: what stays."""

DEAD_CHECKPOINTS = f"""
WITH gone AS (
    DELETE FROM {CHECKPOINTS} c WHERE c.thread_id = ANY($1::text[]) AND c.checkpoint_ns = ''
    AND NOT EXISTS (SELECT 1 FROM kept k WHERE k.thread_id = c.thread_id
                    AND k.checkpoint_id = c.checkpoint_id)
    RETURNING c.thread_id)
SELECT thread_id, count(*) AS n FROM gone GROUP BY thread_id
"""

DEAD_WRITES = f"""
DELETE FROM {WRITES} w WHERE w.thread_id = ANY($1::text[]) AND w.checkpoint_ns = ''
AND NOT EXISTS (SELECT 1 FROM kept k WHERE k.thread_id = w.thread_id
                AND k.checkpoint_id = w.checkpoint_id)
"""
"""Writes on a checkpoint that is not kept: of a dead one, or of one a run never saved."""

DEAD_BLOBS = f"""
WITH referenced AS MATERIALIZED (
    SELECT DISTINCT c.thread_id, v.key AS channel, v.value AS version
    FROM {CHECKPOINTS} c CROSS JOIN LATERAL jsonb_each_text(c.checkpoint -> 'channel_versions') v
    WHERE c.thread_id = ANY($1::text[]) AND c.checkpoint_ns = '')
DELETE FROM {BLOBS} b WHERE b.thread_id = ANY($1::text[]) AND b.checkpoint_ns = ''
AND NOT EXISTS (SELECT 1 FROM referenced r WHERE r.thread_id = b.thread_id
                AND r.channel = b.channel AND r.version = b.version)
"""
"""Blobs no remaining checkpoint of their thread refers to (a channel value is a blob, named
by the version each checkpoint's `channel_versions` gives it)."""

CLEARED = f"""
UPDATE {THREADS} t SET clean_through = b.committed
FROM unnest($1::text[], $2::text[]) AS b(thread_id, committed) WHERE t.thread_id = b.thread_id
"""

SPENT_NOTE_COUNTERS = f"""
DELETE FROM {NOTES} WHERE (scope, tenant, user_id) IN (
    SELECT scope, tenant, user_id FROM {NOTES} WHERE scope = $1
    AND NOT EXISTS (SELECT 1 FROM unnest(noted) AS s WHERE s > now() - make_interval(secs => $2))
    LIMIT $3)
"""
"""A person's "another tenant named" counter with no note left in its window holds nothing
a new counter would not: it goes (`graph.tenant_note`)."""


@dataclass(frozen=True)
class Committed:
    """A held thread as it stands: its committed checkpoint, and whether it is past retention."""

    thread_id: str
    checkpoint_id: str
    expired: bool


async def owned_now(
    conn: asyncpg.Connection, thread_ids: Sequence[str], retention_s: float | None
) -> list[Committed]:
    rows = await conn.fetch(OWNED_NOW, list(thread_ids), retention_s)
    return [Committed(r["thread_id"], r["checkpoint_id"], r["expired"]) for r in rows]


async def clear_failed_turns(conn: asyncpg.Connection, threads: Sequence[Committed]) -> Removed:
    """Delete what failed turns left on `threads` (held by the caller), in its transaction."""
    if not threads:
        return Removed()
    await conn.execute(KEPT_TABLE)
    await conn.execute(KEPT, [t.thread_id for t in threads], [t.checkpoint_id for t in threads])
    # A thread whose committed checkpoint is not there (nothing to keep) is left alone.
    found = {r["thread_id"] for r in await conn.fetch("SELECT DISTINCT thread_id FROM kept")}
    sure = [t for t in threads if t.thread_id in found]
    ids = [t.thread_id for t in sure]
    dead = {r["thread_id"]: r["n"] for r in await conn.fetch(DEAD_CHECKPOINTS, ids)}
    writes = _count(await conn.execute(DEAD_WRITES, ids))
    blobs = _count(await conn.execute(DEAD_BLOBS, list(dead))) if dead else 0
    await conn.execute(CLEARED, ids, [t.checkpoint_id for t in sure])
    await conn.execute("DROP TABLE kept")
    return Removed(checkpoints=sum(dead.values()), writes=writes, blobs=blobs)


async def spent_note_counters(
    conn: asyncpg.Connection, scope: str, window_s: float, batch: int, *, dry_run: bool
) -> Removed:
    """Delete (or, dry, count) the deployment's spent note counters, `batch` at a time."""
    if await conn.fetchval("SELECT to_regclass($1)", NOTES) is None:
        return Removed()  # the note is off here: no table was ever made
    if dry_run:
        spent = await conn.fetchval(
            f"SELECT count(*) FROM {NOTES} WHERE scope = $1 AND NOT EXISTS (SELECT 1"
            " FROM unnest(noted) AS s WHERE s > now() - make_interval(secs => $2))",
            scope,
            window_s,
        )
        return Removed(note_counters=spent)
    total = 0
    while True:
        count = _count(await conn.execute(SPENT_NOTE_COUNTERS, scope, window_s, batch))
        total += count
        if count < batch:
            return Removed(note_counters=total)


def _count(status: str) -> int:
    return int(status.split()[-1])
