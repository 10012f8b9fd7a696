"""clarify: pause the turn with one clarifying question; the next message answers it.

`interrupt()` suspends the run (the client gets a `clarify` event); resuming the thread with
the user's answer continues here, and the augmenter tries again with the answer in hand.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from orquestra.graph.context import RunContext
from orquestra.graph.resources import Resources
from orquestra.graph.stage import stage
from orquestra.graph.state import AgentState


def clarification_answers(clarifications: list[str]) -> tuple[str, ...]:
    """The person's answers in this turn's `Q: …` / `A: …` clarifications, in order.

    >>> clarification_answers(["Q: Which one?\\nA: the second one", "Q: When?\\nA: in May"])
    ('the second one', 'in May')
    """
    return tuple(re.findall(r"(?m)^A: (.*)$", "\n".join(clarifications)))


@stage("clarify", summary=lambda u: f"answered: {u.get('clarifications', [''])[-1][:80]}")
async def clarify(
    state: AgentState, runtime: Runtime[RunContext], resources: Resources
) -> dict[str, Any]:
    question = state["clarify_question"]
    answer = str(interrupt({"question": question})).strip()
    return {
        "messages": [AIMessage(content=question), HumanMessage(content=answer)],
        "clarifications": [*(state.get("clarifications") or []), f"Q: {question}\nA: {answer}"],
        "clarify_rounds": state.get("clarify_rounds", 0) + 1,
        "clarify_question": None,
    }
