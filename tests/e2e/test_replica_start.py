"""Replicas started at the same instant on a server Orquestra has not used yet all become ready.

Compose, Kubernetes and systemd start every replica at once. Before, two of them creating
the state database at the same moment made one die (`UniqueViolationError … Key
(datname)=(orquestra_state) already exists`), and the same could happen to every schema,
table, index, extension and checkpoint migration each replica creates if missing. Here three
`orquestra serve` processes start side by side with `DATABASE_URL` on the session's embedded
server, whose `orquestra_state` database was dropped first: all three answer `/readyz`, their
logs hold no error, and the state database holds each object once.
"""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import asyncpg

from orquestra.core.database import STATE_DATABASE, with_database
from tests.e2e.conftest import Server, start_server

REPLICAS = 3
"""Enough for the race (two are); each more is a whole start-up on the same two cores."""

OBJECTS = """
SELECT json_build_object(
  'extensions', (SELECT json_agg(extname ORDER BY extname) FROM pg_extension),
  'tables', (SELECT json_agg(format('%I.%I', n.nspname, c.relname) ORDER BY 1)
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE c.relkind IN ('r', 'p') AND n.nspname LIKE 'orquestra%'),
  'migrations', (SELECT json_agg(v ORDER BY v) FROM orquestra_sessions.checkpoint_migrations)
)::text
"""


async def _drop_state_database(server_url: str) -> None:
    root = await asyncpg.connect(with_database(server_url, "postgres"))
    try:
        await root.execute(f'DROP DATABASE IF EXISTS "{STATE_DATABASE}" WITH (FORCE)')
    finally:
        await root.close()


async def _state_objects(server_url: str) -> tuple[int, dict[str, list]]:
    import json

    root = await asyncpg.connect(with_database(server_url, "postgres"))
    try:
        databases = await root.fetchval(
            "SELECT count(*) FROM pg_database WHERE datname = $1", STATE_DATABASE
        )
    finally:
        await root.close()
    state = await asyncpg.connect(with_database(server_url, STATE_DATABASE))
    try:
        return databases, json.loads(await state.fetchval(OBJECTS))
    finally:
        await state.close()


def test_replicas_started_at_once_on_a_fresh_server_all_become_ready(
    data_dir: Path, db_url: str
) -> None:
    asyncio.run(_drop_state_database(db_url))
    folder = data_dir / "replica-start"
    started = time.monotonic()
    with ThreadPoolExecutor(REPLICAS) as starting:
        attempts = [
            starting.submit(start_server, folder, DATABASE_URL=db_url) for _ in range(REPLICAS)
        ]
        servers: list[Server] = []
        failures: list[str] = []
        for attempt in attempts:
            try:
                servers.append(attempt.result())
            except RuntimeError as exc:  # the process died at start-up: its log's tail
                failures.append(str(exc))
    ready_s = time.monotonic() - started
    try:
        assert not failures, failures[0]
        print(f"\n{REPLICAS} replicas ready in {ready_s:.1f} s")  # a figure, not an assertion
        for server in servers:
            assert "Traceback" not in server.logs(), server.logs()[-3000:]
        databases, objects = asyncio.run(_state_objects(db_url))
    finally:
        for server in servers:
            server.stop()
    assert databases == 1
    assert objects["extensions"].count("vector") == 1
    tables = objects["tables"]
    assert len(tables) == len(set(tables))
    for table in (
        "orquestra_sessions.threads",
        "orquestra_sessions.run_leases",
        "orquestra_sessions.checkpoints",
        "orquestra_sessions.checkpoint_writes",
        "orquestra_sessions.turns",
        "orquestra_sessions.reviewed_examples",
        "orquestra_sessions.review_log",
        "orquestra_internal.embedding_cache",
    ):
        assert table in tables, tables
    # Each checkpoint migration ran once, in order: none twice, none skipped.
    assert objects["migrations"] == list(range(len(objects["migrations"])))
