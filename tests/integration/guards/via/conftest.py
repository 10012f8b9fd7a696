"""Fixtures for tenancy through parents: the rental-chain database, its tenant copies, roles.

The schema (catalog/) has the store only on root tables; children belong to the store of
their parent row. It is loaded into its own database on the session's embedded PostgreSQL,
with layer 3 applied for its own agent role, and one schema per store holding only that
store's rows (roots by their tenant column, children copied through their parents, shared
tables whole): the ground truth every guarded answer is compared with.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest

from orquestra.core.settings import Settings
from orquestra.ddl_catalog import Catalog, load_catalog
from orquestra.guards import GuardPolicy, guard_sql
from orquestra.guards.rls_setup import policy_statements
from orquestra.guards.tenant_query import ExecutionLimits, QueryResult, run_as_tenant
from tests.databases import fresh_database
from tests.integration.guards.via.rental_data import STORES, rental_chain_rows

HERE = Path(__file__).parent
CATALOG_DIR = HERE / "catalog"
POLICY_FILE = HERE / "policy.yaml"
DATABASE = "orq_via"
AGENT_ROLE = "orq_via_agent"
TENANTS = tuple(str(store) for store in STORES)
LIMITS = ExecutionLimits(row_cap=0, statement_timeout_ms=60_000, client_timeout_s=90.0)
"""Generous: these tests check rows, not speed (layers 2 and 3 together can plan badly)."""


def copy_schema(tenant: str) -> str:
    """The schema holding only `tenant`'s rows."""
    return f"via_store_{tenant}_only"


@pytest.fixture(scope="session")
def via_catalog() -> Catalog:
    return load_catalog(CATALOG_DIR)


@pytest.fixture(scope="session")
def via_policy(via_catalog: Catalog) -> GuardPolicy:
    return GuardPolicy.from_catalog(via_catalog)


@pytest.fixture(scope="session")
async def via_db(settings: Settings, via_catalog: Catalog) -> str:
    """The owner's URL of a fresh database with the rental chain, copies and layer 3."""
    from orquestra.core.database import admin_url

    url = await fresh_database(admin_url(settings), DATABASE)
    conn = await asyncpg.connect(url)
    try:
        await _load(conn, via_catalog)
        for tenant in TENANTS:
            await _copy_tenant(conn, via_catalog, tenant)
        for statement in policy_statements(via_catalog, role=AGENT_ROLE, database=DATABASE):
            await conn.execute(statement)
    finally:
        await conn.close()
    return url


async def _load(conn: asyncpg.Connection, catalog: Catalog) -> None:
    rows = rental_chain_rows()
    for system in catalog.systems:
        for statement in system.table_ddl:
            await conn.execute(statement)
    for name, table in catalog.tables.items():
        await conn.copy_records_to_table(name, records=rows[name], columns=list(table.column_names))
    for system in catalog.systems:
        for statement in system.index_ddl:
            await conn.execute(statement)
    await conn.execute("ANALYZE")


async def _copy_tenant(conn: asyncpg.Connection, catalog: Catalog, tenant: str) -> None:
    """Roots by their tenant column, then children whose parent row is already copied.

    Written from the catalog's declarations alone (not the guard's code), parents first, so
    a chain of any length is copied through its parents; a NULL key matches no parent.
    """
    schema = copy_schema(tenant)
    await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")
    pending = dict(catalog.tables)
    while pending:
        ready = [
            t
            for t in pending.values()
            if t.tenant_via is None or t.tenant_via.parent not in pending
        ]
        assert ready, f"tenant_via cycle among {sorted(pending)}"
        for table in ready:
            await conn.execute(
                f"CREATE TABLE {schema}.{table.name} AS "
                f"SELECT * FROM public.{table.name} c WHERE {_owned(table, schema, tenant)}"
            )
            del pending[table.name]


def _owned(table, schema: str, tenant: str) -> str:
    if table.tenant_column:
        return f"c.{table.tenant_column} = {int(tenant)}"
    if table.tenant_via is None:
        return "true"  # shared
    via = table.tenant_via
    keys = " AND ".join(f"p.{parent} = c.{child}" for child, parent in via.columns.items())
    return f"EXISTS (SELECT 1 FROM {schema}.{via.parent} p WHERE {keys})"


@pytest.fixture
async def owner(via_db: str) -> AsyncIterator[asyncpg.Connection]:
    """The database owner (a superuser: row-level security does not apply). No statement
    cache: the same text runs against each store's copy, whose row types differ."""
    connection = await asyncpg.connect(via_db, statement_cache_size=0)
    try:
        yield connection
    finally:
        await connection.close()


@pytest.fixture
async def via_agent(via_db: str) -> AsyncIterator[asyncpg.Connection]:
    """The least-privilege agent role of this database, under row-level security."""
    from orquestra.core.database import with_user

    connection = await asyncpg.connect(with_user(via_db, AGENT_ROLE))
    try:
        yield connection
    finally:
        await connection.close()


async def run_on_copy(conn: asyncpg.Connection, sql: str, tenant: str) -> list[tuple]:
    """`sql` over `tenant`'s own copy (as the owner, same time zone); `public.` points there."""
    schema = copy_schema(tenant)
    async with conn.transaction():
        await conn.execute(
            f"SET LOCAL search_path TO {schema}; SET LOCAL TimeZone = '{LIMITS.timezone}'"
        )
        return [tuple(r) for r in await conn.fetch(sql.replace("public.", f"{schema}."))]


async def run_unguarded(conn: asyncpg.Connection, sql: str) -> list[tuple]:
    """`sql` on the full database as the owner, no guard at all: the control."""
    async with conn.transaction():
        await conn.execute(f"SET LOCAL TimeZone = '{LIMITS.timezone}'")
        return [tuple(r) for r in await conn.fetch(sql)]


async def run_guarded(
    conn: asyncpg.Connection, sql: str, policy: GuardPolicy, tenant: str
) -> QueryResult:
    """Layers 1-2 (guard_sql), then the executor on `conn` (layer 3 when it is the agent)."""
    guarded = guard_sql(sql, policy, tenant, max_rows=0)
    return await run_as_tenant(conn, guarded.sql, guarded.params, tenant=tenant, limits=LIMITS)
