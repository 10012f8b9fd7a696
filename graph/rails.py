"""The graph's side of the guardrails: the model they get, and answers streamed through them.

Rails and judges receive the run's `judge` model wrapped in `ModelAccess`, so their calls
count against the turn's budget and reach the configured tracing like any stage's. Answer
text reaches the client through an `AnswerStream`: with no output rail acting on this run
the model's tokens pass straight through; otherwise text is released a sentence at a time,
after the output rails have seen (and possibly masked) it. A blocked answer is withdrawn
(`token` with `reset`) and replaced by a polite notice.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Literal

from langgraph.runtime import Runtime
from pydantic import BaseModel

from orquestra.core.texts import say
from orquestra.graph.context import RunContext
from orquestra.graph.hints import ModelHints
from orquestra.graph.llm import Meter, chat
from orquestra.graph.models import model_for
from orquestra.graph.resources import Resources
from orquestra.graph.state import AgentState
from orquestra.guards.rails import Guardrails, ModelAccess, RailCheck, RailResult

SENTENCE_END = re.compile(r"(?<!\d)[.!?:;](?=\s)|\n")
LONGEST_HELD = 400
"""Characters held back at most before a segment is released at a space."""


def model_access(
    meter: Meter, resources: Resources, context: RunContext, hints: ModelHints | None = None
) -> ModelAccess:
    """The framework's model for rails and judges, metered by `meter`; `hints` are what the
    calling stage knows of the case (the answer judged), for an in-process model."""
    model = model_for("judge", context, resources.settings)

    async def structured(schema: type[BaseModel], system: str, user: str) -> BaseModel:
        return await meter.structured(model, "judge", schema, chat(system, user), hints)

    async def text(system: str, user: str) -> str:
        return await meter.text(model, "judge", chat(system, user), hints=hints)

    return ModelAccess(structured=structured, text=text, chat_model=model)


def rail_check(
    state: AgentState,
    context: RunContext,
    text: str = "",
    stage: Literal["input", "output"] = "output",
    **extra: Any,
) -> RailCheck:
    """A `RailCheck` for this run: answer text by default, or the user's message."""
    return RailCheck(
        text=text,
        stage=stage,
        tenant=context.tenant,
        lang=state.get("lang", "pt"),
        mask_personal_data=context.mask_personal_data,
        **extra,
    )


class AnswerStream:
    """Answer text on its way to the client, through the output rails."""

    def __init__(
        self, runtime: Runtime[RunContext], guardrails: Guardrails, check: RailCheck
    ) -> None:
        self.write = runtime.stream_writer
        self.guardrails = guardrails
        self.check = check
        self.filtered = bool(guardrails.output) and guardrails.output_applies(check)
        self.pending = ""
        self.text = ""
        self.blocked: RailResult | None = None

    async def push(self, piece: str) -> None:
        """More answer text from the writer."""
        if self.blocked is not None or not piece:
            return
        if not self.filtered:
            self._send(piece)
            return
        self.pending += piece
        cut = _boundary(self.pending)
        if cut:
            segment, self.pending = self.pending[:cut], self.pending[cut:]
            await self._release(segment)

    async def say(self, text: str) -> str:
        """Ready-made text, streamed a word at a time; returns what the client got."""
        words = text.split(" ")
        for index, word in enumerate(words):
            await self.push(word + (" " if index < len(words) - 1 else ""))
        return await self.close()

    async def close(self) -> str:
        """Release what is held; the text the client received."""
        if self.pending and self.blocked is None:
            segment, self.pending = self.pending, ""
            await self._release(segment)
        return self.text

    def reset(self) -> None:
        """Tell the client to drop the answer so far (a revised one follows)."""
        self.write({"event": "token", "text": "", "reset": True})
        self.text = ""

    async def _release(self, segment: str) -> None:
        decision = await self.guardrails.check_output(replace(self.check, text=segment))
        if decision.allowed:
            self._send(decision.text)
            return
        self.blocked = decision.blocked_by
        code = self.guardrails.rail_code((decision.blocked_by or RailResult(False)).code)
        self.reset()
        self._send(say("withheld", self.check.lang, code=code))

    def _send(self, text: str) -> None:
        if text:
            self.text += text
            self.write({"event": "token", "text": text})


def _boundary(text: str) -> int:
    """Where held text can be released: after the last sentence end, or a space if long."""
    ends = [m.end() for m in SENTENCE_END.finditer(text)]
    if ends:
        return ends[-1]
    if len(text) > LONGEST_HELD:
        return text.rfind(" ") + 1
    return 0
