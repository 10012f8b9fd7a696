"""The "another tenant named" allowance on the real state database: a person gets
`per_user` notes in any window, whichever replica answers; a message naming nobody costs
nothing (yet runs the same statement); notes leave the count as they leave the window; and
tenants, users and deployments sharing one state database each count their own."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

from orquestra.core.database import ensure_state_database
from orquestra.core.settings import Settings, TenantNameNote
from orquestra.graph.tenant_note import TABLE, NoteAllowance


@pytest.fixture
async def pool(settings: Settings, demo_db) -> AsyncIterator[asyncpg.Pool]:
    opened = await asyncpg.create_pool(await ensure_state_database(settings), min_size=1)
    yield opened
    await opened.close()


async def replica(pool: asyncpg.Pool, scope: str, per_user: int = 2) -> NoteAllowance:
    note = TenantNameNote(per_user=per_user, window_s=3600)
    allowance = NoteAllowance(pool, note, timeout_s=5.0, scope=scope)
    await allowance.ensure_table()
    return allowance


def someone() -> str:
    return f"u-{uuid.uuid4().hex[:8]}"


async def test_a_person_gets_per_user_notes_across_replicas(pool: asyncpg.Pool) -> None:
    one, two = await replica(pool, "n-limit"), await replica(pool, "n-limit")
    ana = someone()
    assert await one.take("101", ana, named=False) is False  # named nobody: nothing to note
    assert await one.take("101", ana, named=True) is True
    assert await two.take("101", ana, named=True) is True
    assert await one.take("101", ana, named=True) is False  # the third, on either replica
    assert await two.take("101", ana, named=True) is False
    assert await one.take("102", ana, named=True) is True  # the same name at another tenant
    assert await one.take("101", someone(), named=True) is True  # another person
    elsewhere = await replica(pool, "n-limit-elsewhere")
    assert await elsewhere.take("101", ana, named=True) is True  # another deployment


async def test_concurrent_messages_never_exceed_the_limit(pool: asyncpg.Pool) -> None:
    replicas = [await replica(pool, "n-race", per_user=3) for _ in range(3)]
    ana = someone()
    granted = await asyncio.gather(
        *(r.take("101", ana, named=True) for r in replicas for _ in range(6))
    )
    assert sum(granted) == 3


async def test_notes_leave_the_count_with_the_window(pool: asyncpg.Pool) -> None:
    allowance, ana = await replica(pool, "n-window", per_user=1), someone()
    assert await allowance.take("101", ana, named=True) is True
    assert await allowance.take("101", ana, named=True) is False
    async with pool.acquire() as conn:  # an hour and a second passed
        await conn.execute(
            f"UPDATE {TABLE} SET noted = ARRAY[now() - interval '3601 seconds']"
            " WHERE scope = 'n-window' AND user_id = $1",
            ana,
        )
    assert await allowance.take("101", ana, named=True) is True
    noted = await pool.fetchval(
        f"SELECT cardinality(noted) FROM {TABLE} WHERE scope = 'n-window' AND user_id = $1", ana
    )
    assert noted == 1  # the expired note was dropped, not kept for ever


async def test_a_limit_of_zero_never_notes(pool: asyncpg.Pool) -> None:
    allowance = await replica(pool, "n-zero", per_user=0)
    assert await allowance.take("101", someone(), named=True) is False
