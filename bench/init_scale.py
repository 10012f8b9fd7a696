"""Benchmark `orquestra init` on a generated 100-table schema: median and p95 seconds.

Usage: python bench/init_scale.py [--tables 100] [--runs 7] [--rows 0]
Builds, in a throw-away embedded PostgreSQL, a schema of `--tables` tables: a tenants table,
root tables holding the tenant column, foreign-key chains of up to four hops below them
(some tables with two parents), shared lookup tables, a few enums and a domain, comments on
some tables. `--rows N` fills every root and chained table with N rows (50 tenants, a text
column of 5 values per root, lookups of 5 rows) and analyses them, so that profiling reads
data (above 20,000 rows a table is sampled). Each run scaffolds a fresh deployment folder
(import, tenancy proposal, profiling, files, load, `catalog check`) through
`scaffold_deployment`, the function the command calls.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import asyncpg
from figures import quantile

from orquestra.core.database import admin_url, stop_embedded, with_database
from orquestra.core.settings import Settings
from orquestra.ddl_catalog.scaffold import ScaffoldReport, scaffold_deployment

ENUMS = 4


def schema_sql(tables: int) -> str:
    """DDL for `tables` tables: 1 tenants table, roots, chains of 4 below each, lookups."""
    statements = [
        f"CREATE TYPE status_{i} AS ENUM ('new', 'open', 'done', 'void_{i}');" for i in range(ENUMS)
    ]
    statements.append("CREATE DOMAIN money_amount AS numeric(14,2) CHECK (VALUE >= 0);")
    statements.append("CREATE TABLE tenant (tenant_id integer PRIMARY KEY, name text NOT NULL);")
    lookups = max(1, tables // 10)
    for i in range(lookups):
        statements.append(f"CREATE TABLE lookup_{i} (code text PRIMARY KEY, label text NOT NULL);")
    made, chain = 1 + lookups, 0
    while made < tables:
        parent = f"root_{chain}"
        statements.append(
            f"CREATE TABLE {parent} (id bigint PRIMARY KEY,"
            " tenant_id integer NOT NULL REFERENCES tenant,"
            f" kind text REFERENCES lookup_{chain % lookups},"
            f" status status_{chain % ENUMS} NOT NULL, created_at timestamptz NOT NULL,"
            " channel text);"
        )
        statements.append(f"COMMENT ON TABLE {parent} IS 'Root {chain}';")
        made += 1
        for depth in range(1, 5):
            if made >= tables:
                break
            child = f"child_{chain}_{depth}"
            second = (
                f", other_id bigint REFERENCES root_{chain - 1}" if chain and depth == 2 else ""
            )
            statements.append(
                f"CREATE TABLE {child} (id bigint PRIMARY KEY,"
                f" parent_id bigint NOT NULL REFERENCES {parent}{second},"
                f" amount money_amount, tags text[], note text);"
            )
            parent, made = child, made + 1
        chain += 1
    return "\n".join(statements)


async def build(base_url: str, tables: int) -> str:
    admin = await asyncpg.connect(with_database(base_url, "postgres"))
    try:
        await admin.execute("DROP DATABASE IF EXISTS bench_init_scale")
        await admin.execute("CREATE DATABASE bench_init_scale")
    finally:
        await admin.close()
    url = with_database(base_url, "bench_init_scale")
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(schema_sql(tables))
        count = await conn.fetchval(
            "SELECT count(*) FROM pg_class"
            " WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace"
        )
    finally:
        await conn.close()
    print(f"schema: {count} tables, {ENUMS} enums, 1 domain")
    return url


async def fill(url: str, rows: int) -> None:
    """`rows` rows in every root and chained table, parents first; then ANALYZE."""
    conn = await asyncpg.connect(url)
    try:
        names = [
            r["relname"]
            for r in await conn.fetch(
                "SELECT relname FROM pg_class WHERE relkind = 'r'"
                " AND relnamespace = 'public'::regnamespace"
            )
        ]
        await conn.execute(
            "INSERT INTO tenant SELECT g, 'tenant ' || g FROM generate_series(1, 50) g"
        )
        for name in sorted(n for n in names if n.startswith("lookup_")):
            await conn.execute(
                f"INSERT INTO {name} SELECT 'k' || g, 'label ' || g FROM generate_series(0, 4) g"
            )
        roots = sorted(n for n in names if n.startswith("root_"))
        for name in roots:
            await conn.execute(
                f"INSERT INTO {name} SELECT g, 1 + g % 50, 'k' || (g % 5), 'new', now(),"
                f" (ARRAY['web', 'store', 'phone', 'partner', 'other'])[1 + g % 5]"
                f" FROM generate_series(1, {rows}) g"
            )
        children = [n for n in names if n.startswith("child_")]
        for name in sorted(children, key=lambda n: int(n.rsplit("_", 1)[1])):
            await conn.execute(
                f"INSERT INTO {name} (id, parent_id, amount, note)"
                f" SELECT g, g, g % 1000, 'note ' || g FROM generate_series(1, {rows}) g"
            )
        await conn.execute("ANALYZE")
    finally:
        await conn.close()
    print(f"filled: {rows} rows in each of {len(roots) + len(children)} tables, analysed")


async def bench(url: str, folder: Path, runs: int) -> None:
    seconds: list[float] = []
    report: ScaffoldReport | None = None
    for run in range(runs):
        conn = await asyncpg.connect(url)
        try:
            started = time.perf_counter()
            report = await scaffold_deployment(
                conn, folder / f"run-{run}", "public", tenant_column="tenant_id"
            )
            seconds.append(time.perf_counter() - started)
        finally:
            await conn.close()
        print(f"run {run}: {seconds[-1]:.3f} s")
    assert report is not None
    tenancy = report.imported.tenancy
    print(
        f"proposed: {len(tenancy.roots)} tenant_column, {len(tenancy.via)} tenant_via, "
        f"{len(tenancy.shared)} shared, {len(tenancy.undecided)} undecided; "
        f"check drifts {len(report.drifts)}; ready {report.ready}"
    )
    print(
        f"orquestra init ({len(report.imported.tables)} tables): median "
        f"{statistics.median(seconds):.3f} s   p95 {quantile(seconds, 0.95):.3f} s "
        f"over {runs} runs"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--rows", type=int, default=0, help="rows per table (default: none)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="orq-bench-init-"))
    try:
        base_url = admin_url(Settings(data_dir=folder))
        url = asyncio.run(build(base_url, args.tables))
        if args.rows:
            asyncio.run(fill(url, args.rows))
        asyncio.run(bench(url, folder / "deployments", args.runs))
    finally:
        stop_embedded(folder)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
