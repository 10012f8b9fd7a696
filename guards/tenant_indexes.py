"""Tenant tables' indexes that do not start with the tenant column, and the index to add.

Row-level security filters the rows a lookup returns, not the work done to find them. A
lookup through an index that does not start with the tenant column reaches another tenant's
row before the policy drops it, while a key nobody holds is not reached at all; the time
tells them apart (a probe timed 243 against 184 ms over 300,000 lookups), so SQL the agent
is dictated can learn which keys other tenants hold. With an index that starts with the
tenant column, layer 2's tenant filter becomes an index condition and another tenant's keys
are never reached.

The fix is an additional index on `(tenant column, the index's own columns)`, with the same
method, `INCLUDE` and predicate. A primary key or unique index stays as it is: its
uniqueness, and the foreign keys that point at it, need it. For a key lookup through layer
2's filter the two indexes cost the planner the same, and PostgreSQL took the new one in every
trial (`tests/integration/test_db_policies.py` checks the plan); SQL that reaches the
database without layer 2's filter may still be planned through the old one, which is why a
non-unique index nothing else needs is better dropped.

`db policies --apply` reports these and never builds them: an index reads the whole table
and takes disk and time on a company's database, `CREATE INDEX CONCURRENTLY` cannot run in
the one transaction `--apply` uses, and whether a table is worth it (and whether an old index
may go) is the owner's call. An index counts as fixed once one starting with the tenant
column and then its columns exists, so running the statement clears the finding.

>>> gap = index_gap("public.rental", "store_id", {
...     "index_name": "rental_pkey", "is_primary": True, "partitioned": False,
...     "ddl": "CREATE UNIQUE INDEX rental_pkey ON public.rental USING btree (rental_id)"}, [])
>>> gap.fix
'CREATE INDEX CONCURRENTLY ON public.rental (store_id, rental_id)'
>>> index_gap("public.rental", "store_id", {"index_name": "rental_store_idx",
...     "is_primary": False, "partitioned": False,
...     "ddl": "CREATE INDEX rental_store_idx ON public.rental (store_id, rental_date)"}, [])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg
import pglast
from pglast import ast, enums
from pglast.stream import RawStream

from orquestra.ddl_catalog import Catalog

__all__ = ["INDEXES_SQL", "IndexGap", "index_gap", "tenant_index_gaps"]

INDEXES_SQL = """
SELECT ic.relname AS index_name, pg_get_indexdef(i.indexrelid) AS ddl,
       i.indisprimary AS is_primary, c.relkind = 'p' AS partitioned
FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
WHERE i.indrelid = to_regclass($1) AND i.indisvalid
ORDER BY ic.relname
"""
"""A table's usable indexes (an invalid one, left by a failed CONCURRENTLY, is never planned)."""
MANY_COLUMN_METHOD = {"hash": "btree", "spgist": "gist"}
"""Methods that take one column only, and the one the fix uses instead."""
NEEDS_EXTENSION = {"gin": "btree_gin", "gist": "btree_gist"}
"""A GIN or GiST index takes a plain tenant column through these extensions."""


@dataclass(frozen=True)
class IndexGap:
    """An index of a tenant table that does not start with its tenant column."""

    table: str
    index: str
    kind: str
    """`primary key`, `unique index` or `index`."""
    columns: str
    tenant_column: str
    fix: str
    """The statement that adds an index starting with the tenant column."""
    note: str = ""

    def describe(self) -> str:
        """What is open and what to do; the statement itself is `fix`."""
        kept = (
            f"the {self.kind} stays: its uniqueness and the keys that point at it need it"
            if self.kind != "index"
            else f"then drop {self.index} if nothing else of yours uses it"
        )
        return (
            f"{self.table}: {self.kind} {self.index} {self.columns} does not start with the"
            f" tenant column {self.tenant_column}, so SQL can time lookups of other tenants'"
            f" keys through it. Add an index that starts with it ({kept}){self.note}:"
        )


