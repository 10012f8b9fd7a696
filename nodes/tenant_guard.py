"""tenant_guard: the SQL through layers 1 and 2 of the guard; a rejection goes to the fixer."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from orquestra.graph.context import RunContext
from orquestra.graph.metrics import GUARD_REJECTIONS
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState, present
from orquestra.guards import GuardRejection, guard_sql


def _summary(update: dict[str, Any]) -> str:
    return "allowed" if update.get("guarded_sql") else f"rejected: {update.get('last_error')}"


@stage("tenant_guard", summary=_summary)
async def tenant_guard(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    sql = present(state.get("draft_sql"), "draft_sql")
    try:
        guarded = guard_sql(
            sql,
            resources.policy,
            runtime.context.tenant,
            max_rows=runtime.context.limits.row_cap + 1,
        )
    except GuardRejection as rejection:
        GUARD_REJECTIONS.labels(code=rejection.code).inc()
        attempt = {
            "sql": sql,
            "outcome": "rejected",
            "error": f"{rejection.code}: {rejection.message}",
        }
        return {
            "guarded_sql": None,
            "last_error": attempt["error"],
            "attempts": [*(state.get("attempts") or []), attempt],
        }
    return {"guarded_sql": guarded.sql, "guard_params": guarded.params, "last_error": None}
