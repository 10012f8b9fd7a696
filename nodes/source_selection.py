"""source selection: the catalog tables (and glossary terms) this question needs.

The SQL writer then sees only their DDL, descriptions, enumerations and the terms involved,
never the whole catalog. The chosen sources are logged with the run.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from orquestra.ddl_catalog.render import render_schema
from orquestra.graph.context import RunContext
from orquestra.graph.resources import Resources
from orquestra.graph.sources import choose_sources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState


def _summary(update: dict[str, Any]) -> str:
    return ", ".join(update.get("sources", {}).get("tables", []))


@stage("select_sources", summary=_summary)
async def select_sources(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    selection = await choose_sources(
        resources.sources, resources.vectors, state["question"], asker=runtime.context.asker
    )
    today = runtime.context.today_date(resources.settings).isoformat()
    schema = render_schema(resources.catalog, selection.tables, selection.terms, today)
    return {"sources": selection.as_dict(), "schema_text": schema}
