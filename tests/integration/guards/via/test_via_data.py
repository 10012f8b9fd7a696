"""The rental chain's data holds the traps the via suite relies on, and the copies are right.

Were a trap lost (no NULL parent keys, no cross-store customers, no colliding order numbers),
the equivalence and attack tests would pass without proving anything; these checks fail then.
"""

from __future__ import annotations

import asyncpg
import pytest

from tests.integration.guards.via.conftest import TENANTS, copy_schema

CHILDREN = ("rental", "payment", "rental_note", "supply_line")
KEYS = {
    "rental": "rental_id",
    "payment": "payment_id",
    "rental_note": "note_id",
    "supply_line": "(order_store, order_no, line_no)",
}


@pytest.mark.parametrize("table", CHILDREN)
async def test_children_split_among_stores_and_nobody(
    table: str, owner: asyncpg.Connection
) -> None:
    """Every child row is in at most one store's copy, and some belong to nobody."""
    key = KEYS[table]
    copies = " UNION ALL ".join(f"SELECT {key} AS k FROM {copy_schema(t)}.{table}" for t in TENANTS)
    counted = await owner.fetchrow(
        f"SELECT count(*) AS copied, count(DISTINCT k) AS distinct_rows FROM ({copies}) c"
    )
    everything = await owner.fetchval(f"SELECT count(*) FROM public.{table}")
    assert counted["copied"] == counted["distinct_rows"]  # no row in two stores
    assert 0 < counted["copied"] < everything  # some rows are nobody's


async def test_stores_are_of_unequal_size(owner: asyncpg.Connection) -> None:
    sizes = [
        await owner.fetchval(f"SELECT count(*) FROM {copy_schema(t)}.payment") for t in TENANTS
    ]
    assert len(set(sizes)) == len(TENANTS) and min(sizes) > 0


async def test_null_parent_keys_exist(owner: asyncpg.Connection) -> None:
    assert await owner.fetchval("SELECT count(*) FROM public.rental WHERE inventory_id IS NULL")
    assert await owner.fetchval("SELECT count(*) FROM public.payment WHERE rental_id IS NULL")
    assert await owner.fetchval("SELECT count(*) FROM public.rental_note WHERE customer_id IS NULL")


@pytest.mark.parametrize("tenant", TENANTS)
async def test_children_point_into_other_stores_by_a_naive_path(
    tenant: str, owner: asyncpg.Connection
) -> None:
    """A store's own payments and rentals name customers and clerks of other stores."""
    schema = copy_schema(tenant)
    for table in ("rental", "payment"):
        for column, root in (("customer_id", "customer"), ("staff_id", "staff")):
            foreign = await owner.fetchval(
                f"SELECT count(*) FROM {schema}.{table} c JOIN public.{root} r "
                f"USING ({column}) WHERE r.store_id <> {int(tenant)}"
            )
            assert foreign > 0, (table, column)


async def test_order_numbers_collide_and_orphan_lines_exist(owner: asyncpg.Connection) -> None:
    stores = await owner.fetchval(
        "SELECT count(DISTINCT store_id) FROM public.supply_order WHERE order_no = 1"
    )
    assert stores == len(TENANTS)
    orphans = await owner.fetchval(
        "SELECT count(*) FROM public.supply_line l WHERE NOT EXISTS (SELECT 1 FROM "
        "public.supply_order o WHERE o.store_id = l.order_store AND o.order_no = l.order_no)"
    )
    assert orphans > 0


async def test_notes_naming_another_customer_than_their_rental_exist(
    owner: asyncpg.Connection,
) -> None:
    mismatched = await owner.fetchval(
        "SELECT count(*) FROM public.rental_note n JOIN public.rental r USING (rental_id) "
        "WHERE n.customer_id <> r.customer_id AND r.inventory_id IS NOT NULL"
    )
    assert mismatched > 0
