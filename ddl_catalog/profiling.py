"""Profiling a schema's data at import: enumerated values, kinds of columns, words, language.

`init` and `catalog import` read a bounded sample of each table (at most `SAMPLE_ROWS` rows,
`TABLESAMPLE SYSTEM` on a large table, `TIMEOUT_MS` per table, `BUDGET_SECONDS` in all; a
table it cannot read in time is listed, never guessed) and write what they find into the
catalog: a low-cardinality text column's values as its `values:` ("shops that sell shoes"
finds the column holding `SHOES`), each column's kind (`naming.column_kind`), the words of
camelCase and abbreviated names, and the deployment's language.

**Profiling never carries one tenant's data to another**: which values may be written is
`ddl_catalog.value_rules`' to say (common vocabulary only: a value of tenant rows that at
least 3 tenants hold). Without tenants (`--no-tenancy`) every table is shared.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from orquestra.core.texts import counted
from orquestra.ddl_catalog.model import ColumnKind
from orquestra.ddl_catalog.naming import (
    column_kind,
    is_label,
    is_person_name,
    language_of,
    name_words,
    plain_words,
)
from orquestra.ddl_catalog.profiling_sql import ESTIMATES_SQL, Sampled, sample_sql, tenant_chain
from orquestra.ddl_catalog.tenancy import Key, TenancyProposal
from orquestra.ddl_catalog.value_rules import (
    LOOKUP_ROWS,
    MAX_VALUES,
    MIN_TENANT_SHARE,
    MIN_TENANTS,
    REFERENCE_ROWS,
    Scope,
    is_candidate,
    is_label_only,
    kept_values,
)

__all__ = ["ColumnProfile", "SchemaProfile", "profile_review", "profile_schema"]

SAMPLE_ROWS = 10_000
TIMEOUT_MS = 2_000
BUDGET_SECONDS = 30.0


@dataclass(frozen=True)
class ColumnProfile:
    """What profiling found about one column."""

    kind: ColumnKind | None = None
    words: str = ""
    """The name's words when they say more than its snake_case does ("cust join date")."""
    values: tuple[str, ...] = ()
    """Its enumerated values, the most frequent first."""


@dataclass(frozen=True)
class SchemaProfile:
    """What profiling found about a schema, and what a person should know of how."""

    language: str = "en"
    tables: dict[str, str] = field(default_factory=dict)
    """Table → its name's words, when they say more than its snake_case does."""
    columns: dict[tuple[str, str], ColumnProfile] = field(default_factory=dict)
    entities: tuple[str, ...] = ()
    """Tables keyed by one column: one row is one thing to count."""
    left_out: dict[str, int] = field(default_factory=dict)
    """`table.column` → values held by too few tenants to be written."""
    shared_read: tuple[str, ...] = ()
    """Shared tables whose values were written (in a tenanted deployment: to confirm)."""
    sampled: tuple[str, ...] = ()
    """Tables read in part (a sample), not whole."""
    not_read: dict[str, str] = field(default_factory=dict)
    """Table → why its values were not read (time, budget, privilege)."""

    def column(self, table: str, column: str) -> ColumnProfile:
        return self.columns.get((table, column), ColumnProfile())


@dataclass
class _Found:
    """What the tables read so far gave: the values kept, and what a person should know."""

    values: dict[tuple[str, str], tuple[str, ...]] = field(default_factory=dict)
    left_out: dict[str, int] = field(default_factory=dict)
    shared_read: list[str] = field(default_factory=list)
    sampled: list[str] = field(default_factory=list)
    not_read: dict[str, str] = field(default_factory=dict)


async def profile_schema(
    conn: asyncpg.Connection,
    schema: str,
    tables: dict[str, list[Any]],
    primary_keys: dict[str, list[str]],
    keys: list[Key],
    proposal: TenancyProposal,
    tenant_column: str | None,
    comments: list[str],
    *,
    domains: Mapping[str, str] | None = None,
) -> SchemaProfile:
    """Profile `tables` (name → its `pg_catalog` column rows) under the tenancy proposal;
    `keys`: foreign keys, declared and proposed; `comments`: the schema's (language);
    `domains`: the schema's domains' base types, by name, so that a column is read as its
    base type (`money_amount` as `numeric(14,2)`); `tenant_column=None`: one organisation's
    data, every table shared."""
    tables = {
        name: [{**c, "type": (domains or {}).get(c["type"], c["type"])} for c in columns]
        for name, columns in tables.items()
    }
    keyed = _key_columns(tables, primary_keys, keys, tenant_column)
    names = list(tables) + [c["column_name"] for cs in tables.values() for c in cs]
    first = language_of(names)
    estimates = {r["table_name"]: r["estimate"] for r in await conn.fetch(ESTIMATES_SQL, schema)}
    found, started = _Found(), time.monotonic()
    for name, columns in tables.items():
        scope = _scope(name, proposal, tenant_column)
        shared = scope.kind == "shared"
        candidates = [
            c["column_name"] for c in columns if is_candidate(c, name, keyed[name], first, shared)
        ]
        if not candidates or scope.kind == "undecided":
            continue
        if shared and tenant_column and estimates.get(name, 0) > REFERENCE_ROWS:
            continue  # too large for reference data while its tenancy is unconfirmed
        if time.monotonic() - started > BUDGET_SECONDS:
            found.not_read[name] = f"the profiling budget ({BUDGET_SECONDS:.0f} s) was spent"
            continue
        sql = sample_sql(
            schema,
            name,
            candidates,
            scope.chain,
            tenant_column if scope.kind == "tenant" else None,
            estimates.get(name),
            SAMPLE_ROWS,
            MAX_VALUES,
        )
        try:
            seen = await _read(conn, sql, candidates)
        except asyncpg.PostgresError as exc:
            found.not_read[name] = _why_not(exc)
            continue
        _keep_values(name, columns, seen, scope, bool(tenant_column), found)
    language = language_of(names, comments + [v for vs in found.values.values() for v in vs])
    return SchemaProfile(
        language=language,
        tables={n: w for n in tables if (w := name_words(n, language)) != plain_words(n)},
        columns={
            (name, c["column_name"]): _column_profile(
                c, keyed[name], language, found.values.get((name, c["column_name"]), ())
            )
            for name, columns in tables.items()
            for c in columns
        },
        entities=tuple(n for n in tables if len(primary_keys.get(n) or ()) == 1),
        left_out=found.left_out,
        shared_read=tuple(found.shared_read) if tenant_column else (),
        sampled=tuple(found.sampled),
        not_read=found.not_read,
    )


