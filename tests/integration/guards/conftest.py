"""Fixtures for the guard against the real database: policy, agent, a tenant-only copy."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

import asyncpg
import pytest

from ddl_catalog import load_catalog
from guards import GuardPolicy, guard_sql
from guards.executor import ExecutionLimits, QueryResult, run_as_tenant

TENANT = "101"
COPY_SCHEMA = "tenant_101_only"
LIMITS = ExecutionLimits(row_cap=0, statement_timeout_ms=3_000, client_timeout_s=6.0)


@pytest.fixture(scope="session")
def policy() -> GuardPolicy:
    return GuardPolicy.from_catalog(load_catalog())


@pytest.fixture(scope="session")
async def tenant_copy(db_url: str) -> str:
    """A schema holding only tenant 101's rows (and every shared row): the ground truth."""
    catalog = load_catalog()
    conn = await asyncpg.connect(db_url)
    try:
        await conn.execute(f"DROP SCHEMA IF EXISTS {COPY_SCHEMA} CASCADE")
        await conn.execute(f"CREATE SCHEMA {COPY_SCHEMA}")
        for table in catalog.tables.values():
            where = f" WHERE {table.tenant_column} = {TENANT}" if table.tenant_column else ""
            source = f"SELECT * FROM public.{table.name}{where}"
            await conn.execute(f"CREATE TABLE {COPY_SCHEMA}.{table.name} AS {source}")
    finally:
        await conn.close()
    return COPY_SCHEMA


async def run_on_copy(conn: asyncpg.Connection, sql: str) -> list[tuple]:
    """`sql` over the tenant-only copy (as the owner, same time zone); `public.` points there."""
    sql = sql.replace("public.", f"{COPY_SCHEMA}.")
    async with conn.transaction():
        await conn.execute(
            f"SET LOCAL search_path TO {COPY_SCHEMA}; SET LOCAL TimeZone = '{LIMITS.timezone}'"
        )
        return [tuple(r) for r in await conn.fetch(sql)]


async def run_guarded(agent: asyncpg.Connection, sql: str, policy: GuardPolicy) -> QueryResult:
    guarded = guard_sql(sql, policy, TENANT, max_rows=0)
    return await run_as_tenant(agent, guarded.sql, guarded.params, tenant=TENANT, limits=LIMITS)


def multiset(rows: list[tuple]) -> Counter:
    """Rows as a multiset, numbers rounded to 2 decimals (design §3.4)."""
    return Counter(tuple(_normal(v) for v in row) for row in rows)


def _normal(value: object) -> object:
    if isinstance(value, float | Decimal):
        return round(Decimal(str(value)), 2)
    return value
