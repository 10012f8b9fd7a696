"""The PostgreSQL checkpointer under concurrency, on the real embedded database.

Every saver call takes a pooled connection of its own, so one turn's call that waits on the
database must not hold up another turn's; and a call past its deadline ends as the named
`DatabaseUnavailable`, never as an asyncio error.
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import psycopg
import pytest
from langgraph.checkpoint.base import empty_checkpoint

from orquestra.core.database import DatabaseUnavailable, state_url
from orquestra.core.settings import Settings
from orquestra.graph.checkpoints import SCHEMA, FailFastSaver, postgres_checkpointer


def config(thread: str, checkpoint: str = "") -> dict[str, Any]:
    configurable = {"thread_id": thread, "checkpoint_ns": ""}
    if checkpoint:
        configurable["checkpoint_id"] = checkpoint
    return {"configurable": configurable}


async def saved_thread(saver: FailFastSaver) -> tuple[str, str]:
    """A thread with one checkpoint: (thread id, checkpoint id)."""
    thread, checkpoint = str(uuid.uuid4()), empty_checkpoint()
    await saver.aput(config(thread), checkpoint, {"source": "input", "step": -1}, {})
    return thread, checkpoint["id"]


async def blocked_on_a_lock(conn: psycopg.AsyncConnection[Any]) -> None:
    """Once another session's statement waits on a lock (the write reached the database)."""
    while True:
        found = await conn.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            " AND pid <> pg_backend_pid()"
        )
        row = await found.fetchone()
        if row and row[0]:
            return
        await asyncio.sleep(0.02)


async def test_a_call_waiting_on_the_database_holds_up_no_other(
    settings: Settings, demo_db: Any
) -> None:
    """A write blocked by a table lock is still waiting when another thread's read returns.
    (With the saver's own lock around every call, the read would queue behind the write, and
    the write could only finish once the read had: neither would, until the deadline.)"""
    url = state_url(settings)
    async with postgres_checkpointer(url, timeout_s=30) as saver:
        thread, checkpoint = await saved_thread(saver)
        other, _ = await saved_thread(saver)
        async with await psycopg.AsyncConnection.connect(url) as holder:
            # EXCLUSIVE blocks writes to the table and lets reads through.
            await holder.execute(f"LOCK TABLE {SCHEMA}.checkpoint_writes IN EXCLUSIVE MODE")
            write = asyncio.ensure_future(
                saver.aput_writes(config(thread, checkpoint), [("answer", "…")], "task-1")
            )
            await blocked_on_a_lock(holder)
            read = await saver.aget_tuple(config(other))
            assert read is not None and read.config["configurable"]["thread_id"] == other
            assert not write.done()  # still waiting on the table lock
            await holder.rollback()  # releases the lock
        await write
        written = await saver.aget_tuple(config(thread, checkpoint))
        assert written is not None
        assert [w[1:] for w in written.pending_writes or []] == [("answer", "…")]


async def test_a_call_past_its_deadline_is_database_unavailable(
    settings: Settings, demo_db: Any
) -> None:
    """The deadline cancels the call; its cancellation is still finishing when the saver
    decides, which once surfaced as `InvalidStateError` (an `INTERNAL` error for the user)."""
    async with postgres_checkpointer(state_url(settings)) as saver:
        saver.call_s = 0.05
        with pytest.raises(DatabaseUnavailable):
            await saver._guarded(lambda: asyncio.sleep(30))
        assert saver.tripped.is_set()  # the breaker opened, as for a database gone