def _keep_values(
    table: str, columns: list[Any], seen: Sampled, scope: Scope, tenanted: bool, found: _Found
) -> None:
    """Into `found`: the values of `table`'s sample that may be written, and what was not."""
    if seen.partial:
        found.sampled.append(table)
    shared = scope.kind == "shared"
    if shared and tenanted and seen.rows > REFERENCE_ROWS:
        return  # too large for reference data (the planner's estimate did not know)
    people = any(is_person_name(c["column_name"]) for c in columns)
    lookup = shared and seen.whole and seen.rows <= LOOKUP_ROWS and not people
    for column, found_values in seen.columns.items():
        kept, dropped = kept_values(found_values, seen, scope, lookup and is_label(column, table))
        if kept and (lookup or not is_label_only(column)):
            found.values[(table, column)] = kept
            if shared and table not in found.shared_read:
                found.shared_read.append(table)
        if dropped:
            found.left_out[f"{table}.{column}"] = dropped


def _column_profile(
    column: Any, keyed: set[str], language: str, values: tuple[str, ...]
) -> ColumnProfile:
    name = column["column_name"]
    words = name_words(name, language)
    return ColumnProfile(
        column_kind(name, column["type"], language, key=name in keyed),
        words if words != plain_words(name) else "",
        values,
    )


def _key_columns(
    tables: dict[str, list[Any]],
    primary_keys: dict[str, list[str]],
    keys: list[Key],
    tenant_column: str | None,
) -> dict[str, set[str]]:
    """Per table, its columns that are keys: primary, foreign (declared or proposed), tenant."""
    keyed = {name: set(primary_keys.get(name) or ()) for name in tables}
    for name, columns in tables.items():
        keyed[name] |= {c["column_name"] for c in columns if c["column_name"] == tenant_column}
    for key in keys:
        keyed.setdefault(key.table, set()).update(key.columns)
        keyed.setdefault(key.target, set()).update(key.target_columns)
    return keyed


def _scope(name: str, proposal: TenancyProposal, tenant_column: str | None) -> Scope:
    if tenant_column is None or name in proposal.shared:
        return Scope("shared")
    if name in proposal.roots:
        return Scope("tenant")
    if name in proposal.via:
        return Scope("tenant", tenant_chain(name, proposal))
    return Scope("undecided")


async def _read(conn: asyncpg.Connection, sql: str, columns: list[str]) -> Sampled:
    async with conn.transaction(readonly=True):
        await conn.execute(f"SET LOCAL statement_timeout = {TIMEOUT_MS}")
        rows = await conn.fetch(sql)
    return Sampled.of(rows, columns, SAMPLE_ROWS)


def _why_not(exc: asyncpg.PostgresError) -> str:
    if isinstance(exc, asyncpg.QueryCanceledError):
        return f"reading a sample took longer than {TIMEOUT_MS / 1000:g} s"
    return f"could not be read ({type(exc).__name__})"


def profile_review(profile: SchemaProfile) -> list[str]:
    """What a person should know of the profiling: what was written and what was not, and
    why (counts and names of tables and columns only, never a value left out)."""
    enumerated = [f"{t}.{c}" for (t, c), found in profile.columns.items() if found.values]
    kinds = Counter(found.kind for found in profile.columns.values() if found.kind)
    lines = [
        f"profiled: language {profile.language}; values written for "
        f"{counted(len(enumerated), 'column', 'columns')}"
        f"{': ' + ', '.join(enumerated[:8]) if enumerated else ''}"
        f"{', …' if len(enumerated) > 8 else ''}; kinds: "
        + (", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) or "none")
    ]
    if profile.left_out:
        lines.append(
            f"values left out, held by fewer than {MIN_TENANTS} tenants (or "
            f"{MIN_TENANT_SHARE:.0%} of them): "
            + ", ".join(f"{where} ({n})" for where, n in profile.left_out.items())
        )
    if profile.shared_read:
        lines.append(
            "values read from tables proposed shared (if one holds tenant rows, declare it and"
            f" delete its values): {', '.join(profile.shared_read)}"
        )
    if profile.sampled:
        lines.append(f"profiled on a sample of {SAMPLE_ROWS:,} rows: {', '.join(profile.sampled)}")
    lines += [f"not profiled: {table}: {why}" for table, why in profile.not_read.items()]
    return lines
