"""Benchmark the tenant guard: time per query and per layer, and the executor's overhead.

Usage: python bench/guard.py [--rounds 30]
Guard: every query of the realistic corpora (the semantic-equivalence queries and the rewrite
golden file) guarded `--rounds` times; median and p99 per query overall and per layer.
Executor: the same guarded queries run through `run_as_tenant` (read-only transaction,
SET LOCAL, statement timeout, cursor) versus a bare prepared fetch on a connection whose
tenant was set once for the session; median and p95 of each and their ratio.
Chains: queries over a schema whose tenant column lives only on root tables, guarded with
its two- and three-level `tenant_via` chains, against the same queries with every table
given a tenant column of its own (same process, same rounds); median, p99 and their ratio.
Uses the embedded database in ORQUESTRA_DATA_DIR (loading the demo data if missing).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from dataclasses import replace
from pathlib import Path

import asyncpg
import yaml
from figures import summary

from orquestra.core.database import agent_url
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.guards import GuardPolicy, guard_sql
from orquestra.guards.tenant_query import ExecutionLimits, run_as_tenant
from orquestra.server.db_init import init_database

TESTS = Path(__file__).resolve().parents[1] / "tests"
CORPORA = (
    TESTS / "integration" / "guards" / "equivalence_queries.yaml",
    TESTS / "unit" / "guards" / "rewrite_cases.yaml",
)


def corpus() -> list[str]:
    queries: list[str] = []
    for path in CORPORA:
        for item in yaml.safe_load(path.read_text(encoding="utf-8")):
            queries.append(item if isinstance(item, str) else item["sql"])
    return queries


VIA_POLICY = TESTS / "unit" / "guards" / "via_policy.yaml"
VIA_QUERIES = (
    "SELECT p.amount FROM payments p",
    "SELECT count(*) FROM audit.audit_lines",
    "SELECT r.rental_id, sum(p.amount) FROM rentals r LEFT JOIN payments p "
    "ON p.rental_id = r.rental_id GROUP BY r.rental_id ORDER BY 2 DESC LIMIT 10",
    "WITH paid AS (SELECT rental_id, sum(amount) AS total FROM payments GROUP BY rental_id) "
    "SELECT i.film_id, avg(paid.total) FROM inventory i JOIN rentals r USING (inventory_id) "
    "JOIN paid USING (rental_id) GROUP BY i.film_id",
    "SELECT n.body FROM rental_notes n WHERE EXISTS (SELECT 1 FROM payments p "
    "WHERE p.rental_id = n.rental_id AND p.amount > 5)",
    "SELECT rental_id FROM payments UNION SELECT rental_id FROM rental_notes",
)


def timed(queries: tuple[str, ...], policy: GuardPolicy, rounds: int) -> list[float]:
    values = []
    for _ in range(rounds):
        for sql in queries:
            started = time.perf_counter()
            guard_sql(sql, policy, "1", max_rows=501)
            values.append((time.perf_counter() - started) * 1000)
    return values


def bench_chains(rounds: int) -> None:
    via = GuardPolicy.from_file(VIA_POLICY)
    direct = GuardPolicy(
        {
            name: replace(table, tenant_column="store_id", via=None) if table.scoped else table
            for name, table in via.tables.items()
        }
    )
    timed(VIA_QUERIES, via, 3)  # warm-up
    chains, columns = timed(VIA_QUERIES, via, rounds), timed(VIA_QUERIES, direct, rounds)
    print(f"chains: {len(VIA_QUERIES)} queries x {rounds} rounds over tenant_via tables")
    print(f"  tenant_via chains   {summary(chains, 0.99)}")
    print(f"  tenant columns      {summary(columns, 0.99)}")
    print(f"  ratio (median)      {statistics.median(chains) / statistics.median(columns):.2f}x")


def bench_guard(queries: list[str], policy: GuardPolicy, rounds: int) -> None:
    totals: list[float] = []
    layers: dict[str, list[float]] = {}
    for _ in range(rounds):
        for sql in queries:
            started = time.perf_counter()
            guarded = guard_sql(sql, policy, "101", max_rows=501)
            totals.append((time.perf_counter() - started) * 1000)
            for layer, ms in guarded.timings_ms.items():
                layers.setdefault(layer, []).append(ms)
    print(f"guard: {len(queries)} queries x {rounds} rounds")
    for name, values in {"total": totals, **layers}.items():
        print(f"  {name:<9} {summary(values, 0.99)}")


async def bench_executor(queries: list[str], policy: GuardPolicy, rounds: int) -> None:
    settings = Settings()
    await init_database(settings)
    limits = ExecutionLimits(row_cap=500, statement_timeout_ms=10_000, client_timeout_s=20)
    guarded = [guard_sql(sql, policy, "101", max_rows=501) for sql in queries]
    wrapped_conn = await asyncpg.connect(agent_url(settings))
    bare_conn = await asyncpg.connect(agent_url(settings))
    await bare_conn.execute("SET app.tenant_id = '101'")
    wrapped, bare = [], []
    try:
        for _ in range(rounds):
            for item in guarded:
                args = [101] * len(item.params)
                started = time.perf_counter()
                await bare_conn.fetch(item.sql, *args)
                bare.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                await run_as_tenant(
                    wrapped_conn, item.sql, item.params, tenant="101", limits=limits
                )
                wrapped.append((time.perf_counter() - started) * 1000)
    finally:
        await wrapped_conn.close()
        await bare_conn.close()
    bare_median, wrapped_median = statistics.median(bare), statistics.median(wrapped)
    print(f"executor: {len(guarded)} queries x {rounds} rounds, tenant 101")
    print(f"  bare fetch      {summary(bare, 0.95)}")
    print(f"  run_as_tenant   {summary(wrapped, 0.95)}")
    print(
        f"  overhead        median {wrapped_median - bare_median:+7.3f} ms"
        f"   ratio {wrapped_median / bare_median:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--executor-rounds", type=int, default=5)
    args = parser.parse_args()
    policy = GuardPolicy.from_catalog(load_catalog())
    queries = corpus()
    bench_guard(queries, policy, args.rounds)
    bench_chains(args.rounds)
    asyncio.run(bench_executor(queries, policy, args.executor_rounds))


if __name__ == "__main__":
    main()
