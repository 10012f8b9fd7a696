"""augmenter: the message rewritten into a complete question, or a clarifying question.

Follow-ups are resolved with the thread's history; a data question that lacks an essential
(entity, period, measure) gets one clarifying question, at most `max_clarify_rounds` times a
turn — then the best reading, with the assumption stated.
"""

from __future__ import annotations

from typing import Any, Literal

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from orquestra.ddl_catalog.wording import voice_of
from orquestra.graph.context import RunContext
from orquestra.graph.hints import ModelHints
from orquestra.graph.llm import Meter, chat
from orquestra.graph.models import model_for
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState
from orquestra.nodes.clarify import clarification_answers
from orquestra.nodes.prompts import prompt, sections
from orquestra.nodes.short_circuit import latest_user_message

HISTORY_MESSAGES = 8


class Augmented(BaseModel):
    """The augmenter's structured output."""

    question: str = Field(description="The complete, self-contained question.")
    is_data_question: bool
    missing: list[Literal["entity", "period", "measure"]] = []
    clarifying_question: str | None = None
    assumption: str | None = None
    lang: Literal["pt", "en"] = "pt"


REVIEWED_SHOWN = 3
"""Reviewed questions shown with their labels, simple or complex (seed 004's calibration:
what needs a clarifying question depends on one organisation's words)."""


def history(state: AgentState) -> str:
    """The last messages before the current one, as `user:`/`assistant:` lines."""
    lines = []
    for message in state.get("messages", [])[-HISTORY_MESSAGES - 1 : -1]:
        who = "user" if isinstance(message, HumanMessage) else "assistant"
        if isinstance(message, HumanMessage | AIMessage):
            lines.append(f"{who}: {str(message.content)[:400]}")
    return "\n".join(lines)


def _summary(update: dict[str, Any]) -> str:
    if update.get("clarify_question"):
        return "needs clarification"
    return str(update.get("question", ""))[:120]


@stage("augmenter", summary=_summary)
async def augmenter(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    context = runtime.context
    can_ask = state.get("clarify_rounds", 0) < context.caps.max_clarify_rounds
    meter = Meter.of(state, context, context.today_date(resources.settings))
    message = state.get("turn_message") or latest_user_message(state)
    labelled = await resources.nearest_reviewed(
        message, tenant=context.tenant, asker=context.asker, k=REVIEWED_SHOWN
    )
    user = sections(
        today=context.today_date(resources.settings).isoformat(),
        previous_question=state.get("last_question"),
        conversation=history(state),
        clarifications="\n".join(state.get("clarifications") or []),
        reviewed_questions="\n".join(f"- {e.question} → {e.complexity}" for e, _ in labelled),
        message=message,
    )
    words = voice_of(resources).prompt_values(state.get("lang"))
    system = prompt("augmenter", can_ask="yes" if can_ask else "no", **words)
    model = model_for("augmenter", context, resources.settings)
    hints = ModelHints(
        message=message,
        previous_question=state.get("last_question") or "",
        clarification_answers=clarification_answers(state.get("clarifications") or []),
        can_ask=can_ask,
    )
    out = await meter.structured(model, "augmenter", Augmented, chat(system, user), hints)
    update: dict[str, Any] = {**meter.update(), "question": out.question.strip(), "lang": out.lang}
    if out.is_data_question and out.missing and out.clarifying_question and can_ask:
        update["clarify_question"] = out.clarifying_question
    else:
        update["clarify_question"] = None
        update["assumption"] = out.assumption if out.missing or out.assumption else None
    return update
