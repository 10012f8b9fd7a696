"""Joins proposed where no foreign key is declared: how many, how many right, and their cost.

Usage: python bench/join_proposals.py [--runs 5] [--tables 100]
In a throw-away embedded PostgreSQL, loads Northwind, Chinook and nycflights13 with their
foreign keys dropped (the keys they declared, or for nycflights13 its documented relations,
are the answer key) and imports each as `catalog import`
and `init` do, printing joins written (right / wrong), declared keys missed, candidates only
listed for review, how many of those the values found where no name said it (rule
`values`), and the import's time. Then imports `init_scale`'s generated schema of
`--tables` tables with its foreign keys dropped and rows in it, the worst case for the
proposals' cost (every key to find by name and try on the data, every text column searched
for in every key; its `kind` codes are in all ten lookups alike, so they are only listed):
median and p95 seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import asyncpg
from figures import quantile
from init_scale import schema_sql

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' schemas

from orquestra.core.database import admin_url, stop_embedded
from orquestra.core.settings import Settings
from orquestra.ddl_catalog.importer import import_schema
from tests.databases import fresh_database
from tests.join_scores import describe, score_schema

TENANT_COLUMNS = {"northwind": None, "chinook": "support_rep_id", "nycflights13": None}
"""Chinook as the issue's tenanted case: support reps own their customers."""
ROWS = 2_000
"""Rows in each generated table (100 tenants)."""


async def public_schemas(server_url: str) -> None:
    for name, tenant_column in TENANT_COLUMNS.items():
        score, imported, _ = await score_schema(
            server_url, name, f"bench_joins_{name}", tenant_column
        )
        print(
            f"\n{name}: {len(score.declared)} foreign keys declared (dropped); "
            f"{len(score.written)} joins written: {len(score.right)} right, "
            f"{len(score.wrong)} wrong; {len(score.missed)} missed; "
            f"{len(score.listed)} listed for review"
        )
        by_values = [p for p in imported.joins.written if p.candidate.rule == "values"]
        listed_by_values = [p for p in imported.joins.listed if p.candidate.rule == "values"]
        print(
            f"  by values (no name says it): {len(by_values)} written, "
            f"{len(listed_by_values)} listed"
        )
        print(f"  wrong:  {describe(score.wrong)}")
        print(f"  missed: {describe(score.missed)}")
        print(f"  listed: {describe(score.listed)}")
        rests = [
            line.strip() for line in imported.text.splitlines() if "rests on a PROPOSED" in line
        ]
        print(f"  tenant_via links resting on a proposed join: {len(rests)}")
        print(f"  import {score.seconds:.3f} s, of which proposing joins {score.proposing:.3f} s")


async def generated_schema(server_url: str, tables: int, runs: int) -> None:
    url = await fresh_database(server_url, "bench_joins_scale")
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(schema_sql(tables))
        for row in await conn.fetch(
            "SELECT conrelid::regclass::text AS t, conname FROM pg_constraint"
            " WHERE contype = 'f' AND connamespace = 'public'::regnamespace"
        ):
            await conn.execute(f'ALTER TABLE {row["t"]} DROP CONSTRAINT "{row["conname"]}"')
        await _fill(conn)
        seconds, proposing = [], []
        for _ in range(runs):
            started = time.perf_counter()
            imported = await import_schema(
                conn, "public", system="public", tenant_column="tenant_id"
            )
            seconds.append(time.perf_counter() - started)
            proposing.append(imported.joins.seconds)
    finally:
        await conn.close()
    joins = imported.joins
    print(
        f"\ngenerated schema ({len(imported.tables)} tables, {ROWS} rows each, no foreign keys):"
        f" {len(joins.written)} joins written, {len(joins.listed)} listed, "
        f"{len(imported.tenancy.via)} tenant_via"
    )
    print(
        f"  import: median {statistics.median(seconds):.3f} s   p95 {quantile(seconds, 0.95):.3f} s"
        f"; proposing joins: median {statistics.median(proposing):.3f} s over {runs} runs"
    )


async def _fill(conn: asyncpg.Connection) -> None:
    """`ROWS` rows in every table, keys pointing at rows that exist."""
    await conn.execute(
        f"INSERT INTO tenant SELECT g, 'tenant ' || g FROM generate_series(1, {ROWS}) g"
    )
    for row in await conn.fetch(
        "SELECT relname::text AS name FROM pg_class WHERE relkind = 'r'"
        " AND relnamespace = 'public'::regnamespace AND relname <> 'tenant' ORDER BY 1"
    ):
        name = row["name"]
        if name.startswith("lookup_"):
            values = f"SELECT 'k' || g, 'label ' || g FROM generate_series(1, {ROWS}) g"
        elif name.startswith("root_"):
            values = (
                f"SELECT g, 1 + g % 100, 'k' || (1 + g % 50), 'new', now()"
                f" FROM generate_series(1, {ROWS}) g"
            )
        else:
            columns = await conn.fetchval(
                "SELECT count(*) FROM information_schema.columns WHERE table_name = $1", name
            )
            other = ", 1 + g % 10" if columns == 6 else ""
            values = (
                f"SELECT g, 1 + g % {ROWS}{other}, g, NULL, 'x' FROM generate_series(1, {ROWS}) g"
            )
        await conn.execute(f"INSERT INTO {name} {values}")
    await conn.execute("ANALYZE")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="orq-bench-joins-"))
    try:
        server_url = admin_url(Settings(data_dir=folder))
        asyncio.run(public_schemas(server_url))
        asyncio.run(generated_schema(server_url, args.tables, args.runs))
    finally:
        stop_embedded(folder)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
