"""source selection: the catalog tables (and glossary terms) this question needs.

The SQL writer then sees only their DDL, descriptions, enumerations and the terms involved,
never the whole catalog. The chosen sources are logged with the run.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from orquestra.ddl_catalog.render import render_schema
from orquestra.graph.context import RunContext
from orquestra.graph.resources import open_resources
from orquestra.graph.stage import stage


def _summary(update: dict[str, Any]) -> str:
    return ", ".join(update.get("sources", {}).get("tables", []))


@stage("select_sources", summary=_summary)
async def select_sources(state: dict[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
    resources = await open_resources()
    vector = await resources.vectors.query(state["question"])
    selection = resources.sources.select(state["question"], vector)
    today = runtime.context.today_date().isoformat()
    schema = render_schema(resources.catalog, selection.tables, selection.terms, today)
    return {"sources": selection.as_dict(), "schema_text": schema}
