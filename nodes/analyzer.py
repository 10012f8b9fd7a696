"""analyzer: the query result turned into an analysis, in an isolated process.

Totals, trend with period-over-period growth, top-N with shares, outliers, nulls and
truncation — computed by the built-in analysis (or, in the optional code mode, by pandas code
the SQL model wrote, after an AST check) inside a confined worker, never in the server's
process. The streamer then writes from the analysis, not from hundreds of rows.
"""

from __future__ import annotations

import json
from typing import Any

from langgraph.runtime import Runtime

from orquestra.graph.context import RunContext
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState, present
from orquestra.nodes.units import (
    additive_columns,
    aggregated_query,
    identifier_columns,
    row_limit,
)
from orquestra.sandbox.analysis import jsonable_rows
from orquestra.sandbox.pool import AnalysisError


async def _run(
    resources: Resources, job: dict[str, Any], state: AgentState, code_mode: bool
) -> Any:
    """Code mode when the SQL model wrote analysis code (and it is enabled), else built-in."""
    pool = resources.analysis_pool
    if pool is None:  # resources built by hand without workers: the rows' preview answers
        raise AnalysisError("no analysis workers")
    code = state.get("analysis_code")
    if code and code_mode:
        try:
            return await pool.run({**job, "kind": "code", "code": code})
        except AnalysisError:
            pass  # any failure falls back to the built-in analysis
    return await pool.run(job)


def _sorted_or_none(names: set[str] | None) -> list[str] | None:
    return None if names is None else sorted(names)


def _summary(update: dict[str, Any]) -> str:
    analysis = update.get("analysis") or {}
    parts = [k for k in ("trend", "top", "outliers") if analysis.get(k)]
    return ", ".join(parts) or (
        "failed: " + str(update.get("analysis_error"))
        if update.get("analysis_error")
        else "measures"
    )


@stage("analyzer", summary=_summary)
async def analyzer(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    result = present(state.get("result"), "result")
    job = {
        "kind": "builtin",
        "columns": result["columns"],
        "rows": jsonable_rows(result["rows"]),
        "row_count": result["row_count"],
        "truncated": result["truncated"],
        "question": state.get("question", ""),
        # Keys of the catalog name rows: they are never summed, averaged or ranked.
        "identifiers": sorted(identifier_columns(result["columns"], resources.catalog)),
        # Only these have a total to give shares of (an average per group has none).
        "additive": _sorted_or_none(additive_columns(state.get("sql"))),
        # Rows listed one by one are no series: a "trend" between two exams means nothing.
        "aggregated": aggregated_query(state.get("sql")),
        # A top N of periods ("the month with most orders") is a ranking, not a series: its
        # rows skip the periods left out. The writer's own LIMIT (the guard adds a cap).
        "limited": row_limit(state.get("draft_sql")) is not None,
    }
    try:
        analysis = await _run(resources, job, state, runtime.context.analysis_code_mode)
    except AnalysisError as failure:  # the answer still goes out, from the rows' preview
        return {"analysis": None, "analysis_error": f"{failure.code}: {failure.message}"}
    return {"analysis": json.loads(json.dumps(analysis)), "analysis_error": None}
