"""fixer: corrected SQL from the failing SQL and the error; it goes back through the guard.

At most `max_fix_attempts` repairs per SQL attempt (the router enforces it).
"""

from __future__ import annotations

from typing import Any

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


class FixedSql(BaseModel):
    """The fixer's structured output."""

    sql: str
    explanation: str = ""


@stage("fixer", summary=lambda u: f"repair {u.get('fix_attempts')}")
async def fixer(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    context = runtime.context
    meter = Meter.of(state, context, context.today_date(resources.settings))
    model = model_for("fixer", context, resources.settings)
    user = sections(
        question=state["question"], failing_sql=state["draft_sql"], error=state.get("last_error")
    )
    words = voice_of(resources).prompt_values(state.get("lang"))
    system = prompt("fixer", schema=state["schema_text"], **words)
    # The same facts as data for in-process models; a hosted model reads them in the prompt
    # (the catalog check's findings in the error text).
    hints = ModelHints(
        question=state["question"],
        failing_sql=state["draft_sql"] or "",
        error=state.get("last_error") or "",
        sql_problems=tuple(state.get("sql_problems") or ()),
    )
    fixed = await meter.structured(model, "fixer", FixedSql, chat(system, user), hints=hints)
    return {
        **meter.update(),
        "draft_sql": fixed.sql.strip().rstrip(";").strip(),
        "fix_attempts": state.get("fix_attempts", 0) + 1,
    }
