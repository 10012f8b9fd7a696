"""judge: does the librarian's answer address the question? If not, feedback for a refinement.

The loop librarian → judge → librarian runs at most `max_refine_rounds` times (the router
enforces it); past that the best answer goes out and the cap is recorded.
"""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel

from graph.context import RunContext
from graph.llm import Meter, chat
from graph.metrics import CAP_HITS
from graph.models import model_for
from graph.resources import open_resources
from graph.stage import stage
from nodes.prompts import prompt, sections


class Judgement(BaseModel):
    """The judge's structured output."""

    addresses_question: bool
    feedback: str = ""


@stage("judge", summary=lambda u: "refine" if u.get("judge_feedback") else "approved")
async def judge(state: dict[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
    context = runtime.context
    resources = await open_resources()
    meter = Meter.of(state, context.max_model_calls)
    model = model_for("judge", context, resources.settings)
    user = sections(question=state["question"], answer=state.get("knowledge"))
    verdict = await meter.structured(model, "judge", Judgement, chat(prompt("judge"), user))
    update: dict[str, Any] = {**meter.update(), "judge_feedback": None}
    if verdict.addresses_question:
        return update
    rounds = state.get("refine_rounds", 0)
    if rounds < context.max_refine_rounds:
        return {
            **update,
            "judge_feedback": verdict.feedback or "answer the question asked",
            "refine_rounds": rounds + 1,
        }
    CAP_HITS.labels(cap="MAX_REFINE_ROUNDS").inc()
    return {**update, "caps_hit": [*(state.get("caps_hit") or []), "MAX_REFINE_ROUNDS"]}
