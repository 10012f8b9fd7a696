"""executor: the guarded SQL on the agent's pool, inside layer 3's transaction.

One row more than the cap is fetched to know a result was truncated; when it was, the exact
total is counted if that is cheap (a second, short-timeout query), else left as "more than".
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from langgraph.runtime import Runtime

from orquestra.core.database import Connection
from orquestra.core.texts import counted
from orquestra.graph.context import RunContext
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState, present
from orquestra.guards import GuardRejection, guard_sql
from orquestra.guards.tenant_query import QueryError, run_as_tenant

COUNT_TIMEOUT_MS = 1_000


def _summary(update: dict[str, Any]) -> str:
    result = update.get("result")
    if result is None:
        return f"error: {update.get('last_error', '')[:120]}"
    if result.get("truncated"):
        return f"{result['row_count']}+ rows"
    return counted(result["row_count"], "row", "rows")


@stage("executor", summary=_summary)
async def executor(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    context = runtime.context
    sql = present(state.get("guarded_sql"), "guarded_sql")
    params = state.get("guard_params") or []
    runtime.stream_writer(_sql_event(sql, state))
    attempt: dict[str, Any] = {"sql": state["draft_sql"], "guarded_sql": sql}
    limits = context.limits.execution()
    try:
        async with resources.agent_pool.acquire() as conn:
            result = await run_as_tenant(conn, sql, params, tenant=context.tenant, limits=limits)
            total = (
                await _exact_total(conn, state, context, resources) if result.truncated else None
            )
    except QueryError as failure:
        attempt.update(
            outcome="error", error=f"{failure.code}: {failure.detail or failure.message}"
        )
        return {
            "result": None,
            "last_error": attempt["error"],
            "attempts": [*(state.get("attempts") or []), attempt],
        }
    rows = [list(row) for row in result.rows]
    attempt.update(outcome="rows" if rows else "zero_rows", row_count=len(rows))
    return {
        "sql": sql,
        "result": {
            "columns": result.columns,
            "rows": rows,
            "row_count": total or len(rows),
            "truncated": result.truncated,
        },
        "last_error": None,
        "attempts": [*(state.get("attempts") or []), attempt],
    }


def _sql_event(sql: str, state: AgentState) -> dict[str, Any]:
    """The `sql` event: what runs, and what was done to the model's SQL before the guard."""
    event: dict[str, Any] = {"event": "sql", "sql": sql, "attempt": state.get("sql_attempt", 1)}
    if state.get("sql_dialect"):
        event["normalised_from"] = state.get("sql_dialect")
    if state.get("sql_corrections"):
        event["corrections"] = state.get("sql_corrections")
    return event


async def _exact_total(
    conn: Connection, state: AgentState, context: RunContext, resources: Resources
) -> int | None:
    """The full row count of a truncated result, if counting takes under a second."""
    try:
        counting = guard_sql(
            f"SELECT count(*) FROM ({state['draft_sql']}) AS counted",
            resources.policy,
            context.tenant,
            max_rows=0,
        )
        limits = replace(
            context.limits.execution(), row_cap=0, statement_timeout_ms=COUNT_TIMEOUT_MS
        )
        counted = await run_as_tenant(
            conn, counting.sql, counting.params, tenant=context.tenant, limits=limits
        )
    except (GuardRejection, QueryError):
        return None
    return int(counted.rows[0][0])
