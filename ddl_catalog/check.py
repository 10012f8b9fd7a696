"""`orquestra catalog check`: the catalog against a live database, drift by drift.

PostgreSQL itself canonicalises the catalog's types: the DDL (the catalog's own enums,
domains and composite types first, then its tables) is applied to a scratch schema inside a
transaction that is always rolled back, and both sides are read from `pg_catalog`
(`format_type`). Each side is read with its own schema first on the `search_path`, so a
schema's own type prints unqualified on both; the scratch path keeps the catalog's schemas
after the scratch one, so a type the catalog does not define still resolves. Beside columns
and keys it compares enum labels, domain base types, and partitioning (a view or
materialized view in the database matches a catalog table: it is read-only there), and it
refuses a shared table the database keys into tenant data (`check_tenancy`).
Each drift names the catalog file and line to fix.
"""

from __future__ import annotations

import uuid
from typing import Any

import asyncpg

from orquestra.ddl_catalog.check_tenancy import shared_key_drifts
from orquestra.ddl_catalog.check_types import partitioning_drift, relkinds, type_drifts, user_types
from orquestra.ddl_catalog.drift import Drift
from orquestra.ddl_catalog.model import Catalog, Table

__all__ = ["COLUMNS_SQL", "PRIMARY_KEYS_SQL", "Drift", "check_catalog"]

COLUMNS_SQL = """
SELECT c.relname AS table_name, a.attname AS column_name,
       format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY c.relname, a.attnum
"""
PRIMARY_KEYS_SQL = """
SELECT c.relname AS table_name, array_agg(a.attname ORDER BY k.ord) AS columns
FROM pg_index i
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
WHERE i.indisprimary AND n.nspname = $1
GROUP BY c.relname
"""
TYPE_FAMILIES = (
    {"smallint", "integer", "bigint"},
    {"text", "character varying", "character"},
)


Shape = dict[str, dict[str, tuple[str, bool]]]
"""table → column → (canonical type, not null), in column order."""


async def check_catalog(conn: asyncpg.Connection, catalog: Catalog) -> list[Drift]:
    """Every drift between `catalog` and the database `conn` is connected to."""
    tx = conn.transaction()
    await tx.start()
    try:
        schemas = sorted({t.db_schema for t in catalog.tables.values()})
        live: dict[tuple[str, str], dict[str, tuple[str, bool]]] = {}
        live_pk: dict[tuple[str, str], tuple[str, ...]] = {}
        live_kinds: dict[tuple[str, str], str] = {}
        live_types: dict[tuple[str, str], Any] = {}
        for schema in schemas:
            await _search_path(conn, [schema])
            shape, pks = await _shape(conn, schema)
            live.update({(schema, name): columns for name, columns in shape.items()})
            live_pk.update({(schema, name): pk for name, pk in pks.items()})
            live_kinds.update({(schema, n): k for n, k in (await relkinds(conn, schema)).items()})
            live_types.update({(schema, r["name"]): r for r in await user_types(conn, schema)})
        scratch = await _create_scratch(conn, catalog, schemas)
        expected, expected_pk = await _shape(conn, scratch)
        expected_kinds = await relkinds(conn, scratch)
        expected_types = {r["name"]: r for r in await user_types(conn, scratch)}
        drifts: list[Drift] = []
        drifts += [
            drift
            for catalog_type in catalog.types.values()
            for drift in type_drifts(
                catalog_type,
                expected_types[catalog_type.name],
                live_types.get((catalog_type.schema, catalog_type.name)),
            )
        ]
        for table in catalog.tables.values():
            key = (table.db_schema, table.name)
            drifts += _table_drifts(table, expected[table.name], live.get(key))
            if key in live_kinds and (expected_kinds[table.name] == "p") != (
                live_kinds[key] == "p"
            ):
                drifts.append(partitioning_drift(table, expected_kinds[table.name]))
            want, have = expected_pk.get(table.name), live_pk.get(key)
            if key in live and want != have:
                drifts.append(
                    Drift(
                        "PRIMARY_KEY_MISMATCH",
                        table.where,
                        f"{table.name}: catalog primary key {want}, database {have}",
                    )
                )
        drifts += _join_drifts(catalog, live)
        drifts += await shared_key_drifts(conn, catalog)
        drifts += await _metric_drifts(conn, catalog)
    finally:
        await tx.rollback()
    return drifts


async def _create_scratch(conn: asyncpg.Connection, catalog: Catalog, schemas: list[str]) -> str:
    """The catalog's types and tables in a new scratch schema, first on the search path."""
    scratch = f"orquestra_catalog_check_{uuid.uuid4().hex[:12]}"
    await conn.execute(f'CREATE SCHEMA "{scratch}"')
    await _search_path(conn, [scratch, *schemas])
    statements = [t.ddl for system in catalog.systems for t in system.types]
    statements += [ddl for system in catalog.systems for ddl in system.table_ddl]
    # one round trip: a 100-table catalog is ~100 statements (";;" is an empty statement)
    await conn.execute(";\n".join(statements))
    return scratch


