"""Calling models from a stage: budget, usage accounting, one repair retry, streaming.

A stage makes a `Meter` from its state; every call goes through it, so the per-turn budget
of model calls is checked before each call and the stage returns `meter.update()` with the
new counters. Structured output adapts its method to the provider (`graph.structured`) and
gets at most one repair retry, then `ModelOutputInvalid`. A provider's failure is retried when
it may pass (a rate limit, honouring `Retry-After`, or an outage) within the turn's budgets,
and otherwise raised as the named `ModelError` it is (`graph.model_errors`).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
)
from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel

from orquestra.ddl_catalog.text import without_unsafe
from orquestra.graph import model_health
from orquestra.graph.hints import HINTS_KEY, ModelHints
from orquestra.graph.local_model import LocalChatModel, approx_tokens
from orquestra.graph.metrics import MODEL_CALLS, MODEL_TOKENS
from orquestra.graph.model_errors import (
    MODEL_ERRORS,
    ModelError,
    ModelRateLimited,
    ModelRefused,
    classify,
    rejects_format,
)
from orquestra.graph.structured import (
    Method,
    ThinkingFilter,
    bound,
    methods_for,
    parse,
    refusal,
    remember,
    with_instructions,
)

if TYPE_CHECKING:
    from orquestra.graph.context import RunContext

log = logging.getLogger("orquestra.model")

T = TypeVar("T", bound=BaseModel)
R = TypeVar("R")


class BudgetExhausted(Exception):
    """The turn reached its budget of model calls."""

    code = "MODEL_BUDGET"


class ModelOutputInvalid(Exception):
    """A model's structured output stayed invalid after one repair retry."""

    code = "MODEL_OUTPUT_INVALID"


