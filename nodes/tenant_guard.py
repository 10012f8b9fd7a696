"""tenant_guard: the draft normalised and checked against the catalog, then through layers 1
and 2 of the guard; a rejection, or a mistake the check found, goes to the fixer.

Before the guard, without a model call: SQL written in another dialect (`SELECT TOP 5`,
`GETDATE()`, …) is transpiled to PostgreSQL from the dialects the deployment lists
(`guards.dialects`), and the catalog check (`guards.sql_check`) corrects enumerated values
written in the wrong case and stops a draft that names unknown tables, columns or values,
with precise feedback for the fixer. The guard stays the only authority on what may run:
neither step lets anything past it.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from orquestra.core.settings import Settings
from orquestra.core.texts import counted
from orquestra.graph.context import RunContext
from orquestra.graph.metrics import GUARD_REJECTIONS, SQL_CHECK_FINDINGS, SQL_NORMALISED
from orquestra.graph.resources import Resources, warm_up
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState, present
from orquestra.guards import GuardRejection, guard_sql
from orquestra.guards.dialects import load_dialects, normalise
from orquestra.guards.sql_check import Checked, check_sql


def _summary(update: dict[str, Any]) -> str:
    if update.get("guarded_sql"):
        notes = [f"from {update['sql_dialect']}"] if update.get("sql_dialect") else []
        if fixed := len(update.get("sql_corrections") or []):
            notes.append(f"{counted(fixed, 'value', 'values')} corrected")
        return "allowed" + (f" ({', '.join(notes)})" if notes else "")
    return f"rejected: {update.get('last_error')}"


@stage("tenant_guard", summary=_summary)
async def tenant_guard(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    settings = resources.settings
    normalised = normalise(
        present(state.get("draft_sql"), "draft_sql"), settings.model_sql_dialects
    )
    draft = normalised.sql
    checked = check_sql(draft, resources.catalog) if settings.sql_check else Checked(draft)
    noted = {
        "draft_sql": checked.sql,
        "sql_dialect": normalised.dialect,
        "sql_corrections": [c.as_dict() for c in checked.corrections],
        "sql_problems": [],
    }
    _count(normalised.dialect, checked)
    if checked.problems:
        problems = [p.as_dict() for p in checked.problems]
        return _refused(state, checked.sql, checked.feedback()) | noted | {"sql_problems": problems}
    try:
        guarded = guard_sql(
            checked.sql,
            resources.policy,
            runtime.context.tenant,
            max_rows=runtime.context.limits.row_cap + 1,
        )
    except GuardRejection as rejection:
        GUARD_REJECTIONS.labels(code=rejection.code).inc()
        return _refused(state, checked.sql, f"{rejection.code}: {rejection.message}") | noted
    return {
        **noted,
        "guarded_sql": guarded.sql,
        "guard_params": guarded.params,
        "last_error": None,
    }


@warm_up
def _load_sql_dialects(settings: Settings) -> None:
    """sqlglot imports a dialect's modules on first use: at start-up instead, for PostgreSQL
    (the catalog check) and each dialect a draft may be read as."""
    load_dialects(settings.model_sql_dialects)


def _count(dialect: str | None, checked: Checked) -> None:
    """What the repair and the catalog check did to this draft, for `/metrics`."""
    if dialect is not None:
        SQL_NORMALISED.labels(dialect=dialect).inc()
    for problem in checked.problems:
        SQL_CHECK_FINDINGS.labels(kind=problem.kind).inc()
    if checked.corrections:
        SQL_CHECK_FINDINGS.labels(kind="corrected_value").inc(len(checked.corrections))


def _refused(state: AgentState, sql: str, error: str) -> dict[str, Any]:
    """The update that sends `sql` to the fixer with `error`, recorded as an attempt."""
    attempt = {"sql": sql, "outcome": "rejected", "error": error}
    return {
        "guarded_sql": None,
        "last_error": error,
        "attempts": [*(state.get("attempts") or []), attempt],
    }
