"""`orquestra sql`: run one query exactly as the agent would, and show what happened.

Without `--raw` the SQL goes through the guard (layers 1 and 2) and then the executor
(layer 3). With `--raw` it goes straight to the executor, to show the database holding the
line alone. With `--dialect D` the SQL is first read as dialect D (sqlglot) and written as
PostgreSQL (`guards.dialects.read_as`), then goes the same way; the output says so. Exit codes:
0 rows returned, 2 an unknown dialect, 3 the guard refused, 4 the database refused.
"""

from __future__ import annotations

import asyncio
import json
import sys
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from orquestra.core.database import connect_agent
from orquestra.core.settings import Settings
from orquestra.core.texts import counted
from orquestra.ddl_catalog import load_catalog
from orquestra.guards import GuardPolicy, GuardRejection, guard_sql
from orquestra.guards.dialects import read_as
from orquestra.guards.tenant_query import QueryError, QueryResult, run_as_tenant

EXIT_REJECTED = 3
EXIT_QUERY_ERROR = 4


def run_sql_command(
    query: str,
    tenant: str,
    *,
    raw: bool,
    as_json: bool,
    settings: Settings,
    dialect: str | None = None,
) -> int:
    """Run `query` as `tenant` and print what happened; the process's exit code.

    `dialect`: read the query as that dialect first (an unknown one raises `UnknownDialect`,
    which the command line prints with its code)."""
    normalised_from: dict[str, Any] = {}
    if dialect is not None:
        query, normalised_from = _normalised(query, dialect.lower(), as_json)
    sql, params = query, []
    try:
        if not raw:
            policy = GuardPolicy.from_catalog(load_catalog(settings.catalog_folder))
            guarded = guard_sql(query, policy, tenant, max_rows=settings.limits.row_cap + 1)
            sql, params = guarded.sql, guarded.params
        result = asyncio.run(_execute(sql, params, tenant, settings))
    except GuardRejection as exc:
        payload = {**exc.as_dict(), **normalised_from}
        _emit(as_json, payload, f"rejected [{exc.code}]: {exc.message}")
        return EXIT_REJECTED
    except QueryError as exc:
        payload = {"error": exc.code, "message": exc.message, "detail": exc.detail, "sql": sql}
        _emit(
            as_json,
            {**payload, **normalised_from},
            f"error [{exc.code}]: {exc.message}\n  {exc.detail}",
        )
        return EXIT_QUERY_ERROR
    zone = ZoneInfo(settings.limits.timezone)
    rows = [[_local(value, zone) for value in row] for row in result.rows]
    payload = {
        **normalised_from,
        "sql": sql,
        "params": params,
        "columns": result.columns,
        "rows": rows,
        "row_count": result.row_count,
        "truncated": result.truncated,
        "ms": round(result.ms, 1),
    }
    _emit(as_json, payload, _table(sql, result, rows))
    return 0


def _local(value: Any, zone: ZoneInfo) -> Any:
    """A `timestamptz` (asyncpg returns it in UTC) in the deployment's time zone, the zone the
    query itself read dates in (`SET LOCAL TimeZone`): a month bucket reads `2025-12-01
    00:00:00-03:00`, not `2025-12-01 03:00:00+00:00`."""
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(zone)
    return value


def _normalised(query: str, dialect: str, as_json: bool) -> tuple[str, dict[str, Any]]:
    """The query read as `dialect` and written as PostgreSQL, and what the output says of it.

    Shown before anything runs (on stdout without `--json`), so that a refusal that follows
    reads as the guard's verdict on the PostgreSQL text, not on the text given."""
    normalised = read_as(query, dialect)
    if normalised.dialect is None:
        print(f"note: could not read the SQL as {dialect}; sent as written", file=sys.stderr)
        return query, {"normalised_from": None}
    if not as_json:
        print(f"-- normalised from {dialect}: {normalised.sql}")
    return normalised.sql, {"normalised_from": dialect, "normalised_sql": normalised.sql}


async def _execute(sql: str, params: list[str], tenant: str, settings: Settings) -> QueryResult:
    conn = await connect_agent(settings)
    try:
        return await run_as_tenant(
            conn, sql, params, tenant=tenant, limits=settings.limits.execution()
        )
    finally:
        await conn.close()


def _emit(as_json: bool, payload: dict[str, Any], text: str) -> None:
    print(json.dumps(payload, default=str, ensure_ascii=False) if as_json else text)


def _table(sql: str, result: QueryResult, rows: list[list[Any]]) -> str:
    cells = [[str(v) if v is not None else "" for v in row] for row in rows]
    widths = [
        min(40, max([len(c)] + [len(row[i]) for row in cells]))
        for i, c in enumerate(result.columns)
    ]
    lines = [
        f"-- {sql}",
        "  ".join(c.ljust(w)[:w] for c, w in zip(result.columns, widths, strict=True)),
    ]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(v.ljust(w)[:w] for v, w in zip(row, widths, strict=True)) for row in cells]
    more = " (truncated)" if result.truncated else ""
    lines.append(f"({counted(result.row_count, 'row', 'rows')}{more}, {result.ms:.0f} ms)")
    return "\n".join(lines)
