"""chat: small talk and questions about the assistant, answered (and streamed) by the chat role."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from orquestra.ddl_catalog.wording import voice_of
from orquestra.graph.context import RunContext
from orquestra.graph.hints import ModelHints
from orquestra.graph.llm import Meter, chat
from orquestra.graph.models import model_for
from orquestra.graph.rails import AnswerStream, rail_check
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState
from orquestra.nodes.prompts import prompt


@stage("chat", summary=lambda u: f"{len(u.get('answer') or '')} chars")
async def chat_node(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    meter = Meter.of(state, runtime.context, runtime.context.today_date(resources.settings))
    model = model_for("chat", runtime.context, resources.settings)
    stream = AnswerStream(runtime, resources.guardrails, rail_check(state, runtime.context))
    system = prompt("chat", **voice_of(resources).prompt_values(state.get("lang")))
    hints = ModelHints(question=state["question"])
    messages = chat(system, state["question"])
    await meter.text(model, "chat", messages, on_text=stream.push, hints=hints)
    text = await stream.close()
    return {**meter.update(), "answer": text.strip(), "answer_streamed": True}
