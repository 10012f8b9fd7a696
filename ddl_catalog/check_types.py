"""The catalog's own types and partitioning against the database, for `catalog check`.

Both sides are read from `pg_catalog` after PostgreSQL has created the catalog's DDL in the
scratch schema, so labels, base types and `relkind` compare as PostgreSQL spells them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import asyncpg

from orquestra.ddl_catalog.drift import Drift
from orquestra.ddl_catalog.model import CatalogType, Location, Table

RELKINDS_SQL = """
SELECT c.relname AS table_name, c.relkind::text AS kind
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
"""
USER_TYPES_SQL = """
SELECT t.typname AS name, t.typtype::text AS kind,
       (SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_enum e
        WHERE e.enumtypid = t.oid) AS labels,
       CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, t.typtypmod) END AS base
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE n.nspname = $1 AND t.typtype IN ('e', 'd', 'c')
"""

TYPE_KINDS = {"e": "enum", "d": "domain", "c": "composite"}


async def relkinds(conn: asyncpg.Connection, schema: str) -> dict[str, str]:
    """Relation → `relkind` (r table, p partitioned, v view, m materialized view, f foreign)."""
    return {r["table_name"]: r["kind"] for r in await conn.fetch(RELKINDS_SQL, schema)}


async def user_types(conn: asyncpg.Connection, schema: str) -> list[asyncpg.Record]:
    rows: list[asyncpg.Record] = await conn.fetch(USER_TYPES_SQL, schema)
    return rows


def type_drifts(catalog_type: CatalogType, expected: Any, live: Any) -> list[Drift]:
    """The catalog's own type against the database's type of that name in its schema."""
    where = catalog_type.where or Location(Path("?"), 0)
    name = f"{catalog_type.schema}.{catalog_type.name}"
    if live is None:
        return [Drift("USER_TYPE_MISSING", where, f"type {name} is not in the database")]
    if live["kind"] != expected["kind"]:
        kinds = f"catalog {TYPE_KINDS[expected['kind']]}, database {TYPE_KINDS[live['kind']]}"
        return [Drift("USER_TYPE_KIND_MISMATCH", where, f"type {name}: {kinds}")]
    if (expected["labels"] or []) != (live["labels"] or []):
        return [
            Drift(
                "ENUM_VALUES_MISMATCH",
                where,
                f"enum {name}: catalog {list(expected['labels'] or [])}, "
                f"database {list(live['labels'] or [])}",
            )
        ]
    if expected["base"] != live["base"]:
        return [
            Drift(
                "DOMAIN_BASE_MISMATCH",
                where,
                f"domain {name}: catalog over {expected['base']}, database over {live['base']}",
            )
        ]
    return []


def partitioning_drift(table: Table, expected_kind: str) -> Drift:
    said = "partitioned" if expected_kind == "p" else "not partitioned"
    other = "is not" if expected_kind == "p" else "is"
    return Drift(
        "PARTITIONING_MISMATCH",
        table.where,
        f"{table.name}: the catalog says {said}; in the database it {other} partitioned",
    )