async def _search_path(conn: asyncpg.Connection, schemas: list[str]) -> None:
    """`SET LOCAL search_path` to `schemas`, each quoted by PostgreSQL itself."""
    await conn.execute(
        "SELECT set_config('search_path', "
        "(SELECT string_agg(quote_ident(s), ', ') FROM unnest($1::text[]) AS s), true)",
        schemas,
    )


async def _shape(conn: asyncpg.Connection, schema: str) -> tuple[Shape, dict[str, tuple[str, ...]]]:
    shape: Shape = {}
    for row in await conn.fetch(COLUMNS_SQL, schema):
        shape.setdefault(row["table_name"], {})[row["column_name"]] = (row["type"], row["not_null"])
    pks = {r["table_name"]: tuple(r["columns"]) for r in await conn.fetch(PRIMARY_KEYS_SQL, schema)}
    return shape, pks


def _table_drifts(
    table: Table, expected: dict[str, tuple[str, bool]], live: dict[str, tuple[str, bool]] | None
) -> list[Drift]:
    if live is None:
        return [
            Drift(
                "TABLE_MISSING",
                table.where,
                f"table {table.db_schema}.{table.name} is in the catalog, not in the database",
            )
        ]
    drifts = []
    for column in table.columns:
        want_type, want_not_null = expected[column.name]
        if column.name not in live:
            drifts.append(
                Drift(
                    "COLUMN_MISSING",
                    column.where,
                    f"{table.name}.{column.name} ({want_type}) is not in the database",
                )
            )
            continue
        have_type, have_not_null = live[column.name]
        if have_type != want_type:
            drifts.append(
                Drift(
                    "TYPE_MISMATCH",
                    column.where,
                    f"{table.name}.{column.name}: catalog says {want_type}, "
                    f"database has {have_type}",
                )
            )
        if have_not_null != want_not_null:
            drifts.append(
                Drift(
                    "NULLABILITY_MISMATCH",
                    column.where,
                    f"{table.name}.{column.name}: catalog says "
                    f"{'NOT NULL' if want_not_null else 'nullable'}, database has "
                    f"{'NOT NULL' if have_not_null else 'nullable'}",
                )
            )
    for name, (have_type, _) in live.items():
        if name not in expected:
            drifts.append(
                Drift(
                    "COLUMN_EXTRA",
                    table.where,
                    f"{table.name}.{name} ({have_type}) is in the database, not in the catalog",
                )
            )
    return drifts


def _join_drifts(
    catalog: Catalog, live: dict[tuple[str, str], dict[str, tuple[str, bool]]]
) -> list[Drift]:
    drifts = []
    for table in catalog.tables.values():
        for join in table.meta.joins:
            target = catalog.table(join.to)
            for local, remote in join.on.items():
                left = live.get((table.db_schema, table.name), {}).get(local)
                right = live.get((target.db_schema, target.name), {}).get(remote)
                if left is None or right is None:
                    problem = "a column is missing in the database"
                elif not _compatible(left[0], right[0]):
                    problem = f"types {left[0]} and {right[0]} do not compare"
                else:
                    continue
                drifts.append(
                    Drift(
                        "JOIN_BROKEN",
                        table.where,
                        f"join {table.name}.{local} = {join.to}.{remote}: {problem}",
                    )
                )
    return drifts


def _compatible(left: str, right: str) -> bool:
    base_left, base_right = left.split("(")[0], right.split("(")[0]
    if base_left == base_right:
        return True
    return any(base_left in family and base_right in family for family in TYPE_FAMILIES)


async def _metric_drifts(conn: asyncpg.Connection, catalog: Catalog) -> list[Drift]:
    drifts = []
    terms = zip(
        (*catalog.glossary, *catalog.drafts),
        (*catalog.glossary_locations, *catalog.draft_locations),
        strict=True,
    )
    for term, where in terms:  # a draft is checked too: its owner confirms a working query
        metric = term.metric
        if metric is None:
            continue
        table = catalog.table(metric.table)
        sql = f'SELECT {metric.expression} FROM "{table.db_schema}"."{table.name}"'
        conditions = [
            c
            for c in (metric.filter, metric.date_column and f"{metric.date_column} IS NOT NULL")
            if c
        ]
        if conditions:
            sql += " WHERE " + " AND ".join(f"({c})" for c in conditions)
        sql = sql.replace("{today}", "CURRENT_DATE")  # the run's "today" placeholder
        try:
            async with conn.transaction():
                await conn.execute(f"EXPLAIN {sql}")
        except asyncpg.PostgresError as exc:
            drifts.append(
                Drift(
                    "METRIC_BROKEN",
                    where,
                    f"glossary term {term.term!r}: {type(exc).__name__}: {exc}",
                )
            )
    return drifts