@dataclass
class Meter:
    """Model calls and tokens of this turn, and the budgets they must stay under."""

    calls: int
    prompt_tokens: int
    completion_tokens: int
    budget: int
    retries: int = 2
    """Retries of one call that was rate-limited or met a provider outage."""
    wait_budget_s: float = 20.0
    """Seconds the turn may spend waiting before retries, in all."""
    waited_s: float = 0.0
    estimated: bool = False
    """Some call's tokens were estimated: the provider sent no usage."""
    hints: ModelHints = field(default_factory=ModelHints)
    """Facts every call's in-process model takes as data (today, language), never from the
    prompt; a stage adds its role's facts to a call (`structured`, `text`)."""

    @classmethod
    def of(cls, state: Mapping[str, Any], context: RunContext, today: date) -> Meter:
        """The turn's meter, its budgets from the run context; `today` is the run's date."""
        lang = state.get("lang")
        hints = ModelHints(today=today, lang=lang if lang in ("pt", "en") else None)
        return cls(
            state.get("model_calls", 0),
            state.get("prompt_tokens", 0),
            state.get("completion_tokens", 0),
            context.caps.max_model_calls_per_turn,
            retries=context.limits.model_retries,
            wait_budget_s=context.limits.model_wait_s,
            waited_s=state.get("model_wait_s", 0.0),
            estimated=state.get("tokens_estimated", False),
            hints=hints,
        )

    def update(self) -> dict[str, Any]:
        """The state update carrying these counters."""
        return {
            "model_calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "tokens_estimated": self.estimated,
            "model_wait_s": round(self.waited_s, 3),
        }

    async def structured(
        self,
        model: BaseChatModel,
        role: str,
        schema: type[T],
        messages: list[BaseMessage],
        hints: ModelHints | None = None,
    ) -> T:
        """Call `model` for an instance of `schema`: with the model's structured-output method
        (or, on `auto`, the strictest the provider accepts), repairing invalid output once.
        `hints`, the stage's facts for an in-process model, add to the meter's for this call."""
        methods = methods_for(model)
        config = self._config(model, hints)
        for index, method in enumerate(methods):
            try:
                return await self._structured_with(model, role, schema, messages, method, config)
            except Exception as error:
                if index + 1 < len(methods) and rejects_format(error):
                    log.info(
                        "structured output: %s refused by the provider for %s; trying %s",
                        method,
                        role,
                        methods[index + 1],
                    )
                    continue
                failure = self._named(role, error, model)
                if failure is error:
                    raise
                raise failure from error
        raise AssertionError("unreachable: at least one method is always tried")

    async def _structured_with(
        self,
        model: BaseChatModel,
        role: str,
        schema: type[T],
        messages: list[BaseMessage],
        method: Method,
        config: RunnableConfig,
    ) -> T:
        runnable = bound(model, schema, method)
        prompt = with_instructions(messages, schema, method)
        for attempt in range(2):
            outcome = await self._call(role, functools.partial(runnable.ainvoke, prompt, config))
            self._count(role, outcome.get("raw"), prompt)
            if declined := refusal(outcome):
                raise ModelRefused(f"{role}: {declined}")
            model_health.succeeded(model)
            parsed, problem = parse(outcome, schema)
            if parsed is not None:
                remember(model, method)
                return type(parsed).model_validate(_clean(parsed.model_dump()))
            if attempt == 0:
                prompt = [
                    *prompt,
                    AIMessage(content=_said(outcome.get("raw")) or "(no content)"),
                    HumanMessage(
                        content="That output did not match the required schema "
                        f"({problem}). Answer again with valid output only."
                    ),
                ]
        remember(model, method)  # the provider took the format; the model wrote badly
        raise ModelOutputInvalid(f"the {role} model kept returning invalid output")

    async def text(
        self,
        model: BaseChatModel,
        role: str,
        messages: list[BaseMessage],
        on_text: Callable[[str], Awaitable[None]] | None = None,
        hints: ModelHints | None = None,
    ) -> str:
        """Stream a text answer, handing each piece to `on_text` as it arrives (a reasoning
        model's thinking is never handed on). `hints` as for `structured`."""
        config = self._config(model, hints)
        for attempt in range(self.retries + 1):
            parts: list[str] = []
            try:
                return await self._stream(model, role, messages, on_text, parts, config)
            except Exception as error:
                failure = classify(error)
                wait = self._wait(failure, attempt) if failure and not parts else None
                if failure is None or wait is None:
                    named = self._named(role, error, model)
                    if named is error:
                        raise
                    raise named from error
                await self._sleep(wait)
        raise AssertionError("unreachable: the last attempt raises")

    async def _stream(
        self,
        model: BaseChatModel,
        role: str,
        messages: list[BaseMessage],
        on_text: Callable[[str], Awaitable[None]] | None,
        parts: list[str],
        config: RunnableConfig,
    ) -> str:
        self._spend(role)
        thinking = ThinkingFilter()
        last: AIMessageChunk | None = None
        async for chunk in model.astream(messages, config):
            text = thinking.feed(without_unsafe(str(chunk.content or "")))
            parts.append(text)
            if on_text is not None and text:
                await on_text(text)
            last = chunk if getattr(chunk, "usage_metadata", None) else last
        if rest := thinking.close():
            parts.append(rest)
            if on_text is not None:
                await on_text(rest)
        answer = "".join(parts)
        self._count(role, last, messages, answer)
        model_health.succeeded(model)
        return answer

    async def _call(self, role: str, make: Callable[[], Awaitable[R]]) -> R:
        """One model call, retried after a rate limit or an outage while the budgets allow;
        a request format the provider refuses is raised as it is (the caller falls back)."""
        for attempt in range(self.retries + 1):
            self._spend(role)
            try:
                return await make()
            except Exception as error:
                if rejects_format(error):
                    raise
                failure = classify(error)
                wait = self._wait(failure, attempt) if failure else None
                if failure is None or wait is None:
                    raise
                log.warning("model %s: %s; retrying in %.1f s", role, failure.code, wait)
                await self._sleep(wait)
        raise AssertionError("unreachable: the last attempt raises")

    def _config(self, model: BaseChatModel, hints: ModelHints | None = None) -> RunnableConfig:
        """The call's config: for an in-process model, the hints in its metadata, where it
        reads them (LangChain hands a model its config's metadata); a hosted model's call
        carries none (they would only reach its traces)."""
        if not isinstance(model, LocalChatModel):
            return {}
        return {"metadata": {HINTS_KEY: self.hints.merged(hints)}}

    def _wait(self, failure: ModelError, attempt: int) -> float | None:
        """Seconds to wait before retrying `failure`, or None when it must not be retried."""
        if attempt >= self.retries or type(failure) not in (ModelRateLimited, ModelError):
            return None
        if isinstance(failure, ModelRateLimited):
            wait = failure.retry_after if failure.retry_after is not None else 2.0**attempt
        else:
            wait = 0.5 * 2**attempt  # an outage may be a blip: one short retry
        return wait if self.waited_s + wait <= self.wait_budget_s else None

    async def _sleep(self, seconds: float) -> None:
        self.waited_s += seconds
        await asyncio.sleep(seconds)

    def _named(self, role: str, error: Exception, model: BaseChatModel) -> Exception:
        """`error` as the named model failure it is (counted), or unchanged if ours."""
        failure = classify(error)
        if failure is None:
            return error
        model_health.failed(model, failure)
        MODEL_ERRORS.labels(role=role, code=failure.code).inc()
        log.warning("model %s failed: %s (%s)", role, failure.code, failure.detail)
        return failure

    def _spend(self, role: str) -> None:
        if self.calls >= self.budget:
            raise BudgetExhausted(f"budget of {self.budget} model calls reached before {role}")
        self.calls += 1
        MODEL_CALLS.labels(role=role).inc()

    def _count(
        self, role: str, message: object, prompt: list[BaseMessage], answer: str | None = None
    ) -> None:
        usage = getattr(message, "usage_metadata", None) or {}
        if usage:
            prompt_tokens, completion = usage.get("input_tokens", 0), usage.get("output_tokens", 0)
        else:  # the provider sent no usage (common off OpenAI when streaming): estimate
            self.estimated = True
            prompt_tokens = sum(approx_tokens(str(m.content)) for m in prompt)
            completion = approx_tokens(answer if answer is not None else _said(message))
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion
        MODEL_TOKENS.labels(role=role, kind="prompt").inc(prompt_tokens)
        MODEL_TOKENS.labels(role=role, kind="completion").inc(completion)


def _said(message: object) -> str:
    """What a model message says: its text, else its tool call's arguments."""
    text = str(getattr(message, "content", "") or "")
    calls = getattr(message, "tool_calls", None) or []
    return text or (json.dumps(calls[0].get("args", {}), ensure_ascii=False) if calls else "")


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
