"""source selection: the catalog tables (and glossary terms) this question needs.

The names the question writes are looked up in the asker's own rows first
(`graph.data_values`): a table holding one is chosen, and the SQL writer is told where each
was found. The SQL writer then sees only the chosen tables' DDL, descriptions, enumerations
and the terms involved, never the whole catalog. The chosen sources are logged with the run.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from orquestra.ddl_catalog.render import render_schema
from orquestra.graph.context import RunContext
from orquestra.graph.data_values import look_up
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
    context = runtime.context
    looked = await look_up(
        state["question"],
        resources.sources,
        resources.agent_pool,
        resources.policy,
        tenant=context.tenant,
        limits=context.limits.execution(),
        names=await resources.tenants.for_asker(context.tenant),
    )
    selection = await choose_sources(
        resources.sources,
        resources.vectors,
        state["question"],
        asker=context.asker,
        values=looked.found,
    )
    today = context.today_date(resources.settings).isoformat()
    schema = render_schema(resources.catalog, selection.tables, selection.terms, today)
    return {
        "sources": selection.as_dict(),
        "schema_text": schema,
        "found_values": [v.as_dict() for v in looked.found],
        "names_searched": list(looked.searched),
    }
