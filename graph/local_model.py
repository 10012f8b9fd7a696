"""Base for chat models that run in-process (the offline model, the scripted one): one role each.

They speak LangChain's chat-model contract, so the graph cannot tell them from a remote
model: `ainvoke`/`astream` return AI messages with usage metadata, and
`with_structured_output(schema, include_raw=True)` returns the same
`{"raw", "parsed", "parsing_error"}` a remote model's structured output does. What the
calling stage knows reaches them as typed facts (`graph.hints.ModelHints`), never re-read
from the prompt.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig, RunnableLambda, ensure_config
from pydantic import BaseModel, ValidationError

from orquestra.graph.hints import HINTS_KEY, ModelHints, hints_in


def approx_tokens(text: str) -> int:
    """About four characters a token, the usual rule of thumb for these languages."""
    return max(1, len(text) // 4)


class LocalChatModel(BaseChatModel):
    """A chat model answering for one `role`; subclasses implement `respond`."""

    role: str
    delay_ms: int = 0
    """Simulated latency per call (benchmarks)."""

    async def respond(
        self, messages: list[BaseMessage], schema: type[BaseModel] | None, hints: ModelHints
    ) -> str | dict[str, Any]:
        """Text, or a dict matching `schema` when structured output is asked for."""
        raise NotImplementedError

    def prepare(self) -> None:
        """Blocking set-up (reading files) done once at start-up rather than in a run; none
        by default."""

    @property
    def _llm_type(self) -> str:
        return f"orquestra-{type(self).__name__.lower()}"

    def _generate(self, *args: Any, **kwargs: Any) -> ChatResult:
        raise NotImplementedError("local models are asynchronous; use ainvoke or astream")

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        # LangChain hands a model its config's metadata through the run manager.
        hints = hints_in(getattr(run_manager, "metadata", None))
        text = await self._text(messages, kwargs.get("response_schema"), hints)
        message = AIMessage(content=text, usage_metadata=_usage(messages, text))
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        text = await self._text(messages, kwargs.get("response_schema"), kwargs[HINTS_KEY])
        pieces = _pieces(text)
        for index, piece in enumerate(pieces):
            usage = _usage(messages, text) if index == len(pieces) - 1 else None
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece, usage_metadata=usage))
            if run_manager is not None:
                await run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk

    async def astream(
        self,
        input: LanguageModelInput,
        config: RunnableConfig | None = None,
        *,
        stop: list[str] | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[AIMessageChunk]:
        # LangChain's `astream` gives `_astream` no run manager, hence no metadata: the hints
        # are handed on as an argument (only in-process models ever receive it).
        hints = hints_in(ensure_config(config).get("metadata"))
        async for chunk in super().astream(
            input, config, stop=stop, **kwargs, **{HINTS_KEY: hints}
        ):
            yield chunk

    def with_structured_output(
        self, schema: Any, *, include_raw: bool = False, **kwargs: Any
    ) -> Runnable[LanguageModelInput, Any]:
        def parse(message: AIMessage) -> Any:
            try:
                parsed = schema.model_validate_json(message.content)
                error = None
            except ValidationError as exc:
                parsed, error = None, exc
            if include_raw:
                return {"raw": message, "parsed": parsed, "parsing_error": error}
            if error is not None:
                raise error
            return parsed

        async def parse_here(message: AIMessage) -> Any:
            return parse(message)  # a few microseconds: no thread hand-off on the async path

        return self.bind(response_schema=schema) | RunnableLambda(parse, afunc=parse_here)

    async def _text(
        self, messages: list[BaseMessage], schema: type[BaseModel] | None, hints: ModelHints
    ) -> str:
        if self.delay_ms:
            await asyncio.sleep(self.delay_ms / 1000)
        answer = await self.respond(messages, schema, hints)
        if isinstance(answer, dict):
            return json.dumps(answer, ensure_ascii=False, default=str)
        return answer


def _usage(messages: list[BaseMessage], text: str) -> dict[str, int]:
    prompt = sum(approx_tokens(str(m.content)) for m in messages)
    completion = approx_tokens(text)
    return {
        "input_tokens": prompt,
        "output_tokens": completion,
        "total_tokens": prompt + completion,
    }


def _pieces(text: str) -> list[str]:
    """Word-sized chunks (keeping spaces) so a client sees the answer arrive."""
    words = text.split(" ")
    return [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)] or [""]
