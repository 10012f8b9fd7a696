"""Calling models from a stage: budget, usage accounting, one repair retry, streaming.

A stage makes a `Meter` from its state; every call goes through it, so the per-turn budget
of model calls is checked before each call and the stage returns `meter.update()` with the
new counters. Structured output gets at most one repair retry, then `ModelOutputInvalid`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from ddl_catalog.text import without_unsafe
from graph.metrics import MODEL_CALLS, MODEL_TOKENS

T = TypeVar("T", bound=BaseModel)


class BudgetExhausted(Exception):
    """The turn reached its budget of model calls."""

    code = "MODEL_BUDGET"


class ModelOutputInvalid(Exception):
    """A model's structured output stayed invalid after one repair retry."""

    code = "MODEL_OUTPUT_INVALID"


@dataclass
class Meter:
    """Model calls and tokens of this turn, and the budget they must stay under."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    budget: int

    @classmethod
    def of(cls, state: dict[str, Any], budget: int) -> Meter:
        return cls(
            state.get("model_calls", 0),
            state.get("prompt_tokens", 0),
            state.get("completion_tokens", 0),
            budget,
        )

    def update(self) -> dict[str, int]:
        """The state update carrying these counters."""
        return {
            "model_calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }

    async def structured(
        self, model: BaseChatModel, role: str, schema: type[T], messages: list[BaseMessage]
    ) -> T:
        """Call `model` for an instance of `schema`, repairing invalid output once."""
        runnable = model.with_structured_output(schema, include_raw=True)
        for attempt in range(2):
            self._spend(role)
            outcome = await runnable.ainvoke(messages)
            self._count(role, outcome.get("raw"))
            parsed = outcome.get("parsed")
            if parsed is not None and outcome.get("parsing_error") is None:
                return type(parsed).model_validate(_clean(parsed.model_dump()))
            if attempt == 0:
                raw = outcome.get("raw")
                messages = [
                    *messages,
                    AIMessage(content=str(getattr(raw, "content", "")) or "(no content)"),
                    HumanMessage(
                        content="That output did not match the required schema "
                        f"({outcome.get('parsing_error')}). Answer again with valid output only."
                    ),
                ]
        raise ModelOutputInvalid(f"the {role} model kept returning invalid output")

    async def text(
        self,
        model: BaseChatModel,
        role: str,
        messages: list[BaseMessage],
        on_text: Callable[[str], Awaitable[None]] | None = None,
    ) -> str:
        """Stream a text answer, handing each piece to `on_text` as it arrives."""
        self._spend(role)
        parts: list[str] = []
        last = None
        async for chunk in model.astream(messages):
            text = without_unsafe(str(chunk.content))
            parts.append(text)
            if on_text is not None and text:
                await on_text(text)
            last = chunk if getattr(chunk, "usage_metadata", None) else last
        self._count(role, last)
        return "".join(parts)

    def _spend(self, role: str) -> None:
        if self.calls >= self.budget:
            raise BudgetExhausted(f"budget of {self.budget} model calls reached before {role}")
        self.calls += 1
        MODEL_CALLS.labels(role=role).inc()

    def _count(self, role: str, message: object) -> None:
        usage = getattr(message, "usage_metadata", None) or {}
        prompt, completion = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        MODEL_TOKENS.labels(role=role, kind="prompt").inc(prompt)
        MODEL_TOKENS.labels(role=role, kind="completion").inc(completion)


def _clean(value: Any) -> Any:
    """A model's structured output without characters no stored text may carry."""
    if isinstance(value, str):
        return without_unsafe(value)
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def chat(system: str, user: str) -> list[BaseMessage]:
    """A system prompt and one user message."""
    return [SystemMessage(content=system), HumanMessage(content=user)]
