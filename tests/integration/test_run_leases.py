"""Run leases on the real state database: the limit counts live leases of every holder, an
expired lease counts for nothing, a thread holds one live lease, and a run that ended while
the database was away gives its lease back at the next call."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

from orquestra.core.database import ensure_state_database
from orquestra.core.settings import Settings
from orquestra.server.run_leases import TABLE, LeaseRefused, RunLeases


@pytest.fixture
async def pool(settings: Settings, demo_db) -> AsyncIterator[asyncpg.Pool]:
    opened = await asyncpg.create_pool(await ensure_state_database(settings), min_size=1)
    yield opened
    await opened.close()


async def replica(pool: asyncpg.Pool, scope: str, ttl_s: float = 30.0) -> RunLeases:
    leases = RunLeases(pool, ttl_s=ttl_s, timeout_s=5.0, scope=scope)
    await leases.ensure_table()
    return leases


def thread() -> str:
    return str(uuid.uuid4())


async def test_the_limit_counts_every_replicas_leases(pool: asyncpg.Pool) -> None:
    one, two = await replica(pool, "t-limit"), await replica(pool, "t-limit")
    assert one.holder != two.holder
    first = await one.take("101", 2, thread())
    await two.take("101", 2, thread())
    with pytest.raises(LeaseRefused) as refused:
        await one.take("101", 2, thread())
    assert refused.value.code == "TOO_MANY_RUNS"
    await two.take("102", 2, thread())  # another tenant's slots are its own
    other_scope = await replica(pool, "t-limit-elsewhere")
    await other_scope.take("101", 1, thread())  # the same code in another deployment
    await one.give_back(first)
    await one.take("101", 2, thread())


async def test_concurrent_takes_never_exceed_the_limit(pool: asyncpg.Pool) -> None:
    replicas = [await replica(pool, "t-race") for _ in range(3)]

    async def attempt(leases: RunLeases) -> bool:
        try:
            await leases.take("101", 3, thread())
        except LeaseRefused:
            return False
        return True

    taken = await asyncio.gather(*(attempt(r) for r in replicas for _ in range(5)))
    assert sum(taken) == 3


async def test_an_expired_lease_counts_for_nothing(pool: asyncpg.Pool) -> None:
    dead = await replica(pool, "t-expiry", ttl_s=3.0)
    alive = await replica(pool, "t-expiry")
    held = thread()
    run = await dead.take("101", 1, held)
    with pytest.raises(LeaseRefused):
        await alive.take("101", 1, thread())
    async with pool.acquire() as conn:  # the holder died: nobody renewed it, time passed
        await conn.execute(
            f"UPDATE {TABLE} SET expires_at = now() - interval '1 second' WHERE run_id = $1", run
        )
    await alive.take("101", 1, held)  # the slot and the thread are free again


async def test_a_thread_holds_one_live_lease(pool: asyncpg.Pool) -> None:
    one, two = await replica(pool, "t-thread"), await replica(pool, "t-thread")
    busy = thread()
    await one.take("101", 5, busy)
    with pytest.raises(LeaseRefused) as refused:
        await two.take("101", 5, busy)
    assert refused.value.code == "THREAD_BUSY"
    async with pool.acquire() as conn:  # the refused take left nothing behind
        assert await conn.fetchval(f"SELECT count(*) FROM {TABLE} WHERE scope = 't-thread'") == 1


async def test_renewal_keeps_a_holders_leases_alive(pool: asyncpg.Pool) -> None:
    leases = await replica(pool, "t-renew", ttl_s=3.0)
    run = await leases.take("101", 1, thread())
    async with pool.acquire() as conn:
        await conn.execute(
            f"UPDATE {TABLE} SET expires_at = now() + interval '1 second' WHERE run_id = $1", run
        )
    assert await leases.renew() == 1
    async with pool.acquire() as conn:
        left = await conn.fetchval(
            f"SELECT extract(epoch FROM expires_at - now()) FROM {TABLE} WHERE run_id = $1", run
        )
    assert left > 2.0


async def test_a_lease_given_back_during_an_outage_goes_at_the_next_call(
    pool: asyncpg.Pool, settings: Settings
) -> None:
    broken = await asyncpg.create_pool(await ensure_state_database(settings), min_size=1)
    leases = RunLeases(broken, ttl_s=30.0, timeout_s=2.0, scope="t-outage")
    await leases.ensure_table()
    run = await leases.take("101", 1, thread())
    await broken.close()  # the database is away for this replica
    await leases.give_back(run)  # logged, not raised
    leases.pool = pool  # …and back
    await leases.take("101", 1, thread())  # the ended run's slot was given back first
    async with pool.acquire() as conn:
        assert not await conn.fetchval(f"SELECT count(*) FROM {TABLE} WHERE run_id = $1", run)
