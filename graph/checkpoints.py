"""Conversation memory: LangGraph's PostgreSQL checkpointer, in its own schema of the state
database (`server.database.state_url`: `ORQUESTRA_STATE_URL`, never the company's data
database unless pointed there explicitly).

Threads survive restarts and can be served by any process sharing the state database.
"""

from __future__ import annotations

import asyncio
from asyncio import FIRST_COMPLETED
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, Literal, TypeVar
from urllib.parse import quote, urlsplit, urlunsplit

import psycopg
from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
from psycopg.rows import DictRow, dict_row
from psycopg_pool import AsyncConnectionPool

from orquestra.core.database import (
    DatabaseUnavailable,
    Outage,
    connect,
    is_unavailable,
    setup_lock,
)

SCHEMA = "orquestra_sessions"
INTERRUPT = "__interrupt__"
"""The channel LangGraph records a paused turn's question under, in its `checkpoint_writes`."""
T = TypeVar("T")
Pool = AsyncConnectionPool[psycopg.AsyncConnection[DictRow]]
"""The checkpointer's pool: its connections return rows as dicts (`row_factory=dict_row`)."""


class FailFastSaver(AsyncPostgresSaver):
    """The PostgreSQL checkpointer with a deadline per call and a circuit breaker.

    The saver runs its calls one at a time (it holds a lock), and a super-step makes several;
    when the database is lost, each would wait the pool's full timeout in turn (15 s for one
    step was seen), and a frozen database would hold the lock for every tenant. So each call
    has a deadline (`call_s`), and the first call that finds the database gone (or passes its
    deadline) trips the breaker: the calls queued behind it, and any made within `open_s`
    after, fail at once with `DatabaseUnavailable`, and the turn ends promptly. The first
    call after that window tries the database again.
    """

    def __init__(self, pool: Pool, call_s: float = 3.0, open_s: float = 1.0) -> None:
        super().__init__(pool)
        self.pool = pool
        self.call_s = call_s
        self.open_s = open_s
        self.tripped = asyncio.Event()
        # The saver serialises its calls with one lock, which a single shared connection
        # needs; every call here takes a connection of its own from the pool, so the lock
        # only queued every turn of the process behind every other (100 streams' calls
        # waited past their deadline). LangGraph orders a thread's own writes itself.
        self.lock = _Unlocked()

    async def _guarded(self, call: Callable[[], Awaitable[T]]) -> T:
        if Outage.within(self.open_s):  # this process lost the database moments ago
            raise DatabaseUnavailable("the database was lost moments ago (checkpoints)")
        if self.tripped.is_set():
            self.tripped = asyncio.Event()  # half-open: this call tries the database again
        tripped = self.tripped
        work = asyncio.ensure_future(call())
        watch = asyncio.ensure_future(tripped.wait())
        try:
            await asyncio.wait((work, watch), timeout=self.call_s, return_when=FIRST_COMPLETED)
        finally:
            watch.cancel()
            if not work.done():  # tripped, past the deadline, or the run was cancelled
                work.cancel()
        # A call cancelled just now is still finishing its cancellation: not done yet.
        if not work.done() or work.cancelled():
            if not tripped.is_set():
                self._trip(tripped)  # the database did not answer in time
            raise DatabaseUnavailable("the database did not answer (checkpoints)")
        error = work.exception()
        if error is not None and is_unavailable(error):
            self._trip(tripped)
        return work.result()

    def _trip(self, tripped: asyncio.Event) -> None:
        Outage.note()
        tripped.set()

    async def discard_failed_writes(self, thread_id: str, checkpoint_id: str) -> None:
        """Forget what a failed turn wrote on the thread's committed checkpoint.

        A turn resuming a clarifying question writes its progress (the answer given, the
        stages it ran) onto the paused checkpoint itself; if that turn fails, LangGraph would
        replay those writes on the next attempt, and the user's new answer would be ignored.
        Only the pause itself (`__interrupt__`) belongs to the committed turn.
        """

        async def delete() -> None:
            async with self.pool.connection() as conn:
                await conn.execute(
                    "DELETE FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_ns = ''"
                    " AND checkpoint_id = %s AND channel <> %s",
                    (thread_id, checkpoint_id, INTERRUPT),
                )

        await self._guarded(delete)

    async def aget_tuple(self, config: Any) -> Any:
        return await self._guarded(lambda: super(FailFastSaver, self).aget_tuple(config))

    async def aput(self, *args: Any, **kwargs: Any) -> Any:
        return await self._guarded(lambda: super(FailFastSaver, self).aput(*args, **kwargs))

    async def aput_writes(self, *args: Any, **kwargs: Any) -> None:
        await self._guarded(lambda: super(FailFastSaver, self).aput_writes(*args, **kwargs))

    async def alist(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        await self._guarded(_nothing)
        async for item in super().alist(*args, **kwargs):
            yield item


async def _nothing() -> None:
    return None


class _Unlocked(asyncio.Lock):
    """A lock that never waits: each saver call holds a pooled connection of its own."""

    async def acquire(self) -> Literal[True]:
        return True

    def release(self) -> None:
        return None


def with_search_path(url: str, schema: str) -> str:
    parts = urlsplit(url)
    option = "options=" + quote(f"-c search_path={schema}")
    query = f"{parts.query}&{option}" if parts.query else option
    return urlunsplit(parts._replace(query=query))


@asynccontextmanager
async def postgres_checkpointer(
    admin_url: str, timeout_s: float = 3.0
) -> AsyncIterator[FailFastSaver]:
    """A ready checkpointer (tables created once) on a small connection pool.

    Waiting for a connection is bounded by `timeout_s`, and a connection is checked before
    use, so a lost database fails a turn within seconds (`DB_UNAVAILABLE`) instead of
    leaving the client waiting on a dead socket. The schema and LangGraph's migrations run
    under the state database's setup lock (`core.database.setup_lock`): replicas starting
    together would otherwise run the same migration twice.
    """
    pool: Pool = AsyncConnectionPool(
        with_search_path(admin_url, SCHEMA),
        min_size=1,
        max_size=8,
        open=False,
        timeout=timeout_s,
        check=AsyncConnectionPool.check_connection,
        kwargs={
            "autocommit": True,
            "prepare_threshold": 0,
            "row_factory": dict_row,
            "connect_timeout": max(1, round(timeout_s)),
        },
    )
    try:
        saver = FailFastSaver(pool, call_s=timeout_s)
        lock = await connect(admin_url)
        try:
            async with setup_lock(lock, "preparing the checkpoint tables"):
                # Committed at once (autocommit): the pool's connections create the tables in it.
                async with await psycopg.AsyncConnection.connect(
                    admin_url, autocommit=True
                ) as conn:
                    await conn.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
                await pool.open()
                await saver.setup()
        finally:
            await lock.close()
        yield saver
    finally:
        await pool.close()
