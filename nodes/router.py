"""router: TRACKING, ANALYTICS, KNOWLEDGE or CHAT, with the cheap model role."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime
from pydantic import BaseModel

from orquestra.ddl_catalog.wording import voice_of
from orquestra.graph.context import RunContext
from orquestra.graph.hints import ModelHints
from orquestra.graph.llm import Meter, chat
from orquestra.graph.models import model_for
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState
from orquestra.nodes.prompts import prompt, sections


class RouteDecision(BaseModel):
    """The router's structured output."""

    route: Literal["TRACKING", "ANALYTICS", "KNOWLEDGE", "CHAT"]
    wants_knowledge: bool = False
    reason: str = ""


def _summary(update: dict[str, Any]) -> str:
    route = update.get("route") or ""
    return f"{route} + KNOWLEDGE" if update.get("wants_knowledge") else route


@stage("router", summary=_summary)
async def router(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    meter = Meter.of(state, runtime.context, runtime.context.today_date(resources.settings))
    model = model_for("router", runtime.context, resources.settings)
    user = sections(question=state["question"])
    system = prompt("router", **voice_of(resources).prompt_values(state.get("lang")))
    hints = ModelHints(question=state["question"])
    decision = await meter.structured(model, "router", RouteDecision, chat(system, user), hints)
    data = decision.route in ("TRACKING", "ANALYTICS")
    return {
        **meter.update(),
        "route": decision.route,
        "wants_knowledge": decision.wants_knowledge and data,
    }
