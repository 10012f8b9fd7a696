"""chat: small talk and questions about the assistant, answered (and streamed) by the chat role."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from graph.context import RunContext
from graph.llm import Meter, chat
from graph.models import model_for
from graph.rails import AnswerStream, rail_check
from graph.resources import open_resources
from graph.stage import stage
from nodes.prompts import prompt
from nodes.wording import voice_of


@stage("chat", summary=lambda u: f"{len(u.get('answer') or '')} chars")
async def chat_node(state: dict[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
    resources = await open_resources()
    meter = Meter.of(state, runtime.context)
    model = model_for("chat", runtime.context, resources.settings)
    stream = AnswerStream(runtime, resources.guardrails, rail_check(state, runtime.context))
    system = prompt("chat", **voice_of(resources).prompt_values(state.get("lang")))
    await meter.text(model, "chat", chat(system, state["question"]), on_text=stream.push)
    text = await stream.close()
    return {**meter.update(), "answer": text.strip(), "answer_streamed": True}
