"""The rows `ddl_catalog.join_values` judges: each text-like column's distinct values, and
which unique columns of the schema hold them.

Bounded like the name-rule proposals: a column's values are read over at most
`join_evidence.SAMPLE_ROWS` of its table's rows (a repeatable sample of a larger table), at
most `MAX_VALUES` of them; a unique column of up to `PARENT_ROWS` rows is read whole and
searched in memory, a larger one searched by the database through its index. Everything runs
in one read-only transaction, each statement under what is left of the time, at most
`join_evidence.TIMEOUT_MS`. A read that fails or runs out of time ends the search: a column
is judged only once every key that might hold its values has been searched. Only counts
leave this module, never a value.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import asyncpg

from orquestra.ddl_catalog.join_evidence import (
    MIN_VALUES,
    SAMPLE_ROWS,
    TIMEOUT_MS,
    comparable,
    sample_clause,
)
from orquestra.ddl_catalog.join_values import (
    MAX_KEY_LENGTH,
    MIN_LISTED,
    KeyValues,
    ValueMatch,
    judge,
    key_like,
)
from orquestra.ddl_catalog.model import base_type, type_family
from orquestra.ddl_catalog.text import quoted

MAX_VALUES = 1_000
"""Distinct values of a column read for the search; as many of a larger key, for its shape."""
PARENT_ROWS = 20_000
"""A unique column of up to this many rows is read whole and searched in memory."""
SIZES_SQL = """
SELECT c.relname::text AS name, c.relkind::text AS kind, c.reltuples AS estimate
FROM pg_class c WHERE c.relnamespace = $1::regnamespace
"""
STATS_SQL = """
SELECT tablename::text AS table_name, attname::text AS column_name, null_frac, n_distinct,
       coalesce(most_common_vals::text::text[], '{}')
       || coalesce(histogram_bounds::text::text[], '{}') AS seen
FROM pg_stats WHERE schemaname = $1 AND NOT inherited
"""
"""What the database's statistics (`ANALYZE`) say of each column: the share of nulls, the
number of distinct values, and some of its values."""

Columns = Mapping[str, Sequence[tuple[str, str, str]]]
"""Each table's text-like columns: (name, type, `primary key`/`unique index`/'')."""


class _OutOfTime(Exception):
    pass


def code_sql(value: str) -> str:
    """`key_like` in SQL, so that free text is never sent.

    >>> code_sql("c0")
    "length(c0) <= 64 AND c0 !~ '[[:space:]]'"
    """
    return f"length({value}) <= {MAX_KEY_LENGTH} AND {value} !~ '[[:space:]]'"


async def search_values(
    conn: asyncpg.Connection,
    schema: str,
    columns: Columns,
    children: set[tuple[str, str]],
    keyless: set[str],
    deadline: float,
) -> tuple[list[ValueMatch], str]:
    """What `judge` says of each of `children` (table, column) that it has something to say
    of, and why the search stopped short ('' when it did not). `keyless`: the tables that
    declare no primary key, whose columns may be keys by the rows alone."""
    matches: list[ValueMatch] = []
    clock = _Clock(deadline)
    try:
        async with conn.transaction(readonly=True):
            await clock.limit(conn)
            sizes = {
                r["name"]: (r["kind"], r["estimate"]) for r in await conn.fetch(SIZES_SQL, schema)
            }
            children = children - {
                (r["table_name"], r["column_name"])
                for r in await conn.fetch(STATS_SQL, schema)
                if no_key(r["null_frac"], r["n_distinct"], r["seen"])
            }
            keys, read = await _read_all(conn, schema, columns, children, keyless, sizes, clock)
            for place in sorted(children & read.keys()):
                child = read[place]
                held = [
                    (key, await _found(conn, schema, child, key, clock))
                    for key in keys
                    if (key.table, key.column) != place and comparable(child.type, key.type)
                ]
                match = judge(child, held)
                if match is not None:
                    matches.append(match)
    except _OutOfTime:
        return matches, "time budget spent"
    except (asyncpg.PostgresError, OSError) as exc:
        why = "timed out" if isinstance(exc, asyncpg.QueryCanceledError) else type(exc).__name__
        return matches, why
    return matches, ""


async def _read_all(
    conn: asyncpg.Connection,
    schema: str,
    columns: Columns,
    children: set[tuple[str, str]],
    keyless: set[str],
    sizes: Mapping[str, tuple[str, float]],
    clock: _Clock,
) -> tuple[list[KeyValues], dict[tuple[str, str], KeyValues]]:
    """The keys (declared, or unique on the rows) and the other columns read: only the
    children of a type some key may have, and only the keys of a type some child has."""
    keys: list[KeyValues] = []
    read: dict[tuple[str, str], KeyValues] = {}
    may_key = {t for table, cols in columns.items() for _, t, u in cols if u or table in keyless}
    children = {
        (table, c)
        for table, cols in columns.items()
        for c, t, _ in cols
        if (table, c) in children and any(comparable(t, k) for k in may_key)
    }
    types = {t for table, cols in columns.items() for c, t, _ in cols if (table, c) in children}
    if not types:
        return keys, read
    for table, cols in columns.items():
        kind, estimate = sizes.get(table, ("r", 0.0))
        for column, type_sql, unique_by in cols:
            if unique_by and any(comparable(type_sql, t) for t in types):
                await clock.limit(conn)
                keys.append(
                    await _read_key(conn, schema, table, (column, type_sql, unique_by), estimate)
                )
        wanted = [
            (c, t) for c, t, u in cols if not u and (table in keyless or (table, c) in children)
        ]
        if wanted:
            await clock.limit(conn)
            found = await _read_columns(conn, schema, table, wanted, sample_clause(kind, estimate))
            read.update({(table, c.column): c for c in found})
            keys += [c for c in found if c.unique_by and table in keyless]
    return keys, read


