"""Deleting and pruning conversations on the real PostgreSQL, in a state database of its own:
a thread goes with every checkpoint, write and blob of it, only for its owner; the pruner
removes idle threads of its own deployment, what failed turns left and conversations nobody
owns, in bounded batches, one process at a time — and never a row of anyone else's."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import pytest

from orquestra.core.database import admin_url
from orquestra.core.settings import Settings
from orquestra.graph.checkpoints import SCHEMA
from orquestra.graph.tenant_note import NoteAllowance
from orquestra.server.auth import Caller
from orquestra.server.retention import PRUNE_LOCK, Pruner
from orquestra.server.thread_erasure import delete_owned
from tests.conversations import (
    StateDatabase,
    conversation,
    messages_of,
    rows_of,
    state_database,
    turn,
)
from tests.databases import fresh_database

SCOPE, OTHER_SCOPE = "logistics/orquestra", "clinics/orquestra_clinics"
ANA, BIA, ANA_ELSEWHERE = Caller("ana", "101"), Caller("bia", "101"), Caller("ana", "102")
DAY = 86_400.0


@pytest.fixture
async def db(settings: Settings) -> AsyncIterator[StateDatabase]:
    url = await fresh_database(admin_url(settings), "orquestra_retention_tests")
    async with state_database(url) as opened:
        yield opened


def pruner(db: StateDatabase, scope: str = SCOPE, **options: float | None) -> Pruner:
    settings: dict = {
        "retention_s": 90 * DAY,
        "orphan_grace_s": DAY,
        "batch": 500,
        "lease_ttl_s": 30.0,
        "note_window_s": 3600.0,
        **options,
    }
    return Pruner(db.pool, scope=scope, **settings)


def thread() -> str:
    return str(uuid.uuid4())


async def idle_for(db: StateDatabase, thread_id: str, days: float) -> None:
    async with db.pool.acquire() as conn:
        await conn.execute(
            f"UPDATE {SCHEMA}.threads SET updated_at = now() - make_interval(days => $2)"
            " WHERE thread_id = $1",
            thread_id,
            days,
        )


async def checkpoints_dated(db: StateDatabase, thread_id: str, days: float) -> None:
    """The thread's checkpoints, as if written `days` ago (`ts` inside each checkpoint)."""
    async with db.pool.acquire() as conn:
        await conn.execute(
            f"UPDATE {SCHEMA}.checkpoints SET checkpoint = jsonb_set(checkpoint, '{{ts}}',"
            " to_jsonb(to_char((now() - make_interval(days => $2)) AT TIME ZONE 'UTC',"
            """ 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"'))) WHERE thread_id = $1""",
            thread_id,
            days,
        )


async def everyone(db: StateDatabase) -> dict[str, dict[str, int]]:
    """Four people's threads in two deployments: ana and bia of tenant 101, ana of tenant
    102, and ana of tenant 101 in another deployment, each with two answered turns."""
    people = {
        "ana": (SCOPE, ANA),
        "bia": (SCOPE, BIA),
        "ana_102": (SCOPE, ANA_ELSEWHERE),
        "ana_clinics": (OTHER_SCOPE, ANA),
    }
    threads = {}
    for name, (scope, caller) in people.items():
        threads[name] = thread()
        await conversation(db, db.store(scope), caller, threads[name], ["first", "second"])
    return threads


async def snapshot(db: StateDatabase, threads: dict[str, str]) -> dict[str, dict[str, int]]:
    return {name: await rows_of(db.pool, t) for name, t in threads.items()}


