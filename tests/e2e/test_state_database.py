"""Orquestra's own state lives where `ORQUESTRA_STATE_URL` says, never in the company's data.

A "company" database on the session's embedded server holds the demo deployment's tables and
rows and nothing else; `db policies` (least intrusive) is applied to it. A server pointed at
it with `DATABASE_URL`, and at a second database with `ORQUESTRA_STATE_URL`, answers a full
turn; afterwards the company database has no schema, extension, function or table it did
not have before, and the turn's thread is in the state database.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import asyncpg

from orquestra.core.database import with_database
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.guards.rls_setup import least_intrusive_statements
from orquestra.server.db_policies import apply_policies
from tests.e2e.conftest import start_server, stream, token

DATA = "company_data"
STATE = "company_orquestra_state"

FOOTPRINT = """
SELECT json_build_object(
  'schemas', (SELECT json_agg(nspname ORDER BY nspname) FROM pg_namespace
              WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'),
  'extensions', (SELECT json_agg(extname ORDER BY extname) FROM pg_extension),
  'relations', (SELECT json_agg(format('%I.%I', n.nspname, c.relname) ORDER BY 1)
                FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE c.relkind IN ('r', 'p', 'v', 'm') AND n.nspname NOT LIKE 'pg\\_%'
                AND n.nspname <> 'information_schema'),
  'functions', (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE n.nspname NOT IN ('pg_catalog', 'information_schema'))
)::text
"""


async def _company_database(server: str, demo_url: str) -> str:
    """A copy of the demo's tables and rows in a database of their own: the company's."""
    catalog = load_catalog()
    root = await asyncpg.connect(with_database(server, "postgres"))
    try:
        for name in (DATA, STATE):
            await root.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            await root.execute(f"CREATE DATABASE {name}")
    finally:
        await root.close()
    url = with_database(server, DATA)
    source, target = await asyncpg.connect(demo_url), await asyncpg.connect(url)
    try:
        for system in catalog.systems:
            await target.execute(f'CREATE SCHEMA IF NOT EXISTS "{system.db_schema}"')
            await target.execute(f'SET search_path TO "{system.db_schema}"')
            for statement in system.table_ddl:
                await target.execute(statement)
        await target.execute("RESET search_path")
        for table in catalog.tables.values():
            buffer = io.BytesIO()
            await source.copy_from_table(
                table.name, schema_name=table.db_schema, output=buffer, format="binary"
            )
            buffer.seek(0)
            await target.copy_to_table(
                table.name, schema_name=table.db_schema, source=buffer, format="binary"
            )
        statements = least_intrusive_statements(catalog, role=Settings().agent_role)
        await apply_policies(target, catalog, statements, Settings().agent_role)
    finally:
        await source.close()
        await target.close()
    return url


async def _fetch(url: str, sql: str) -> object:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetchval(sql)
    finally:
        await conn.close()


def test_a_full_turn_leaves_nothing_in_the_company_database(data_dir: Path, db_url: str) -> None:
    data_url = asyncio.run(_company_database(db_url, db_url))
    state_url = with_database(db_url, STATE)
    before = asyncio.run(_fetch(data_url, FOOTPRINT))
    server = start_server(
        data_dir / "state-test",
        DATABASE_URL=data_url,
        ORQUESTRA_STATE_URL=state_url,
    )
    try:
        events = stream(server.url, "quantos pedidos eu tenho?", bearer=token("101"))
    finally:
        server.stop()
    kinds = [e["event"] for e in events]
    assert kinds[-1] == "done" and "error" not in kinds, events
    result = next(e["data"] for e in events if e["event"] == "result")
    assert result.get("rows"), result  # the turn read the company's data
    assert asyncio.run(_fetch(data_url, FOOTPRINT)) == before
    assert "orquestra" not in before  # no Orquestra schema or table was there to begin with
    threads = asyncio.run(_fetch(state_url, "SELECT count(*) FROM orquestra_sessions.threads"))
    assert threads == 1
