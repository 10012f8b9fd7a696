"""Fail-closed sharing against the live database, for `catalog check`.

The loader refuses a shared table whose catalog DDL or joins key it into tenant data. A
catalog written by hand may simply not mention the key; the database still has it. This reads
the database's own foreign keys (a key declared on partitions only counts as its partitioned
table's) and reports every shared catalog table keyed into a table of a tenant, unless the
entry says `shared_because`.
"""

from __future__ import annotations

from typing import Any

from orquestra.ddl_catalog.drift import Drift
from orquestra.ddl_catalog.model import Catalog

LIVE_KEYS_SQL = """
SELECT src.relname AS table_name, sn.nspname AS table_schema,
       dst.relname AS target, dn.nspname AS target_schema,
       array_agg(sa.attname ORDER BY k.ord) AS local
FROM pg_constraint f
JOIN pg_class src ON src.oid = COALESCE(pg_partition_root(f.conrelid), f.conrelid)
JOIN pg_class dst ON dst.oid = COALESCE(pg_partition_root(f.confrelid), f.confrelid)
JOIN pg_namespace sn ON sn.oid = src.relnamespace
JOIN pg_namespace dn ON dn.oid = dst.relnamespace
CROSS JOIN LATERAL unnest(f.conkey) WITH ORDINALITY AS k(att, ord)
JOIN pg_attribute sa ON sa.attrelid = f.conrelid AND sa.attnum = k.att
WHERE f.contype = 'f' AND f.conparentid = 0 AND sn.nspname = ANY($1::text[])
GROUP BY f.oid, src.relname, sn.nspname, dst.relname, dn.nspname
"""


async def shared_key_drifts(conn: Any, catalog: Catalog) -> list[Drift]:
    """A drift per key from a shared table (without `shared_because`) into tenant data."""
    by_place = {(t.db_schema, t.name): t for t in catalog.tables.values()}
    schemas = sorted({schema for schema, _ in by_place})
    drifts, seen = [], set()
    for row in await conn.fetch(LIVE_KEYS_SQL, schemas):
        table = by_place.get((row["table_schema"], row["table_name"]))
        target = by_place.get((row["target_schema"], row["target"]))
        if table is None or target is None or not table.shared or table.meta.shared_because:
            continue
        if target.shared or (table.name, tuple(row["local"]), target.name) in seen:
            continue
        seen.add((table.name, tuple(row["local"]), target.name))
        columns = ", ".join(row["local"])
        drifts.append(
            Drift(
                "SHARED_REFERENCES_TENANT",
                table.where,
                f"{table.name} is shared, but the database keys it ({columns}) into "
                f"{target.name}, which holds tenant data: every tenant would read rows tied "
                f"to other tenants. Scope it with tenant_via (parent: {target.name}), or keep "
                "shared: true and say why in shared_because",
            )
        )
    return drifts
