"""Deleting and pruning conversations over a real `orquestra serve`, in a state database of
its own (`ORQUESTRA_STATE_URL`), with the offline model.

A person deletes one of their threads (204), and it is gone from the list and from the
database, checkpoints and all; another user or tenant gets 404 for it, and a thread a turn
is answering on gets 409. `orquestra threads prune`, in a process of its own, removes a
thread idle past the retention and a conversation nobody owns (`orquestra ask`'s), and says
so; a server with a short interval prunes by itself while serving.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest

from orquestra.core.database import admin_url
from orquestra.core.settings import Settings
from orquestra.graph.checkpoints import SCHEMA
from tests.databases import fresh_database
from tests.e2e.conftest import Server, orquestra_cli, start_server, stream, token

QUESTION = "status da nota 40908"
TABLES = ("checkpoints", "checkpoint_writes", "checkpoint_blobs", "threads")


@pytest.fixture(scope="module")
def state_url(data_dir: Path, demo_db: object) -> str:
    server = admin_url(Settings(data_dir=data_dir))
    return asyncio.run(fresh_database(server, "orquestra_deletion_state"))


@pytest.fixture(scope="module")
def env(data_dir: Path, state_url: str) -> dict[str, str]:
    return {"ORQUESTRA_DATA_DIR": str(data_dir), "ORQUESTRA_STATE_URL": state_url}


@pytest.fixture(scope="module")
def served(data_dir: Path, env: dict[str, str]) -> Iterator[Server]:
    """A server that never prunes by itself: what is pruned here, the command prunes."""
    running = start_server(data_dir, **env, ORQUESTRA_THREAD_PRUNE_INTERVAL_S="0")
    yield running
    running.stop()


def rows(state_url: str, thread: str) -> dict[str, int]:
    async def count() -> dict[str, int]:
        conn = await asyncpg.connect(state_url)
        try:
            return {
                table: await conn.fetchval(
                    f"SELECT count(*) FROM {SCHEMA}.{table} WHERE thread_id = $1", thread
                )
                for table in TABLES
            }
        finally:
            await conn.close()

    return asyncio.run(count())


def execute(state_url: str, sql: str, *args: object) -> None:
    async def run() -> None:
        conn = await asyncpg.connect(state_url)
        try:
            await conn.execute(sql, *args)
        finally:
            await conn.close()

    asyncio.run(run())


def ask(server: Server, bearer: str) -> str:
    events = stream(server.url, QUESTION, bearer=bearer)
    assert events[-1]["event"] == "done" and "error" not in {e["event"] for e in events}
    return str(events[0]["data"]["thread_id"])


def listed(server: Server, bearer: str) -> set[str]:
    headers = {"Authorization": f"Bearer {bearer}"}
    return {
        t["thread_id"]
        for t in httpx.get(f"{server.url}/v1/threads", headers=headers).json()["threads"]
    }


def delete(server: Server, bearer: str, thread: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {bearer}"}
    return httpx.delete(f"{server.url}/v1/threads/{thread}", headers=headers, timeout=30)


def test_only_its_owner_deletes_a_thread_and_all_of_it_goes(served: Server, state_url: str) -> None:
    ana, bia, ana_elsewhere = token("101", "ana"), token("101", "bia"), token("102", "ana")
    first, second = ask(served, ana), ask(served, ana)
    theirs = {"bia": ask(served, bia), "ana_102": ask(served, ana_elsewhere)}
    before = {name: rows(state_url, thread) for name, thread in theirs.items()}
    assert rows(state_url, first)["checkpoints"] > 0 and rows(state_url, first)["threads"] == 1

    for outsider in (bia, ana_elsewhere):
        refused = delete(served, outsider, first)
        assert refused.status_code == 404 and refused.json()["code"] == "THREAD_NOT_FOUND"
    assert first in listed(served, ana)

    deleted = delete(served, ana, first)
    assert deleted.status_code == 204 and deleted.content == b""
    assert listed(served, ana) == {second}
    headers = {"Authorization": f"Bearer {ana}"}
    assert httpx.get(f"{served.url}/v1/threads/{first}", headers=headers).status_code == 404
    assert rows(state_url, first) == dict.fromkeys(TABLES, 0)
    assert rows(state_url, second)["checkpoints"] > 0
    assert {name: rows(state_url, thread) for name, thread in theirs.items()} == before
    assert delete(served, ana, first).status_code == 404  # gone, and says so the same way
    assert delete(served, ana, "no-such-thread").status_code == 404


def test_a_thread_being_answered_is_not_deleted(served: Server, state_url: str) -> None:
    caio = token("103", "caio")
    thread = ask(served, caio)
    run = str(uuid.uuid4())  # a turn on it, on another replica, right now
    execute(
        state_url,
        f"INSERT INTO {SCHEMA}.run_leases (run_id, scope, tenant, thread_id, holder, expires_at)"
        " VALUES ($1, 'elsewhere', '103', $2, 'another-replica', now() + interval '1 minute')",
        run,
        thread,
    )
    busy = delete(served, caio, thread)
    assert busy.status_code == 409 and busy.json()["code"] == "THREAD_BUSY"
    assert thread in listed(served, caio)
    execute(state_url, f"DELETE FROM {SCHEMA}.run_leases WHERE run_id = $1", run)
    assert delete(served, caio, thread).status_code == 204


def prune(env: dict[str, str], *args: str) -> dict:
    done = orquestra_cli(
        {**env, "ORQUESTRA_THREAD_ORPHAN_GRACE_S": "0"}, "threads", "prune", "--json", *args
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_prune_command_removes_idle_and_unowned_conversations(
    served: Server, env: dict[str, str], state_url: str
) -> None:
    dora, edu = token("101", "dora"), token("102", "edu")
    idle, recent, elsewhere = ask(served, dora), ask(served, dora), ask(served, edu)
    execute(
        state_url,
        f"UPDATE {SCHEMA}.threads SET updated_at = now() - interval '100 days'"
        " WHERE thread_id = $1",
        idle,
    )
    terminal = orquestra_cli(env, "ask", "--tenant", "101", "--json", QUESTION)
    assert terminal.returncode == 0, terminal.stderr
    unowned = json.loads(terminal.stdout.splitlines()[0])["data"]["thread_id"]
    assert rows(state_url, unowned)["checkpoints"] > 0 and rows(state_url, unowned)["threads"] == 0
    kept = {name: rows(state_url, t) for name, t in {"recent": recent, "edu": elsewhere}.items()}

    dry = prune(env, "--dry-run")
    assert dry["dry_run"] and dry["removed"]["threads"] == 1 and dry["removed"]["orphans"] >= 1
    assert rows(state_url, idle)["threads"] == 1  # a dry run deletes nothing

    report = prune(env)
    removed = report["removed"]
    assert removed["threads"] == 1 and removed["orphans"] == dry["removed"]["orphans"]
    assert removed["checkpoints"] > 0 and removed["blobs"] > 0 and report["batches"] >= 2
    assert rows(state_url, idle) == dict.fromkeys(TABLES, 0)
    assert rows(state_url, unowned) == dict.fromkeys(TABLES, 0)
    assert {
        name: rows(state_url, t) for name, t in {"recent": recent, "edu": elsewhere}.items()
    } == kept
    assert listed(served, dora) == {recent}
    again = orquestra_cli(env, "threads", "prune")
    assert again.returncode == 0 and again.stdout.startswith("removed 0 threads, 0 orphaned")


def test_a_server_prunes_by_itself_while_serving(
    data_dir: Path, env: dict[str, str], state_url: str
) -> None:
    pruning = start_server(data_dir, **env, ORQUESTRA_THREAD_PRUNE_INTERVAL_S="1")
    try:
        fabio = token("104", "fabio")
        idle, recent = ask(pruning, fabio), ask(pruning, fabio)
        execute(
            state_url,
            f"UPDATE {SCHEMA}.threads SET updated_at = now() - interval '91 days'"
            " WHERE thread_id = $1",
            idle,
        )
        deadline = time.monotonic() + 60
        while rows(state_url, idle)["checkpoints"] and time.monotonic() < deadline:
            time.sleep(0.5)
        assert rows(state_url, idle) == dict.fromkeys(TABLES, 0)
        assert listed(pruning, fabio) == {recent}
    finally:
        pruning.stop()
