"""`orquestra catalog import`: catalog files from a live schema, metadata left to fill.

Real users start from an existing database. This reads a schema's tables, columns, primary
keys, indexes, foreign keys and comments from `pg_catalog` and writes one system file whose
DDL is what PostgreSQL reports and whose metadata is an outline for a person: descriptions
empty (or the database comments), the tenant column guessed by name, joins from foreign
keys. A table whose tenancy cannot be guessed gets `tenant_column: null`, which the loader
rejects until someone declares it: the guard fails closed on an undecided table.
"""

from __future__ import annotations

from typing import Any

import asyncpg
import pglast
import yaml
from pglast.stream import RawStream

from ddl_catalog.check import COLUMNS_SQL, PRIMARY_KEYS_SQL

TABLES_SQL = """
SELECT c.relname AS table_name, obj_description(c.oid, 'pg_class') AS comment
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p')
ORDER BY c.relname
"""
COMMENTS_SQL = """
SELECT c.relname AS table_name, a.attname AS column_name,
       col_description(c.oid, a.attnum) AS comment
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND a.attnum > 0 AND NOT a.attisdropped
"""
INDEXES_SQL = """
SELECT c.relname AS table_name, pg_get_indexdef(i.indexrelid) AS ddl
FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND NOT i.indisprimary
ORDER BY c.relname, 2
"""
FOREIGN_KEYS_SQL = """
SELECT src.relname AS table_name, dst.relname AS target,
       array_agg(sa.attname ORDER BY k.ord) AS local, array_agg(da.attname ORDER BY k.ord) AS remote
FROM pg_constraint f
JOIN pg_class src ON src.oid = f.conrelid
JOIN pg_class dst ON dst.oid = f.confrelid
JOIN pg_namespace n ON n.oid = src.relnamespace
CROSS JOIN LATERAL unnest(f.conkey, f.confkey) WITH ORDINALITY AS k(src_att, dst_att, ord)
JOIN pg_attribute sa ON sa.attrelid = src.oid AND sa.attnum = k.src_att
JOIN pg_attribute da ON da.attrelid = dst.oid AND da.attnum = k.dst_att
WHERE f.contype = 'f' AND n.nspname = $1
GROUP BY src.relname, dst.relname, f.conname
ORDER BY 1, 2
"""


class _Literal(str):
    """A string YAML writes as a `|` block (the DDL)."""


def _literal(dumper: yaml.SafeDumper, value: _Literal) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Literal, _literal)


async def import_schema(
    conn: asyncpg.Connection, schema: str, *, system: str, tenant_column: str
) -> tuple[str, list[str]]:
    """A system file for `schema` as YAML text, and the tables needing a tenancy decision."""
    async with conn.transaction():
        tables = await conn.fetch(TABLES_SQL, schema)
        columns = await conn.fetch(COLUMNS_SQL, schema)
        primary_keys = {
            r["table_name"]: r["columns"] for r in await conn.fetch(PRIMARY_KEYS_SQL, schema)
        }
        comments = {
            (r["table_name"], r["column_name"]): r["comment"]
            for r in await conn.fetch(COMMENTS_SQL, schema)
        }
        indexes = await conn.fetch(INDEXES_SQL, schema)
        foreign_keys = await conn.fetch(FOREIGN_KEYS_SQL, schema)
        every_name = sorted({r["table_name"] for r in tables} | {r["column_name"] for r in columns})
        quoted = dict(
            await conn.fetch(
                "SELECT name, quote_ident(name) FROM unnest($1::text[]) AS name", every_name
            )
        )
    names = [t["table_name"] for t in tables]
    by_table: dict[str, list[Any]] = {name: [] for name in names}
    for row in columns:
        if row["table_name"] in by_table:
            by_table[row["table_name"]].append(row)
    ddl = [_create_table(name, by_table[name], primary_keys.get(name), quoted) for name in names]
    ddl += [_unqualified_index(r["ddl"]) for r in indexes if r["table_name"] in by_table]
    undecided = []
    meta: dict[str, Any] = {}
    for table in tables:
        name = table["table_name"]
        column_names = [c["column_name"] for c in by_table[name]]
        entry: dict[str, Any] = {"description": table["comment"] or "", "description_en": ""}
        if tenant_column in column_names:
            entry["tenant_column"] = tenant_column
        else:
            entry["tenant_column"] = None
            undecided.append(name)
        entry["synonyms"] = {"pt": [], "en": []}
        entry["columns"] = {
            col: {
                "description": comments.get((name, col)) or "",
                "description_en": "",
                "synonyms": {"pt": [], "en": []},
            }
            for col in column_names
        }
        joins = [
            {"to": fk["target"], "on": dict(zip(fk["local"], fk["remote"], strict=True))}
            for fk in foreign_keys
            if fk["table_name"] == name
        ]
        if joins:
            entry["joins"] = joins
        meta[name] = entry
    document = {
        "system": system,
        "title": system,
        "purpose": "",
        "purpose_en": "",
        "schema": schema,
        "ddl": _Literal("\n".join(ddl) + "\n"),
        "tables": meta,
    }
    text = yaml.dump(document, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return text, undecided


def _unqualified_index(definition: str) -> str:
    """`pg_get_indexdef` output without the schema (the file's `schema:` places the table)."""
    statement = pglast.parse_sql(definition)[0].stmt
    statement.relation.schemaname = None
    return f"{RawStream()(statement)};"


def _create_table(
    name: str, columns: list[Any], primary_key: list[str] | None, quoted: dict[str, str]
) -> str:
    """CREATE TABLE text for one table, names quoted as PostgreSQL's `quote_ident` does."""
    width = max(len(quoted[c["column_name"]]) for c in columns)
    lines = [
        f"    {quoted[c['column_name']].ljust(width)}  {c['type']}"
        + (" NOT NULL" if c["not_null"] else "")
        for c in columns
    ]
    if primary_key:
        lines.append(f"    PRIMARY KEY ({', '.join(quoted[k] for k in primary_key)})")
    return f"CREATE TABLE {quoted[name]} (\n" + ",\n".join(lines) + "\n);"