async def test_only_its_owner_deletes_a_thread_and_all_of_it_goes(db: StateDatabase) -> None:
    threads = await everyone(db)
    before = await snapshot(db, threads)
    assert all(rows["checkpoints"] and rows["checkpoint_blobs"] for rows in before.values())
    store = db.store(SCOPE)
    # Another user, the same user of another tenant, another deployment: not found.
    assert await delete_owned(store, BIA, threads["ana"], ttl_s=30) == "not_found"
    assert await delete_owned(store, ANA_ELSEWHERE, threads["ana"], ttl_s=30) == "not_found"
    other_deployment = db.store(OTHER_SCOPE)
    assert await delete_owned(other_deployment, ANA, threads["ana"], ttl_s=30) == "not_found"
    assert await delete_owned(store, ANA, "not a thread id", ttl_s=30) == "not_found"
    assert await snapshot(db, threads) == before

    assert await delete_owned(store, ANA, threads["ana"], ttl_s=30) == "deleted"
    after = await snapshot(db, threads)
    assert after.pop("ana") == {table: 0 for table in before["ana"]}
    assert after == {name: rows for name, rows in before.items() if name != "ana"}
    assert await delete_owned(store, ANA, threads["ana"], ttl_s=30) == "not_found"


async def test_a_thread_being_answered_is_not_deleted(db: StateDatabase) -> None:
    store, leases = db.store(SCOPE), db.leases(SCOPE)
    mine = thread()
    await conversation(db, store, ANA, mine, ["first"])
    run = await leases.take(ANA.tenant, 4, mine)
    assert await delete_owned(store, ANA, mine, ttl_s=30) == "busy"
    assert (await rows_of(db.pool, mine))["threads"] == 1
    await leases.give_back(run)
    assert await delete_owned(store, ANA, mine, ttl_s=30) == "deleted"


async def test_a_turn_on_a_deleted_thread_does_not_bring_it_back(db: StateDatabase) -> None:
    store = db.store(SCOPE)
    mine = thread()
    await conversation(db, store, ANA, mine, ["first"])
    standing = (await store.owned(ANA, mine))["checkpoint_id"]
    assert await delete_owned(store, ANA, mine, ttl_s=30) == "deleted"
    # A turn that started before the deletion ends after it: its commit finds no thread.
    assert not await store.commit(ANA, mine, "late", "cp-late", previous=standing)
    assert await store.owned(ANA, mine) is None


async def test_failed_turns_are_cleared_and_the_conversation_reads_the_same(
    db: StateDatabase,
) -> None:
    threads = await everyone(db)
    store = db.store(SCOPE)
    mine = thread()
    await conversation(db, store, ANA, mine, ["one", "fail", "two", "fail", "fail"])
    shown = await messages_of(db, store, ANA, mine)
    assert [text for _, text in shown] == [
        "one",
        "answer 1: about one",
        "two",
        "answer 3: about two",
    ]
    before, others = await rows_of(db.pool, mine), await snapshot(db, threads)

    report = await pruner(db).prune()
    assert report is not None
    removed = report.removed
    assert removed.threads == removed.orphans == 0
    after = await rows_of(db.pool, mine)
    assert removed.checkpoints == before["checkpoints"] - after["checkpoints"] > 0
    assert removed.writes == before["checkpoint_writes"] - after["checkpoint_writes"] > 0
    assert removed.blobs == before["checkpoint_blobs"] - after["checkpoint_blobs"] > 0
    assert await messages_of(db, store, ANA, mine) == shown
    assert await snapshot(db, threads) == others  # nobody else's rows
    # Nothing is left off the committed chain; the next pass finds nothing more.
    again = await pruner(db).prune()
    assert again is not None and again.removed.total() == 0
    # The conversation goes on from where it stood.
    assert await turn(db, store, ANA, mine, "three")
    assert [text for _, text in await messages_of(db, store, ANA, mine)][-2:] == [
        "three",
        "answer 5: about three",
    ]


async def test_idle_threads_of_its_own_deployment_go_past_the_retention(
    db: StateDatabase,
) -> None:
    threads = await everyone(db)
    for name in ("ana", "ana_clinics"):
        await idle_for(db, threads[name], 91)
    await idle_for(db, threads["bia"], 89)
    before = await snapshot(db, threads)

    report = await pruner(db).prune()
    assert report is not None and report.removed.threads == 1
    after = await snapshot(db, threads)
    assert after.pop("ana") == {table: 0 for table in before["ana"]}
    assert after == {name: rows for name, rows in before.items() if name != "ana"}
    # 0 keeps conversations forever; the other deployment's own retention takes its thread.
    assert (await pruner(db, OTHER_SCOPE, retention_s=None).prune()).removed.threads == 0
    assert (await pruner(db, OTHER_SCOPE).prune()).removed.threads == 1


