"""Layer 3 alone on tables scoped through parents (`orquestra sql --raw`): the database holds.

Layers 1 and 2 are skipped: raw SQL runs as the agent role with `SET LOCAL app.tenant_id`.
Row-level security must then show each store only its own rentals, payments, notes and
supply lines (an EXISTS up the parent chain), nothing without a tenant, and every attack of
attacks.yaml must fail or return exactly the store's own answer.
"""

from __future__ import annotations

import asyncpg
import pytest

from orquestra.ddl_catalog import Catalog
from orquestra.guards.tenant_query import QueryError, run_as_tenant
from tests.integration.guards.conftest import multiset
from tests.integration.guards.via.conftest import LIMITS, TENANTS, run_on_copy
from tests.integration.guards.via.test_via_attacks import ATTACKS

VIA_TABLES = ("rental", "payment", "rental_note", "supply_line")


@pytest.mark.parametrize("tenant", TENANTS)
@pytest.mark.parametrize("table", VIA_TABLES)
async def test_a_store_reads_only_its_own_children(
    table: str, tenant: str, via_agent: asyncpg.Connection, owner: asyncpg.Connection
) -> None:
    sql = f"SELECT * FROM {table}"
    raw = await run_as_tenant(via_agent, sql, [], tenant=tenant, limits=LIMITS)
    expected = multiset(await run_on_copy(owner, sql, tenant))
    assert multiset(raw.rows) == expected and sum(expected.values()) > 0
    everything = await owner.fetchval(f"SELECT count(*) FROM public.{table}")
    assert raw.row_count < everything  # other stores' children exist and stay invisible


@pytest.mark.parametrize("table", VIA_TABLES)
async def test_no_tenant_set_means_no_children(table: str, via_agent: asyncpg.Connection) -> None:
    async with via_agent.transaction(readonly=True):
        assert await via_agent.fetchval(f"SELECT count(*) FROM {table}") == 0


async def test_rls_is_forced_on_every_scoped_table(
    via_catalog: Catalog, owner: asyncpg.Connection
) -> None:
    rows = await owner.fetch(
        "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class "
        "WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'"
    )
    flags = {r["relname"]: (r["relrowsecurity"], r["relforcerowsecurity"]) for r in rows}
    for table in via_catalog.tables.values():
        assert flags[table.name] == ((True, True) if not table.shared else (False, False)), (
            table.name
        )


@pytest.mark.parametrize("tenant", TENANTS)
@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a["id"])
async def test_attack_with_only_the_database(
    attack: dict, tenant: str, via_agent: asyncpg.Connection, owner: asyncpg.Connection
) -> None:
    try:
        result = await run_as_tenant(via_agent, attack["sql"], [], tenant=tenant, limits=LIMITS)
    except QueryError:
        return  # refused by the database: nothing read
    try:
        expected = await run_on_copy(owner, attack["sql"], tenant)
    except asyncpg.PostgresError:
        expected = []
    assert multiset(result.rows) == multiset(expected)


@pytest.mark.parametrize("table", VIA_TABLES)
async def test_a_store_that_does_not_exist_sees_no_children(
    table: str, via_agent: asyncpg.Connection
) -> None:
    raw = await run_as_tenant(via_agent, f"SELECT * FROM {table}", [], tenant="4", limits=LIMITS)
    assert raw.rows == []
