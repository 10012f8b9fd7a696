"""Erasing conversations: a thread's owner row and every checkpoint, blob and write of it,
and its turns' ratings and review entries (but an approved one, now the deployment's).

Used by `DELETE /v1/threads/{id}` (one thread, its owner only) and by the pruner
(`server.retention`: threads past the retention, conversations nobody owns). A thread is
erased only while no turn runs on it: the eraser first takes the thread's run lease
(`server.run_leases`, whose unique thread index is the one-turn-per-thread lock of the whole
deployment), so a turn running on it is left alone, and a turn that starts meanwhile is told
`THREAD_BUSY` or waits for the erasure to commit.

LangGraph's own `adelete_thread` runs the same three deletes, outside any transaction of
ours and without counts; here they run in the caller's transaction, with the owner row, and
say how many rows went.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Literal

import asyncpg

from orquestra.core.database import database_work
from orquestra.graph.checkpoints import SCHEMA
from orquestra.server.auth import Caller
from orquestra.server.review import TURNS
from orquestra.server.run_leases import TABLE as LEASES
from orquestra.server.run_leases import holder_name
from orquestra.server.schemas import THREAD_ID
from orquestra.server.threads import TABLE as THREADS
from orquestra.server.threads import ThreadStore

CHECKPOINTS = f"{SCHEMA}.checkpoints"
BLOBS = f"{SCHEMA}.checkpoint_blobs"
WRITES = f"{SCHEMA}.checkpoint_writes"


@dataclass(frozen=True)
class Removed:
    """Rows removed, by kind (what `orquestra threads prune` prints).

    >>> Removed(threads=1, checkpoints=12) + Removed(orphans=2, checkpoints=3)
    Removed(threads=1, orphans=2, checkpoints=15, writes=0, blobs=0, note_counters=0)
    """

    threads: int = 0
    """Owned conversations (their row in `threads`, and all their checkpoints)."""
    orphans: int = 0
    """Conversations nobody owns: checkpoints of a first turn that was never committed."""
    checkpoints: int = 0
    writes: int = 0
    blobs: int = 0
    note_counters: int = 0
    """People's "another tenant named" counters with no note left in their window."""

    def __add__(self, other: Removed) -> Removed:
        return Removed(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        )

    def total(self) -> int:
        return sum(getattr(self, f.name) for f in fields(self))


def eraser_name() -> str:
    """A holder name for erasure leases, never one a serving process renews."""
    return f"erase:{holder_name()}"


async def claim(
    conn: asyncpg.Connection, thread_ids: Sequence[str], *, holder: str, ttl_s: float
) -> list[str]:
    """Of `thread_ids`, those now held by `holder` (a lease each, living `ttl_s` unless given
    back); a thread a turn is answering on is left out. An expired lease (of a replica that
    died) is taken over, as `RunLeases.take` does. The leases name no tenant (`''`), so they
    never count against anyone's run limit."""
    ids = sorted(set(thread_ids))  # one order for every eraser: no deadlock between two
    await conn.execute(
        f"DELETE FROM {LEASES} WHERE thread_id = ANY($1::text[]) AND expires_at <= now()", ids
    )
    rows = await conn.fetch(
        f"INSERT INTO {LEASES} (run_id, scope, tenant, thread_id, holder, expires_at)"
        " SELECT 'erase:' || gen_random_uuid()::text, '', '', t, $2,"
        " now() + make_interval(secs => $3) FROM unnest($1::text[]) AS t"
        " ON CONFLICT DO NOTHING RETURNING thread_id",
        ids,
        holder,
        ttl_s,
    )
    return [r["thread_id"] for r in rows]


async def release(conn: asyncpg.Connection, holder: str) -> None:
    """Give back every lease `holder` took."""
    await conn.execute(f"DELETE FROM {LEASES} WHERE holder = $1", holder)


async def erase(conn: asyncpg.Connection, thread_ids: Sequence[str]) -> Removed:
    """Delete the threads' owner rows, checkpoints, writes and blobs (held by the caller:
    `claim`). `threads` counts the owner rows, `orphans` the threads that had none."""
    ids = list(thread_ids)
    owned = await _deleted(conn, f"DELETE FROM {THREADS} WHERE thread_id = ANY($1::text[])", ids)
    checkpoints = await _deleted(
        conn, f"DELETE FROM {CHECKPOINTS} WHERE thread_id = ANY($1::text[])", ids
    )
    writes = await _deleted(conn, f"DELETE FROM {WRITES} WHERE thread_id = ANY($1::text[])", ids)
    blobs = await _deleted(conn, f"DELETE FROM {BLOBS} WHERE thread_id = ANY($1::text[])", ids)
    if await conn.fetchval("SELECT to_regclass($1)", TURNS):  # their ratings and queue entries
        # too; an approved one stays: a reviewer made it the deployment's example
        await conn.execute(
            f"DELETE FROM {TURNS} WHERE thread_id = ANY($1::text[])"
            " AND status IS DISTINCT FROM 'approved'",
            ids,
        )
    return Removed(
        threads=owned,
        orphans=len(ids) - owned,
        checkpoints=checkpoints,
        writes=writes,
        blobs=blobs,
    )


async def _deleted(conn: asyncpg.Connection, sql: str, *args: object) -> int:
    status: str = await conn.execute(sql, *args)
    return int(status.split()[-1])


Outcome = Literal["deleted", "not_found", "busy"]


async def delete_owned(
    store: ThreadStore, caller: Caller, thread_id: str, *, ttl_s: float
) -> Outcome:
    """Erase `thread_id` if `caller` owns it, in one transaction: `not_found` when it is not
    theirs (or does not exist: the two are never told apart), `busy` while a turn runs on it."""
    if not THREAD_ID.match(thread_id):
        return "not_found"
    holder = eraser_name()
    async with (
        database_work(store.timeout_s, "deleting the thread"),
        store.pool.acquire() as conn,
        conn.transaction(),
    ):
        mine = await conn.fetchval(
            f"SELECT true FROM {THREADS} WHERE thread_id = $1 AND tenant = $2"
            " AND user_id = $3 AND scope = $4 FOR UPDATE",
            thread_id,
            caller.tenant,
            caller.user,
            store.scope,
        )
        if not mine:
            return "not_found"
        if not await claim(conn, [thread_id], holder=holder, ttl_s=ttl_s):
            return "busy"
        await erase(conn, [thread_id])
        await release(conn, holder)
    return "deleted"
