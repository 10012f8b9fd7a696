"""The `pg_catalog` queries `catalog import` reads a schema with (`$1` = the schema).

Partitions (`relispartition`) and the constraints PostgreSQL clones onto them
(`conparentid <> 0`) are left out: a partitioned table is imported once, with its own keys.
A foreign key declared on the partitions only (as pg_dump of the pagila sample has it) is
read as its partitioned root's (`pg_partition_root`), once: a partitioned table keeps every
key that scopes its rows, and is never taken for shared for want of one.
"""

from orquestra.ddl_catalog.check import PRIMARY_KEYS_SQL

__all__ = [
    "COLUMNS_SQL",
    "FOREIGN_KEYS_SQL",
    "INDEXES_SQL",
    "PARTITIONS_SQL",
    "PRIMARY_KEYS_SQL",
    "RELATIONS_SQL",
    "TYPES_SQL",
]

RELATIONS_SQL = """
SELECT c.relname AS table_name, quote_ident(c.relname) AS quoted, c.relkind::text AS kind,
       obj_description(c.oid, 'pg_class') AS comment,
       CASE WHEN c.relkind = 'p' THEN pg_get_partkeydef(c.oid) END AS partition_key
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'f', 'v', 'm') AND NOT c.relispartition
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = c.oid AND d.deptype = 'e')
ORDER BY c.relname
"""
COLUMNS_SQL = """
SELECT c.relname AS table_name, a.attname AS column_name, quote_ident(a.attname) AS quoted,
       format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null,
       CASE WHEN a.attgenerated = 's' THEN pg_get_expr(d.adbin, d.adrelid) END AS generated,
       col_description(c.oid, a.attnum) AS comment,
       (SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_enum e
        WHERE e.enumtypid = CASE WHEN t.typcategory = 'A' THEN t.typelem ELSE t.oid END
       ) AS enum_values
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'f', 'v', 'm') AND NOT c.relispartition
  AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY c.relname, a.attnum
"""
TYPES_SQL = """
SELECT t.typname AS name, quote_ident(t.typname) AS quoted, t.typtype::text AS kind,
       (SELECT array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_enum e
        WHERE e.enumtypid = t.oid) AS labels,
       CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, t.typtypmod) END AS base,
       t.typnotnull AS not_null,
       (SELECT array_agg(pg_get_constraintdef(k.oid) ORDER BY k.conname) FROM pg_constraint k
        WHERE k.contypid = t.oid AND k.contype = 'c') AS checks,
       (SELECT array_agg(quote_ident(a.attname) || ' ' || format_type(a.atttypid, a.atttypmod)
                         ORDER BY a.attnum)
        FROM pg_attribute a WHERE a.attrelid = t.typrelid AND a.attnum > 0
          AND NOT a.attisdropped) AS attributes
FROM pg_type t
JOIN pg_namespace n ON n.oid = t.typnamespace
LEFT JOIN pg_class r ON r.oid = t.typrelid
WHERE n.nspname = $1 AND (t.typtype IN ('e', 'd') OR (t.typtype = 'c' AND r.relkind = 'c'))
  AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = t.oid AND d.deptype = 'e')
ORDER BY t.typtype = 'c', t.typtype = 'd', t.oid
"""
INDEXES_SQL = """
SELECT c.relname AS table_name, pg_get_indexdef(i.indexrelid) AS ddl, ic.relname AS index_name
FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND NOT i.indisprimary AND NOT c.relispartition
ORDER BY c.relname, 2
"""
FOREIGN_KEYS_SQL = """
SELECT src.relname AS table_name, dst.relname AS target, dn.nspname AS target_schema,
       array_agg(sa.attname ORDER BY k.ord) AS local, array_agg(da.attname ORDER BY k.ord) AS remote
FROM pg_constraint f
JOIN pg_class src ON src.oid = COALESCE(pg_partition_root(f.conrelid), f.conrelid)
JOIN pg_class dst ON dst.oid = COALESCE(pg_partition_root(f.confrelid), f.confrelid)
JOIN pg_namespace n ON n.oid = src.relnamespace
JOIN pg_namespace dn ON dn.oid = dst.relnamespace
CROSS JOIN LATERAL unnest(f.conkey, f.confkey) WITH ORDINALITY AS k(src_att, dst_att, ord)
JOIN pg_attribute sa ON sa.attrelid = f.conrelid AND sa.attnum = k.src_att
JOIN pg_attribute da ON da.attrelid = f.confrelid AND da.attnum = k.dst_att
WHERE f.contype = 'f' AND n.nspname = $1 AND f.conparentid = 0
GROUP BY src.relname, dst.relname, dn.nspname, f.oid
ORDER BY 1, 2, 3, 4, 5
"""
PARTITIONS_SQL = """
SELECT parent.relname AS parent, child.relname AS partition
FROM pg_inherits i
JOIN pg_class child ON child.oid = i.inhrelid
JOIN pg_class parent ON parent.oid = i.inhparent
JOIN pg_namespace n ON n.oid = child.relnamespace
WHERE n.nspname = $1 AND child.relispartition AND child.relkind IN ('r', 'p', 'f')
ORDER BY parent.relname, child.relname
"""
