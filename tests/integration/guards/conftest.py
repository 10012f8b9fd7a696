"""Fixtures for the guard against each deployment's real database: policy, connections as the
owner and as the agent, and a tenant-only copy (the ground truth).

The copy is written from the catalog's declarations alone: root tables by their tenant
column, tables scoped through parents (`tenant_via`) copied through their parent rows,
shared tables whole. The suites here run once per deployment (see tests/deployment_cases.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import yaml

from orquestra.guards import GuardPolicy, guard_sql
from orquestra.guards.tenant_query import ExecutionLimits, QueryResult, run_as_tenant
from tests.deployment_cases import DEPLOYMENTS, DeploymentUnderTest, owned_rows_sql, parents_first

HERE = Path(__file__).parent
LIMITS = ExecutionLimits(row_cap=0, statement_timeout_ms=3_000, client_timeout_s=6.0)
CORPUS_FILES = {
    "logistics": ("attacks.yaml", "equivalence_queries.yaml"),
    "clinics": ("clinics_attacks.yaml", "clinics_equivalence_queries.yaml"),
}
"""Per deployment: its attack corpus and its equivalence queries, in this folder."""


def corpus(name: str, kind: str) -> list[Any]:
    """`kind` ("attacks" or "queries") of deployment `name`."""
    attacks, queries = CORPUS_FILES[name]
    file = attacks if kind == "attacks" else queries
    return yaml.safe_load((HERE / file).read_text(encoding="utf-8"))


def for_each_deployment(kind: str, argname: str, ids: Any) -> pytest.MarkDecorator:
    """Parametrize a test over every (deployment, item of its `kind` corpus).

    Session scope: the deployment and its tenant copy are set up once per deployment, not
    once per item (a direct argument would otherwise narrow the pair to function scope)."""
    pairs = [(d, item) for d in DEPLOYMENTS for item in corpus(d, kind)]
    return pytest.mark.parametrize(
        ("deployment", argname),
        pairs,
        indirect=["deployment"],
        ids=[f"{d}-{ids(item)}" for d, item in pairs],
        scope="session",
    )


@dataclass(frozen=True)
class TenantCopy:
    """The deployment under test and the schema holding only its tenant's rows."""

    deployment: DeploymentUnderTest
    schema: str

    @property
    def tenant(self) -> str:
        return self.deployment.tenant

    @property
    def policy(self) -> GuardPolicy:
        return self.deployment.policy


@pytest.fixture(scope="session")
async def tenant_copy(deployment: DeploymentUnderTest) -> TenantCopy:
    """A schema of the deployment's database holding only its tenant's rows, parents first."""
    schema = f"tenant_{deployment.tenant}_only"
    conn = await asyncpg.connect(deployment.owner_url)
    try:
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}")
        for name in parents_first(deployment.catalog):
            source = owned_rows_sql(deployment.catalog, name, schema, deployment.tenant)
            await conn.execute(f"CREATE TABLE {schema}.{name} AS {source}")
    finally:
        await conn.close()
    return TenantCopy(deployment, schema)


@pytest.fixture
async def owner(deployment: DeploymentUnderTest) -> AsyncIterator[asyncpg.Connection]:
    """The database's owner (row-level security does not apply). No statement cache: the
    same text runs on the full tables and on the copy, whose row types differ."""
    connection = await asyncpg.connect(deployment.owner_url, statement_cache_size=0)
    try:
        yield connection
    finally:
        await connection.close()


@pytest.fixture
async def agent(deployment: DeploymentUnderTest) -> AsyncIterator[asyncpg.Connection]:
    """The least-privilege agent role on the deployment's database."""
    connection = await asyncpg.connect(deployment.agent_url)
    try:
        yield connection
    finally:
        await connection.close()


async def run_on_copy(conn: asyncpg.Connection, sql: str, copy: TenantCopy) -> list[tuple]:
    """`sql` over the tenant-only copy (as the owner, same time zone); `public.` points there."""
    sql = sql.replace("public.", f"{copy.schema}.")
    async with conn.transaction():
        await conn.execute(
            f"SET LOCAL search_path TO {copy.schema}; SET LOCAL TimeZone = '{LIMITS.timezone}'"
        )
        return [tuple(r) for r in await conn.fetch(sql)]


async def run_unguarded(conn: asyncpg.Connection, sql: str) -> list[tuple]:
    """`sql` on the full database as the owner, no guard at all: the control."""
    async with conn.transaction():
        await conn.execute(f"SET LOCAL TimeZone = '{LIMITS.timezone}'")
        return [tuple(r) for r in await conn.fetch(sql)]


async def run_guarded(conn: asyncpg.Connection, sql: str, copy: TenantCopy) -> QueryResult:
    """Layers 1-2 (guard_sql) as the copy's tenant, then the executor on `conn` (layer 3 as
    well when `conn` is the agent)."""
    guarded = guard_sql(sql, copy.policy, copy.tenant, max_rows=0)
    return await run_as_tenant(conn, guarded.sql, guarded.params, tenant=copy.tenant, limits=LIMITS)


def multiset(rows: list[tuple]) -> Counter:
    """Rows as a multiset, numbers rounded to 2 decimals (design §3.4)."""
    return Counter(tuple(_normal(v) for v in row) for row in rows)


def _normal(value: object) -> object:
    if isinstance(value, float | Decimal):
        return round(Decimal(str(value)), 2)
    return value
