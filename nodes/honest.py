"""Deterministic answers for turns that stop early: what was tried and why it stopped.

No model writes these, so no number can be invented: they list the SQL attempts and the
reason, in the user's language.
"""

from __future__ import annotations

from orquestra.core.texts import say
from orquestra.graph.state import AgentState


def model_failed(state: AgentState, code: str, message: str) -> str:
    """The answer when the rows came back but the model that words them failed (`code`)."""
    rows = (state.get("result") or {}).get("row_count", 0)
    return say("stop.model_failed", state.get("lang", "pt"), rows=rows, message=message, code=code)


def stop_answer(state: AgentState, reason: str, topics: str = "") -> str:
    """The honest answer for a turn that ended because of `reason`."""
    lang = state.get("lang", "pt")
    attempts = state.get("attempts") or []
    text = say(
        f"stop.{reason}", lang, n=len(attempts), reason=state.get("last_error") or "", topics=topics
    )
    if reason in ("MAX_SQL_ATTEMPTS", "MAX_FIX_ATTEMPTS"):
        for number, attempt in enumerate(attempts, start=1):
            text += f"\n{number}. {attempt.get('sql')}"
        if reason == "MAX_FIX_ATTEMPTS" and state.get("last_error"):
            text += f"\n{say('stop.last_error', lang)}: {state['last_error']}"
    return text
