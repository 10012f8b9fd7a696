"""The graph LangGraph Server serves reads as the authenticated caller, whatever the run's
context says: the one place is `agent.wiring.bind` with `agent.studio.caller_context`. The
API refuses a context naming another tenant before a run starts (`agent.ownership`); this is
what holds if one gets past it (an assistant's stored context, a future route)."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from orquestra.agent.studio import caller_context
from orquestra.agent.wiring import build_graph
from orquestra.core.settings import Settings
from orquestra.graph.context import RunContext
from tests.graph_resources import OpenResources
from tests.integration.graph.langgraph_servers import money, rows_as

REVENUE = {"messages": [{"role": "user", "content": "faturamento por mês em 2026"}]}


class ServerUser(dict):
    """The authenticated user LangGraph Server hands a run (`langgraph_auth_user`)."""

    @property
    def identity(self) -> str:
        return f"{self['tenant']}:{self['user']}"


async def test_the_authenticated_tenant_wins_over_the_context(
    settings: Settings, demo_db: object, open_resources: OpenResources
) -> None:
    resources = await open_resources.of(settings)
    served = build_graph(resources, identity=caller_context).compile(checkpointer=InMemorySaver())
    plain = build_graph(resources).compile(checkpointer=InMemorySaver())
    asked = RunContext.from_settings(settings, tenant="102", user="mallory")

    async def run(graph: Any, thread: str, user: ServerUser | None) -> dict[str, Any]:
        configurable: dict[str, Any] = {"thread_id": thread}
        if user is not None:
            configurable["langgraph_auth_user"] = user
        return await graph.ainvoke(REVENUE, {"configurable": configurable}, context=asked)

    as_101 = await run(served, "a", ServerUser(tenant="101", user="ana"))
    figures = money(as_101["result"]["rows"])
    assert figures == money(await rows_as(settings, as_101["sql"], "101"))
    # the control: the graph `orquestra serve` builds uses the context it was given
    as_context = await run(plain, "b", None)
    assert money(as_context["result"]["rows"]) == money(
        await rows_as(settings, as_context["sql"], "102")
    )
    assert figures != money(as_context["result"]["rows"])
    # no authenticated caller on LangGraph Server: no tenant, so no rows at all
    nobody = await run(served, "c", None)
    assert not (nobody.get("result") or {}).get("rows")