def no_key(null_frac: float, n_distinct: float, seen: Sequence[str]) -> bool:
    """The database's statistics show a column that cannot be a key by its values: no value,
    a single one, one-letter flags, or free text in the values they keep. (Statistics may be
    stale: they only spare reading a column, never make a join.)

    >>> no_key(0.0, 2, ["Y", "N"]), no_key(0.0, -1, ["label 1", "label 9"]), no_key(0, 3, [])
    (True, True, False)
    """
    if null_frac >= 1 or n_distinct == 1:
        return True
    seen = [v.rstrip(" ") for v in seen]  # a char(n) column's values come padded
    if not seen:
        return False
    codes = [v for v in seen if key_like(v)]
    return len(codes) < MIN_LISTED * len(seen) or all(len(v) == 1 for v in seen)


@dataclass
class _Clock:
    """What is left of the time, and the statement timeout last set in the transaction."""

    deadline: float
    timeout_ms: int = 0

    async def limit(self, conn: asyncpg.Connection) -> None:
        """The next statement runs under what is left of the time (set again only when that
        is less than `TIMEOUT_MS`, sparing a round trip per statement)."""
        left = self.deadline - time.perf_counter()
        if left <= 0:
            raise _OutOfTime
        limit = max(1, int(min(TIMEOUT_MS, left * 1000)))
        if limit != self.timeout_ms:
            await conn.execute(f"SET LOCAL statement_timeout = {limit}")
            self.timeout_ms = limit


async def _read_key(
    conn: asyncpg.Connection,
    schema: str,
    table: str,
    key: tuple[str, str, str],
    estimate: float,
) -> KeyValues:
    """A declared unique column (name, type, how): its values, whole up to `PARENT_ROWS`;
    of a larger one (by the estimate, or by what is read), `MAX_VALUES` for its shape."""
    column, type_sql, unique_by = key
    large = estimate > PARENT_ROWS
    rows = [
        r[0]
        for r in await conn.fetch(
            f"SELECT {quoted(column)}::text FROM {quoted(schema)}.{quoted(table)}"
            f" WHERE {quoted(column)} IS NOT NULL LIMIT {MAX_VALUES if large else PARENT_ROWS + 1}"
        )
    ]
    complete = not large and len(rows) <= PARENT_ROWS
    distinct = len(rows) if complete else max(len(rows), int(estimate))
    codes = frozenset(v for v in rows if key_like(v))
    counted = distinct if len(codes) == len(rows) else len(codes)
    return KeyValues(table, column, type_sql, codes, distinct, counted, complete, unique_by)


async def _read_columns(
    conn: asyncpg.Connection,
    schema: str,
    table: str,
    columns: Sequence[tuple[str, str]],
    sample: str,
) -> list[KeyValues]:
    """Columns of one table over at most `SAMPLE_ROWS` of its rows: for each, its non-null
    and distinct values, how many of these are codes, and `MAX_VALUES` of those."""
    picked = ", ".join(f"{quoted(c)}::text AS c{i}" for i, (c, _) in enumerate(columns))
    present = ", ".join(f"count(c{i})" for i in range(len(columns)))
    distinct = ", ".join(
        f"(SELECT ROW(count(*), count(*) FILTER (WHERE k), (array_agg(v) FILTER (WHERE k))"
        f"[1:{MAX_VALUES}]) FROM (SELECT DISTINCT c{i} AS v, {code_sql(f'c{i}')}"
        f" AS k FROM s WHERE c{i} IS NOT NULL) AS d)"
        for i in range(len(columns))
    )
    row = await conn.fetchrow(  # `s`, used more than once, is read once
        f"WITH s AS (SELECT {picked} FROM {quoted(schema)}.{quoted(table)}"
        f"{sample} LIMIT {SAMPLE_ROWS}) SELECT (SELECT ARRAY[count(*), {present}] FROM s),"
        f" {distinct}"
    )
    rows, counts = row[0][0], row[0][1:]
    whole = not sample and rows < SAMPLE_ROWS
    found = []
    for (column, type_sql), present_values, (values, codes, some) in zip(
        columns, counts, row[1:], strict=True
    ):
        unique = whole and present_values == values >= MIN_VALUES
        code_values = frozenset(v for v in some or () if key_like(v))
        found.append(
            KeyValues(
                table,
                column,
                type_sql,
                code_values,
                values,
                codes,
                complete=len(code_values) == codes,
                unique_by=f"no repeated value in {rows} rows read" if unique else "",
                sampled=bool(sample) or rows >= SAMPLE_ROWS,
            )
        )
    return found


async def _found(
    conn: asyncpg.Connection, schema: str, child: KeyValues, key: KeyValues, clock: _Clock
) -> int:
    """How many of the child's values the key holds."""
    if key.complete:
        return len(child.values & key.values)
    await clock.limit(conn)
    return int(
        await conn.fetchval(
            f"SELECT count(*) FROM unnest($1::text[]) AS v(x) WHERE EXISTS (SELECT 1 FROM"
            f" {quoted(schema)}.{quoted(key.table)} AS p"
            f" WHERE p.{quoted(key.column)} = v.x::{_compared_as(key.type)})",
            sorted(child.values),
        )
    )


def _compared_as(type_sql: str) -> str:
    """The type a value is compared as, so that the key's index serves (never with a
    length, which would cut the value short).

    >>> _compared_as("character(5)"), _compared_as("varchar(20)"), _compared_as("uuid")
    ('bpchar', 'text', 'uuid')
    """
    family = type_family(base_type(type_sql))
    if family == "uuid":
        return "uuid"
    return "bpchar" if family in ("character", "char", "bpchar") else "text"
