"""`orquestra sql`: run one query exactly as the agent would, and show what happened.

Without `--raw` the SQL goes through the guard (layers 1 and 2) and then the executor
(layer 3). With `--raw` it goes straight to the executor, to show the database holding the
line alone. Exit codes: 0 rows returned, 3 the guard refused, 4 the database refused.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from orquestra.core.database import agent_url, connect
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.guards import GuardPolicy, GuardRejection, guard_sql
from orquestra.guards.tenant_query import QueryError, QueryResult, run_as_tenant

EXIT_REJECTED = 3
EXIT_QUERY_ERROR = 4


def run_sql_command(
    query: str, tenant: str, *, raw: bool, as_json: bool, settings: Settings
) -> int:
    sql, params = query, []
    try:
        if not raw:
            policy = GuardPolicy.from_catalog(load_catalog(settings.catalog_folder))
            guarded = guard_sql(query, policy, tenant, max_rows=settings.limits.row_cap + 1)
            sql, params = guarded.sql, guarded.params
        result = asyncio.run(_execute(sql, params, tenant, settings))
    except GuardRejection as exc:
        _emit(as_json, exc.as_dict(), f"rejected [{exc.code}]: {exc.message}")
        return EXIT_REJECTED
    except QueryError as exc:
        payload = {"error": exc.code, "message": exc.message, "detail": exc.detail, "sql": sql}
        _emit(as_json, payload, f"error [{exc.code}]: {exc.message}\n  {exc.detail}")
        return EXIT_QUERY_ERROR
    payload = {
        "sql": sql,
        "params": params,
        "columns": result.columns,
        "rows": [list(row) for row in result.rows],
        "row_count": result.row_count,
        "truncated": result.truncated,
        "ms": round(result.ms, 1),
    }
    _emit(as_json, payload, _table(sql, result))
    return 0


async def _execute(sql: str, params: list[str], tenant: str, settings: Settings) -> QueryResult:
    conn = await connect(agent_url(settings))
    try:
        return await run_as_tenant(
            conn, sql, params, tenant=tenant, limits=settings.limits.execution()
        )
    finally:
        await conn.close()


def _emit(as_json: bool, payload: dict[str, Any], text: str) -> None:
    print(json.dumps(payload, default=str, ensure_ascii=False) if as_json else text)


def _table(sql: str, result: QueryResult) -> str:
    cells = [[str(v) if v is not None else "" for v in row] for row in result.rows]
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
    lines.append(f"({result.row_count} rows{more}, {result.ms:.0f} ms)")
    return "\n".join(lines)