async def test_conversations_nobody_owns_go_after_the_grace(db: StateDatabase) -> None:
    threads = await everyone(db)
    store, leases = db.store(SCOPE), db.leases(SCOPE)
    abandoned, fresh, answering = thread(), thread(), thread()
    for orphan in (abandoned, fresh, answering):
        assert not await turn(db, store, ANA, orphan, "fail")  # a first turn that failed
        assert (await rows_of(db.pool, orphan))["checkpoints"] > 0
    for orphan in (abandoned, answering):
        await checkpoints_dated(db, orphan, 2)
    await leases.take(ANA.tenant, 4, answering)  # a turn on it right now
    before = await snapshot(db, threads)

    report = await pruner(db).prune()
    assert report is not None and report.removed.orphans == 1
    assert (await rows_of(db.pool, abandoned))["checkpoints"] == 0
    assert (await rows_of(db.pool, fresh))["checkpoints"] > 0
    assert (await rows_of(db.pool, answering))["checkpoints"] > 0
    assert await snapshot(db, threads) == before
    assert (await pruner(db, orphan_grace_s=0).prune()).removed.orphans == 1  # the fresh one


async def test_a_pass_works_in_bounded_batches(db: StateDatabase) -> None:
    store = db.store(SCOPE)
    idle = [thread() for _ in range(7)]
    for name in idle:
        await conversation(db, store, BIA, name, ["first"])
        await idle_for(db, name, 100)
    dry = await pruner(db, batch=3).prune(dry_run=True)
    assert dry is not None and dry.removed.threads == 7 and len(dry.batch_s) == 3
    assert [(await rows_of(db.pool, name))["threads"] for name in idle] == [1] * 7
    report = await pruner(db, batch=3).prune()
    assert report is not None and report.removed == dry.removed
    assert len(report.batch_s) == 3  # 3 + 3 + 1 threads, each batch its own transaction
    assert [(await rows_of(db.pool, name))["checkpoints"] for name in idle] == [0] * 7


async def test_one_process_prunes_at_a_time(db: StateDatabase) -> None:
    async with db.pool.acquire() as other, other.transaction():  # another replica, pruning
        assert await other.fetchval("SELECT pg_try_advisory_xact_lock($1)", PRUNE_LOCK)
        assert await pruner(db).prune() is None
    results = await asyncio.gather(*(pruner(db).prune() for _ in range(4)))
    assert any(r is not None for r in results)
    assert await pruner(db).prune() is not None  # the lock is given back after each pass


async def test_spent_note_counters_go_and_live_ones_stay(db: StateDatabase) -> None:
    for scope in (SCOPE, OTHER_SCOPE):
        allowance = NoteAllowance(db.pool, Settings().tenant_name_note, timeout_s=10, scope=scope)
        await allowance.ensure_table()
        for caller in (ANA, BIA):
            assert await allowance.take(caller.tenant, caller.user, named=True)
    async with db.pool.acquire() as conn:  # bia's note is from yesterday, in both scopes
        await conn.execute(
            f"UPDATE {SCHEMA}.tenant_name_notes SET noted = ARRAY[now() - interval '1 day']"
            " WHERE user_id = 'bia'"
        )
    report = await pruner(db).prune()
    assert report is not None and report.removed.note_counters == 1
    async with db.pool.acquire() as conn:
        left = await conn.fetch(
            f"SELECT scope, user_id FROM {SCHEMA}.tenant_name_notes ORDER BY 1, 2"
        )
    assert [tuple(r) for r in left] == [
        (OTHER_SCOPE, "ana"),
        (OTHER_SCOPE, "bia"),
        (SCOPE, "ana"),
    ]
