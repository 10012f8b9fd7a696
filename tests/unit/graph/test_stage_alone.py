"""A stage runs alone, outside any graph: the state, a runtime and resources handed in, here
fakes holding only what the stage reads. (The wiring binds the real resources.)"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

from langgraph.runtime import Runtime

from orquestra.ddl_catalog import DEMO_CATALOG_DIR, load_catalog
from orquestra.graph.context import RunContext
from orquestra.graph.resources import Resources
from orquestra.graph.state import AgentState
from orquestra.guards import GuardPolicy
from orquestra.nodes.tenant_guard import tenant_guard

CATALOG = load_catalog(DEMO_CATALOG_DIR)
SETTINGS = SimpleNamespace(sql_check=True, model_sql_dialects=["tsql", "mysql"])
FAKE = cast(
    Resources,
    SimpleNamespace(policy=GuardPolicy.from_catalog(CATALOG), catalog=CATALOG, settings=SETTINGS),
)
"""All the guard stage reads of the resources: the guard policy, the catalog it checks
drafts against, and two settings."""


def runtime(events: list[dict[str, Any]], tenant: str = "101") -> Runtime[RunContext]:
    return Runtime(context=RunContext(tenant=tenant), stream_writer=events.append)


async def test_the_guard_stage_alone_rewrites_for_the_runs_tenant() -> None:
    events: list[dict[str, Any]] = []
    state: AgentState = {"messages": [], "draft_sql": "SELECT count(*) FROM notas_fiscais"}
    update = await tenant_guard(state, runtime(events, "102"), FAKE)
    assert update["guard_params"] == ["102"]
    assert "notas_fiscais" in update["guarded_sql"] and "$1" in update["guarded_sql"]
    assert [(e["node"], e["status"]) for e in events] == [
        ("tenant_guard", "start"),
        ("tenant_guard", "end"),
    ]
    assert events[-1]["summary"] == "allowed"


async def test_the_guard_stage_alone_hands_a_rejection_to_the_fixer() -> None:
    events: list[dict[str, Any]] = []
    state: AgentState = {"messages": [], "draft_sql": "DELETE FROM notas_fiscais"}
    update = await tenant_guard(state, runtime(events), FAKE)
    assert update["guarded_sql"] is None
    assert update["attempts"][-1]["outcome"] == "rejected"
    assert update["last_error"].split(":")[0] == update["attempts"][-1]["error"].split(":")[0]
    assert events[-1]["summary"].startswith("rejected:")


async def test_the_guard_stage_alone_corrects_a_values_case_and_stops_an_unknown_column() -> None:
    events: list[dict[str, Any]] = []
    draft = "SELECT count(*) FROM notas_fiscais WHERE status = 'Bloqueada'"
    state: AgentState = {"messages": [], "draft_sql": draft}
    update = await tenant_guard(state, runtime(events), FAKE)
    assert "'BLOQUEADA'" in update["guarded_sql"] and "'BLOQUEADA'" in update["draft_sql"]
    assert update["sql_corrections"] == [
        {"column": "notas_fiscais.status", "found": "Bloqueada", "value": "BLOQUEADA"}
    ]
    state = {"messages": [], "draft_sql": "SELECT data_emisao FROM notas_fiscais"}
    update = await tenant_guard(state, runtime(events), FAKE)
    assert update["guarded_sql"] is None
    assert 'did you mean "data_emissao"' in update["last_error"]
    assert update["sql_problems"][0]["suggestions"] == ["data_emissao"]
    assert update["attempts"][-1]["outcome"] == "rejected"
