"""zero_row_retry: no rows — back to the SQL writer, which sees what was tried this turn.

The writer's prompt then lists every SQL of the turn and asks for another reading; at most
`max_sql_attempts` attempts a turn (the router enforces it).
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from orquestra.graph.context import RunContext
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState


@stage("zero_row_retry", summary=lambda u: "another reading")
async def zero_row_retry(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    return {"draft_sql": None, "guarded_sql": None, "result": None}
