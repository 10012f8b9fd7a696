"""Benchmark the tenant guard: time per query and per layer, and the executor's overhead.

Usage: python bench/guard.py [--rounds 30]
Guard: every query of the realistic corpora (the semantic-equivalence queries and the rewrite
golden file) guarded `--rounds` times; median and p99 per query overall and per layer.
Executor: the same guarded queries run through `run_as_tenant` (read-only transaction,
SET LOCAL, statement timeout, cursor) versus a bare prepared fetch on a connection whose
tenant was set once for the session; median and p95 of each and their ratio.
Uses the embedded database in ORQUESTRA_DATA_DIR (loading the demo data if missing).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

import asyncpg
import yaml
from figures import summary

from ddl_catalog import load_catalog
from guards import GuardPolicy, guard_sql
from guards.executor import ExecutionLimits, run_as_tenant
from server.database import agent_url
from server.db_init import init_database
from server.settings import Settings

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
    asyncio.run(bench_executor(queries, policy, args.executor_rounds))


if __name__ == "__main__":
    main()
