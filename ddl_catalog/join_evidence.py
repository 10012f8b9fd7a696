"""Does the data bear a join out? Containment and the parent's uniqueness, measured on rows.

A join `child(columns) → parent(columns)` holds on the data when the child's values are found
in the parent (containment: the share of the child's distinct non-null values that some parent
row matches) and the parent's columns are unique (a primary key or unique index says so, or
no value repeats among its rows), so a child row meets at most one parent row. Both the join
`init` proposes and the one `catalog check --data` verifies are measured here, the same way.

Bounded: a table larger than `SAMPLE_ROWS` rows is read through a sample of its blocks
(`TABLESAMPLE SYSTEM`, about twice that many rows, repeatable) cut at `SAMPLE_ROWS` non-null
rows, for the child's values and for the parent's uniqueness alike (the parent is searched
whole, through its index when it has one); each statement runs under `statement_timeout`,
read-only. A
measurement that fails (a timeout, a privilege, types that do not compare) is reported as
not measured, never as holding. Only counts leave this module, never a value: the evidence
is written into the catalog, which every tenant's prompt reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

import asyncpg

from orquestra.core.texts import counted
from orquestra.ddl_catalog.model import base_type, type_family
from orquestra.ddl_catalog.text import quoted

SAMPLE_ROWS = 10_000
TIMEOUT_MS = 1_000
MIN_CONTAINMENT = 0.98
"""At or above this share of the child's values found in the parent, the join holds (a few
orphans, rows whose parent was deleted, are common in real data)."""
MIN_OVERLAP = 0.5
"""Below this share the data contradicts the join; between the two it has orphans: a right
join over untidy data (an inner join drops those rows), or a coincidence of names."""
MIN_VALUES = 2
"""Fewer distinct child values than this prove nothing: a single small number fits in the
keys of almost any table."""
TEXT_TYPES = frozenset({"text", "character varying", "character", "varchar", "char", "bpchar"})
NUMERIC_TYPES = frozenset({"numeric", "decimal"})
"""Compare with integers exactly (a key kept as `numeric(10,0)`); floats never do."""

SIZE_SQL = """
SELECT c.relkind::text AS kind, c.reltuples AS estimate
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relname = $2
"""
"""The kind of relation and PostgreSQL's estimate of its rows (-1: never counted)."""
SAMPLED_KINDS = frozenset("rpm")
"""What `TABLESAMPLE` reads: tables, partitioned tables, materialized views."""
UNIQUE_KEYS_SQL = """
SELECT c.relname AS table_name, i.indisprimary AS is_primary,
       array_agg(a.attname ORDER BY k.ord) AS columns
FROM pg_index i
JOIN pg_class c ON c.oid = i.indrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
WHERE n.nspname = $1 AND i.indisunique AND i.indpred IS NULL AND i.indexprs IS NULL
  AND k.ord <= i.indnkeyatts
GROUP BY c.relname, i.indexrelid, i.indisprimary
"""
"""Every unique key the database enforces on whole columns (`$1` = the schema); a partial
or expression index makes nothing unique table-wide."""

Verdict = Literal["holds", "orphans", "contradicted", "too few values", "not measured"]


@dataclass(frozen=True)
class Side:
    """One side of a join: a table and its columns, in the join's order."""

    schema: str
    table: str
    columns: tuple[str, ...]

    def __str__(self) -> str:
        return (
            f"{self.table}.{self.columns[0]}"
            if len(self.columns) == 1
            else (f"{self.table}({', '.join(self.columns)})")
        )


@dataclass(frozen=True)
class Evidence:
    """What the rows say about `child → parent`. Counts only, never a value."""

    child: Side
    parent: Side
    values: int = 0
    """Distinct non-null child values read."""
    found: int = 0
    """Of those, how many some parent row matches."""
    sampled: bool = False
    """The child's values were read from a sample of its rows, or its first `SAMPLE_ROWS`."""
    unique: bool | None = None
    """The parent's columns are unique (`None`: not known)."""
    unique_by: str = ""
    """How that is known: `primary key`, `unique index`, or what the rows showed."""
    problem: str | None = None
    """Why it could not be measured."""

    @property
    def containment(self) -> float:
        return self.found / self.values if self.values else 0.0

    @property
    def verdict(self) -> Verdict:
        """`holds` needs every test passed; a refutation beats a lack of values."""
        if self.problem is not None:
            return "not measured"
        if self.unique is False or (self.values and self.containment < MIN_OVERLAP):
            return "contradicted"
        if self.values < MIN_VALUES:
            return "too few values"
        return "orphans" if self.containment < MIN_CONTAINMENT else "holds"

    @property
    def declared_unique(self) -> bool:
        return self.unique_by in ("primary key", "unique index")

    def describe(self) -> str:
        """One line for people: `830/830 values of orders.customer_id found in
        customers.customer_id (primary key)`."""
        if self.problem is not None:
            return f"{self.child} → {self.parent}: not measured ({self.problem})"
        read = f" (in {SAMPLE_ROWS} of its rows)" if self.sampled else ""
        if not self.values:
            found = f"no values of {self.child} to check{read}"
        else:
            found = f"{self.found}/{self.values} values of {self.child}{read} found"
        return f"{found} in {self.parent} ({self.unique_by or 'uniqueness not known'})"


