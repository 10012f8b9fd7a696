"""analyzer: the query result turned into an analysis, in an isolated process.

Totals, trend with period-over-period growth, top-N with shares, outliers, nulls and
truncation — computed by the built-in analysis (and, in the optional code mode, figures from
pandas code the SQL model wrote, after an AST check) inside a fresh fork of a confined worker,
never in the server's process. What comes back is checked against the job's own columns and
rows (`sandbox.output`) before it reaches a card, a label or the answer. The streamer then
writes from the analysis, not from hundreds of rows.
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
from orquestra.sandbox.analysis import Analysis, jsonable_rows
from orquestra.sandbox.output import checked_analysis
from orquestra.sandbox.pool import AnalysisError


async def _run(
    resources: Resources, job: dict[str, Any], state: AgentState, code_mode: bool
) -> Analysis:
    """Code mode when the SQL model wrote analysis code (and it is enabled), else built-in;
    either checked against the job before it is used."""
    pool = resources.analysis_pool
    if pool is None:  # resources built by hand without workers: the rows' preview answers
        raise AnalysisError("no analysis workers")
    code = state.get("analysis_code")
    if code and code_mode:
        try:
            return checked_analysis(await pool.run({**job, "kind": "code", "code": code}), job)
        except AnalysisError:
            pass  # any failure falls back to the built-in analysis
    return checked_analysis(await pool.run(job), job)


def _sorted_or_none(names: set[str] | None) -> list[str] | None:
    return None if names is None else sorted(names)


def _summary(update: dict[str, Any]) -> str:
    analysis = update.get("analysis") or {}
    parts = [k for k in ("trend", "top", "outliers", "figures") if analysis.get(k)]
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
