"""Layer 3 on a company's database: `db policies --apply` time, and what row-level security
through parents costs a query.

Usage: python bench/db_policies.py [--repeat 200]
Loads the rental chain of the via-parent tests (tenant = store; payment → rental →
inventory.store_id; supply_line → supply_order on a composite key) into a fresh database on an
embedded PostgreSQL in a temporary folder, applies the least-intrusive statements twice (the
second run must change nothing), then times raw counts as the agent for one store (layer 3
alone, as `orquestra sql --raw` runs them) on tables scoped by their own column, one parent
and two parents, against the owner's hand-written join (no row-level security).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' rental chain

from orquestra.core.database import admin_url, stop_embedded, with_database, with_user
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.guards.rls_setup import least_intrusive_statements
from orquestra.guards.tenant_query import ExecutionLimits, run_as_tenant
from orquestra.server.db_policies import apply_policies
from tests.integration.guards.via.conftest import CATALOG_DIR
from tests.integration.guards.via.rental_data import rental_chain_rows

ROLE = "bench_agent"
LIMITS = ExecutionLimits(row_cap=0, statement_timeout_ms=10_000, client_timeout_s=20.0)
QUERIES = {
    "inventory (tenant column)": (
        "SELECT count(*) FROM inventory",
        "SELECT count(*) FROM inventory WHERE store_id = 1",
    ),
    "rental (1 parent)": (
        "SELECT count(*) FROM rental",
        "SELECT count(*) FROM rental r JOIN inventory i USING (inventory_id) WHERE i.store_id = 1",
    ),
    "payment (2 parents)": (
        "SELECT count(*) FROM payment",
        "SELECT count(*) FROM payment p JOIN rental r USING (rental_id)"
        " JOIN inventory i ON i.inventory_id = r.inventory_id WHERE i.store_id = 1",
    ),
    "supply_line (composite key)": (
        "SELECT count(*) FROM supply_line",
        "SELECT count(*) FROM supply_line l JOIN supply_order o"
        " ON o.store_id = l.order_store AND o.order_no = l.order_no WHERE o.store_id = 1",
    ),
}


async def _load(url: str) -> None:
    catalog = load_catalog(CATALOG_DIR)
    conn = await asyncpg.connect(url)
    try:
        rows = rental_chain_rows()
        for system in catalog.systems:
            for statement in (*system.table_ddl, *system.index_ddl):
                await conn.execute(statement)
        for name, table in catalog.tables.items():
            await conn.copy_records_to_table(
                name, records=rows[name], columns=list(table.column_names)
            )
        await conn.execute("ANALYZE")
    finally:
        await conn.close()


async def _apply(url: str) -> tuple[float, int]:
    catalog = load_catalog(CATALOG_DIR)
    conn = await asyncpg.connect(url)
    try:
        started = time.perf_counter()
        report = await apply_policies(
            conn, catalog, least_intrusive_statements(catalog, role=ROLE), ROLE
        )
        return (time.perf_counter() - started) * 1000, len(report.changes)
    finally:
        await conn.close()


async def _time(run, repeat: int) -> tuple[float, float, object]:
    times, value = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        value = await run()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))], value


async def main(repeat: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(data_dir=Path(folder))
        server = admin_url(settings)
        root = await asyncpg.connect(with_database(server, "postgres"))
        await root.execute("CREATE DATABASE bench_policies")
        await root.close()
        url = with_database(server, "bench_policies")
        await _load(url)
        statements = len(least_intrusive_statements(load_catalog(CATALOG_DIR), role=ROLE))
        first, second = await _apply(url), await _apply(url)
        print(f"db policies --apply ({statements} statements, rental chain catalog)")
        print(f"  first run   {first[0]:8.1f} ms  {first[1]} changes")
        print(f"  second run  {second[0]:8.1f} ms  {second[1]} changes")
        agent, owner = await asyncpg.connect(with_user(url, ROLE)), await asyncpg.connect(url)
        print(f"\nraw count for store 1, {repeat} runs through the executor, median / p99 ms")
        print("  (the agent under row-level security | the owner's hand-written join, no RLS)")
        for label, (raw, joined) in QUERIES.items():
            rls = await _time(
                lambda s=raw: run_as_tenant(agent, s, [], tenant="1", limits=LIMITS), repeat
            )
            plain = await _time(
                lambda s=joined: run_as_tenant(owner, s, [], tenant="1", limits=LIMITS), repeat
            )
            assert rls[2].rows[0][0] == plain[2].rows[0][0], label  # type: ignore[union-attr]
            print(
                f"  {label:<28} {rls[0]:6.2f} / {rls[1]:6.2f}  |  {plain[0]:6.2f} / {plain[1]:6.2f}"
                f"   ({plain[2].rows[0][0]} rows counted)"  # type: ignore[union-attr]
            )
        await agent.close()
        await owner.close()
        stop_embedded(settings.data_dir)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    asyncio.run(main(parser.parse_args().repeat))