@cache
def comparable(left: str, right: str) -> bool:
    """Do two column types compare with `=` as a join would (integers of any width or
    `numeric`, text of any kind, else the same base type; never an array)?

    >>> comparable("smallint", "numeric(10,0)"), comparable("varchar(5)", "text")
    (True, True)
    >>> comparable("integer[]", "integer"), comparable("uuid", "text")
    (False, False)
    """
    if left.endswith("]") or right.endswith("]"):
        return False
    families = []
    for type_sql in (left, right):
        family = type_family(base_type(type_sql))
        families.append(
            "text" if family in TEXT_TYPES else "integer" if family in NUMERIC_TYPES else family
        )
    return families[0] == families[1]


async def unique_keys(
    conn: asyncpg.Connection, schema: str
) -> dict[str, dict[tuple[str, ...], str]]:
    """table → its unique column sets → `primary key` or `unique index`."""
    keys: dict[str, dict[tuple[str, ...], str]] = {}
    for row in await conn.fetch(UNIQUE_KEYS_SQL, schema):
        kind = "primary key" if row["is_primary"] else "unique index"
        found = keys.setdefault(row["table_name"], {})
        if found.get(tuple(row["columns"])) != "primary key":
            found[tuple(row["columns"])] = kind
    return keys


def declared_uniqueness(keys: dict[tuple[str, ...], str], columns: tuple[str, ...]) -> str:
    """`primary key` / `unique index` when one of `keys` lies within `columns`, else ''."""
    kinds = [kind for key, kind in keys.items() if set(key) <= set(columns)]
    return "primary key" if "primary key" in kinds else (kinds[0] if kinds else "")


async def measure(
    conn: asyncpg.Connection,
    child: Side,
    parent: Side,
    declared_unique: str = "",
    timeout_ms: float = TIMEOUT_MS,
) -> Evidence:
    """The evidence for `child → parent`, read-only and under `timeout_ms` per statement;
    `declared_unique` (`primary key`, `unique index`) spares the parent's uniqueness test."""
    try:
        async with conn.transaction(readonly=True):
            await conn.execute(f"SET LOCAL statement_timeout = {max(1, int(timeout_ms))}")
            child_sample = await _sample(conn, child)
            read, values, found = await conn.fetchrow(_containment_sql(child, parent, child_sample))
            if declared_unique:
                unique, unique_by = True, declared_unique
            else:
                rows, distinct = await conn.fetchrow(
                    _uniqueness_sql(parent, await _sample(conn, parent))
                )
                unique = rows == distinct
                repeated = counted(rows - distinct, "repeated value", "repeated values")
                unique_by = (
                    f"no repeated value in {rows} rows read"
                    if unique
                    else f"NOT unique: {repeated} in {rows} rows read"
                )
    except (asyncpg.PostgresError, OSError) as exc:
        problem = "timed out" if isinstance(exc, asyncpg.QueryCanceledError) else type(exc).__name__
        return Evidence(child, parent, problem=problem)
    sampled = bool(child_sample) or read >= SAMPLE_ROWS
    return Evidence(child, parent, values, found, sampled, unique, unique_by)


async def _sample(conn: asyncpg.Connection, side: Side) -> str:
    """`TABLESAMPLE …` for a table estimated larger than `SAMPLE_ROWS`, else ''."""
    size = await conn.fetchrow(SIZE_SQL, side.schema, side.table)
    return "" if size is None else sample_clause(size["kind"], size["estimate"])


def sample_clause(kind: str, estimate: float) -> str:
    """`TABLESAMPLE …` reading about twice `SAMPLE_ROWS` rows of a relation of `kind`
    estimated at `estimate` rows, or '' when it is not larger than that (or never counted).

    >>> sample_clause("r", 1_000_000), sample_clause("r", 500), sample_clause("v", 1e9)
    (' TABLESAMPLE SYSTEM (2.000000) REPEATABLE (0)', '', '')
    """
    if kind not in SAMPLED_KINDS or estimate <= SAMPLE_ROWS:
        return ""
    percent = min(100.0, 200.0 * SAMPLE_ROWS / estimate)
    return f" TABLESAMPLE SYSTEM ({percent:.6f}) REPEATABLE (0)"


def _containment_sql(child: Side, parent: Side, sample: str) -> str:
    """Rows read (of a sample, if any), distinct child values among them, and how many of
    those a parent row matches."""
    picked = ", ".join(f"{quoted(c)} AS c{i}" for i, c in enumerate(child.columns))
    present = " AND ".join(f"{quoted(c)} IS NOT NULL" for c in child.columns)
    matches = " AND ".join(
        f"p.{quoted(column)} = v.c{i}" for i, column in enumerate(parent.columns)
    )
    return (
        f"WITH s AS (SELECT {picked} FROM {_table(child)}{sample}"
        f" WHERE {present} LIMIT {SAMPLE_ROWS}), v AS (SELECT DISTINCT * FROM s)"
        " SELECT (SELECT count(*) FROM s), count(*),"
        f" count(*) FILTER (WHERE EXISTS (SELECT 1 FROM {_table(parent)} AS p WHERE {matches}))"
        " FROM v"
    )


def _uniqueness_sql(parent: Side, sample: str) -> str:
    """Rows read and distinct values among them, over the parent's non-null rows."""
    row = ", ".join(quoted(c) for c in parent.columns)
    present = " AND ".join(f"{quoted(c)} IS NOT NULL" for c in parent.columns)
    value = row if len(parent.columns) == 1 else f"ROW({row})"
    return (
        f"SELECT count(*), count(DISTINCT {value}) FROM (SELECT {row} FROM {_table(parent)}"
        f"{sample} WHERE {present} LIMIT {SAMPLE_ROWS}) AS s"
    )


def _table(side: Side) -> str:
    return f"{quoted(side.schema)}.{quoted(side.table)}"
