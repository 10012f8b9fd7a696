"""Layer 3 alone for tables scoped through parents (`orquestra sql --raw`: no parse, no rewrite).

The rental chain's `payment` belongs to a store through `rental` then `inventory` (two levels),
`supply_line` through `supply_order` on a composite key, `rental_note` on two columns. Raw SQL
as the agent must return exactly the tenant copy's rows: orphans (NULL keys) belong to nobody,
and the policy spells out the whole parent chain, so it holds even with the parents' own
row-level security switched off.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from orquestra.guards.tenant_query import run_as_tenant
from tests.integration.guards.conftest import multiset
from tests.integration.guards.via.conftest import LIMITS, TENANTS, run_on_copy

VIA_TABLES = ("rental", "payment", "rental_note", "supply_line")


async def raw(agent: asyncpg.Connection, sql: str, tenant: str) -> list[tuple]:
    """What `orquestra sql --raw` runs: the executor only (read-only, tenant set locally)."""
    result = await run_as_tenant(agent, sql, [], tenant=tenant, limits=LIMITS)
    return [tuple(row) for row in result.rows]


@pytest.mark.parametrize("tenant", TENANTS)
@pytest.mark.parametrize("table", VIA_TABLES)
async def test_raw_select_returns_the_tenant_copy(
    table: str, tenant: str, via_agent: asyncpg.Connection, owner: asyncpg.Connection
) -> None:
    sql = f"SELECT * FROM public.{table}"
    expected = await run_on_copy(owner, sql, tenant)
    assert expected, f"{table} has no rows for store {tenant}: the test would prove nothing"
    assert multiset(await raw(via_agent, sql, tenant)) == multiset(expected)


async def test_orphans_and_mismatched_keys_belong_to_nobody(
    via_agent: asyncpg.Connection, owner: asyncpg.Connection
) -> None:
    orphans = {
        "rental": "inventory_id IS NULL",
        "payment": "rental_id IS NULL",
        "rental_note": "customer_id IS NULL",
    }
    for table, where in orphans.items():
        assert await owner.fetchval(f"SELECT count(*) FROM public.{table} WHERE {where}") > 0
        seen = [await raw(via_agent, f"SELECT * FROM {table} WHERE {where}", t) for t in TENANTS]
        assert seen == [[]] * len(TENANTS), table


async def test_every_visible_row_is_counted_once_across_tenants(
    via_agent: asyncpg.Connection, owner: asyncpg.Connection
) -> None:
    """The stores' shares of a via table add up to its owned rows: no row seen by two."""
    for table in VIA_TABLES:
        shares = [(await raw(via_agent, f"SELECT count(*) FROM {table}", t))[0][0] for t in TENANTS]
        copies = [
            (await run_on_copy(owner, f"SELECT count(*) FROM public.{table}", t))[0][0]
            for t in TENANTS
        ]
        assert shares == copies, table
        assert sum(shares) < await owner.fetchval(f"SELECT count(*) FROM public.{table}")


async def test_no_tenant_set_means_no_rows(via_agent: asyncpg.Connection) -> None:
    for table in VIA_TABLES:
        assert await via_agent.fetchval(f"SELECT count(*) FROM {table}") == 0, table


@pytest.fixture
async def parents_without_rls(owner: asyncpg.Connection) -> AsyncIterator[None]:
    """The parents' own row-level security switched off, for one test; restored after."""
    parents = ("rental", "inventory", "supply_order")
    for name in parents:
        await owner.execute(f"ALTER TABLE public.{name} DISABLE ROW LEVEL SECURITY")
    try:
        yield
    finally:
        for name in parents:
            await owner.execute(f"ALTER TABLE public.{name} ENABLE ROW LEVEL SECURITY")


async def test_the_chain_holds_without_the_parents_own_policies(
    parents_without_rls: None, via_agent: asyncpg.Connection, owner: asyncpg.Connection
) -> None:
    tenant = TENANTS[0]
    # The parents are now wide open to the agent: proof that the switch took effect.
    all_rentals = await owner.fetchval("SELECT count(*) FROM public.rental")
    assert len(await raw(via_agent, "SELECT 1 FROM rental", tenant)) == all_rentals
    for table in ("payment", "rental_note", "supply_line"):
        sql = f"SELECT * FROM public.{table}"
        expected = await run_on_copy(owner, sql, tenant)
        assert multiset(await raw(via_agent, sql, tenant)) == multiset(expected), table


async def test_policies_are_restrictive_and_name_the_whole_chain(
    owner: asyncpg.Connection,
) -> None:
    row = await owner.fetchrow(
        "SELECT permissive, qual FROM pg_policies WHERE tablename = 'payment'"
        " AND policyname = 'orquestra_tenant_isolation'"
    )
    assert row["permissive"] == "RESTRICTIVE"
    assert "rental" in row["qual"] and "inventory" in row["qual"] and "store_id" in row["qual"]
    flags = await owner.fetch(
        "SELECT relname, relrowsecurity AND relforcerowsecurity AS on FROM pg_class"
        " WHERE relname = ANY($1::text[]) AND relnamespace = 'public'::regnamespace",
        list(VIA_TABLES),
    )
    assert {r["relname"]: r["on"] for r in flags} == dict.fromkeys(VIA_TABLES, True)


async def test_raw_attack_through_a_parent_join_sees_only_the_tenant(
    via_agent: asyncpg.Connection, owner: asyncpg.Connection
) -> None:
    """A payment joined to another store's inventory through its own rental: nothing leaks."""
    sql = (
        "SELECT i.store_id, count(*) FROM public.payment p"
        " JOIN public.rental r ON r.rental_id = p.rental_id"
        " JOIN public.inventory i ON i.inventory_id = r.inventory_id GROUP BY i.store_id"
    )
    for tenant in TENANTS:
        rows = await raw(via_agent, sql, tenant)
        assert [r[0] for r in rows] == [int(tenant)]
        assert multiset(rows) == multiset(await run_on_copy(owner, sql, tenant))