def index_gap(
    table: str, tenant_column: str, row: Mapping[str, Any], leading: Sequence[ast.IndexStmt]
) -> IndexGap | None:
    """The gap `row` (an `INDEXES_SQL` row) leaves, unless it starts with the tenant column
    or an index in `leading` (those that do) already starts with the fix's columns."""
    index = _parse(row["ddl"])
    if _starts_with(index, tenant_column):
        return None
    fix = _fix(row["ddl"], tenant_column, partitioned=bool(row["partitioned"]))
    if any(_covers(other, fix) for other in leading):
        return None
    kind = "primary key" if row["is_primary"] else "unique index" if index.unique else "index"
    note = ""
    if fix.accessMethod in NEEDS_EXTENSION:
        note += f" (a {fix.accessMethod} index needs the {NEEDS_EXTENSION[fix.accessMethod]}"
        note += " extension for the tenant column)"
    if row["partitioned"]:
        note += " (a partitioned table's index cannot be built CONCURRENTLY: it blocks writes)"
    columns = "(" + ", ".join(_text(p) for p in index.indexParams or ()) + ")"
    return IndexGap(table, row["index_name"], kind, columns, tenant_column, _text(fix), note)


async def tenant_index_gaps(conn: asyncpg.Connection, catalog: Catalog) -> list[IndexGap]:
    """Every gap of the catalog's tables that hold a tenant column, table by table."""
    gaps: list[IndexGap] = []
    for table in catalog.tables.values():
        if not table.tenant_column:
            continue  # a tenant_via table's rows are reached through its parents' keys
        name = f"{table.db_schema}.{table.name}"
        quoted = f'"{table.db_schema}"."{table.name}"'
        rows = await conn.fetch(INDEXES_SQL, quoted)
        leading = [
            s for s in (_parse(r["ddl"]) for r in rows) if _starts_with(s, table.tenant_column)
        ]
        for row in rows:
            gap = index_gap(name, table.tenant_column, row, leading)
            if gap is not None:
                gaps.append(gap)
    return gaps


def _parse(ddl: str) -> ast.IndexStmt:
    statement = pglast.parse_sql(ddl)[0].stmt
    assert isinstance(statement, ast.IndexStmt)  # pg_get_indexdef writes CREATE INDEX only
    return statement


def _starts_with(index: ast.IndexStmt, column: str) -> bool:
    params = index.indexParams or ()
    return bool(params) and params[0].name == column


def _fix(ddl: str, tenant_column: str, *, partitioned: bool) -> ast.IndexStmt:
    fix = _parse(ddl)
    tenant = ast.IndexElem(
        name=tenant_column,
        ordering=enums.SortByDir.SORTBY_DEFAULT,
        nulls_ordering=enums.SortByNulls.SORTBY_NULLS_DEFAULT,
    )
    params = [p for p in fix.indexParams or () if p.name != tenant_column]
    if fix.accessMethod in MANY_COLUMN_METHOD:
        fix.accessMethod = MANY_COLUMN_METHOD[fix.accessMethod]
        for param in params:
            param.opclass = None  # the old method's operator class; the new one's default
    fix.indexParams = (tenant, *params)
    fix.idxname = None  # PostgreSQL names it after the table and columns
    fix.unique = fix.primary = fix.nulls_not_distinct = False
    fix.concurrent = not partitioned
    assert fix.relation is not None
    fix.relation.inh = True  # `ON ONLY` (a partitioned table's own index) would skip partitions
    return fix


def _covers(index: ast.IndexStmt, fix: ast.IndexStmt) -> bool:
    """`index` starts with every column of `fix`, with its method, under its predicate or none."""
    wanted = [_text(p) for p in fix.indexParams or ()]
    return (
        index.accessMethod == fix.accessMethod
        and [_text(p) for p in index.indexParams or ()][: len(wanted)] == wanted
        and (index.whereClause is None or _text(index.whereClause) == _text(fix.whereClause))
    )


def _text(node: ast.Node | None) -> str:
    return "" if node is None else str(RawStream()(node))
