"""One state database, several deployments: a conversation is found only where it was held.

Tenant codes and user names repeat between deployments (every one has a tenant "1" and a
user "demo"), and with `ORQUESTRA_STATE_URL` — or the `orquestra_state` database beside
several data databases — their threads share one table. Each server reads and writes only
its own scope: the deployment and the data database it answers about.
"""

from __future__ import annotations

import uuid

import asyncpg
import pytest

from orquestra.core.settings import Settings
from orquestra.server.auth import Caller
from orquestra.server.threads import ThreadStore, thread_scope


@pytest.fixture
async def pool(db_url: str):
    pool = await asyncpg.create_pool(db_url, min_size=1, max_size=2)
    try:
        yield pool
    finally:
        await pool.close()


async def test_a_thread_is_not_found_from_another_deployment(pool: asyncpg.Pool) -> None:
    run = uuid.uuid4().hex[:8]
    ours = ThreadStore(pool, 5.0, f"logistics/orquestra-{run}")
    theirs = ThreadStore(pool, 5.0, f"clinics/orquestra_clinics-{run}")
    await ours.ensure_table()
    caller = Caller(user="demo", tenant="1")  # the same tenant code and user on both sides
    thread = str(uuid.uuid4())
    assert await ours.commit(caller, thread, "quantos itens temos?", "cp-1", previous=None)

    assert [t["thread_id"] for t in await ours.listed(caller)] == [thread]
    assert await ours.owned(caller, thread) is not None
    assert await theirs.listed(caller) == []
    assert await theirs.owned(caller, thread) is None
    # Nor can the other side move the thread on (or take it over) by knowing its id.
    assert not await theirs.commit(caller, thread, "x", "cp-2", previous="cp-1")
    assert (await ours.owned(caller, thread))["checkpoint_id"] == "cp-1"


def test_each_deployment_and_data_database_is_its_own_scope(settings: Settings) -> None:
    demo = thread_scope(settings)
    clinics = thread_scope(
        Settings(data_dir=settings.data_dir, deployment="clinics", database_name="scope_a")
    )
    other_database = thread_scope(
        Settings(data_dir=settings.data_dir, deployment="clinics", database_name="scope_b")
    )
    assert demo.startswith("logistics/") and clinics == "clinics/scope_a"
    assert len({demo, clinics, other_database}) == 3
