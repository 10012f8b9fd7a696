"""Structured output that adapts to the provider: JSON schema, tool calling or JSON mode.

Providers differ: OpenAI takes a strict JSON schema; several hosted APIs accept only tool
calling or JSON mode; many local servers have neither strict schemas nor tools. A model's
method is configured (`models.structured_output`), or `auto`: try the strictest, and when the
provider refuses the request format itself, fall back to the next and remember the choice for
that model for the life of the process. Whatever the method, the answer is parsed here,
strictly, with the Pydantic schema — after removing a reasoning model's `<think>` block.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, Literal, TypeVar, cast

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.runnables import Runnable, RunnableLambda
from pydantic import BaseModel, ValidationError

Method = Literal["json_schema", "function_calling", "json_mode"]
METHODS: tuple[Method, ...] = ("json_schema", "function_calling", "json_mode")
"""The strictest first: a schema the provider enforces, then a tool's arguments, then JSON."""

M = TypeVar("M", bound=BaseModel)
Outcome = dict[str, Any]
"""A structured call's outcome: `raw` (the model's message), `parsed`, `parsing_error`."""

THINKING = re.compile(r"<think(?:ing)?>.*?(?:</think(?:ing)?>|\Z)", re.DOTALL | re.IGNORECASE)

_chosen: dict[str, Method] = {}
"""Per model (spec and endpoint): the method that worked, for the life of the process."""


def configured(model: BaseChatModel) -> tuple[str, str]:
    """The model's key (spec and endpoint) and its configured method (`auto` by default)."""
    metadata = model.metadata or {}
    return str(metadata.get("orquestra_key", id(model))), str(
        metadata.get("orquestra_structured_output", "auto")
    )


def methods_for(model: BaseChatModel) -> list[Method]:
    """The methods to try, in order: the remembered or configured one, else all of them."""
    key, setting = configured(model)
    if setting != "auto":
        return [setting]  # type: ignore[list-item]
    if key in _chosen:
        return [_chosen[key]]
    return list(METHODS)


def remember(model: BaseChatModel, method: Method) -> None:
    key, setting = configured(model)
    if setting == "auto":
        _chosen[key] = method


def chosen(model: BaseChatModel) -> Method | None:
    """The method `auto` settled on for this model in this process, if any yet."""
    return _chosen.get(configured(model)[0])


def forget_choices() -> None:
    """Forget every remembered method (tests, and `orquestra models check`)."""
    _chosen.clear()


def bound(
    model: BaseChatModel, schema: type[BaseModel], method: Method
) -> Runnable[LanguageModelInput, Outcome]:
    """`model` set up to answer `schema` with `method`, returning the raw message too."""
    if method == "json_schema" and _openai_client(model):
        # Given a Pydantic class, the OpenAI client parses the answer itself and raises on
        # anything but bare JSON (a reasoning model's `<think>` block), losing the message.
        # The same strict schema sent as a plain response format leaves the parsing to us.
        raw = model.bind(response_format=strict_response_format(schema))
        return raw | RunnableLambda(_unparsed, afunc=_unparsed_async)
    # With `include_raw=True` the outcome is always the dict (LangChain types it as either).
    return cast(
        "Runnable[LanguageModelInput, Outcome]",
        model.with_structured_output(schema, method=method, include_raw=True),
    )


def _unparsed(message: BaseMessage) -> Outcome:
    return {"raw": message, "parsed": None}


async def _unparsed_async(message: BaseMessage) -> Outcome:
    return _unparsed(message)  # on the loop: a dict, no thread hand-off needed


def strict_response_format(schema: type[BaseModel]) -> dict[str, Any]:
    """The `response_format` the OpenAI SDK itself derives from `schema` (strict: every
    property required, no additional ones), or a plain JSON schema if the SDK changed."""
    try:
        from openai.lib._parsing._completions import type_to_response_format_param

        return dict(type_to_response_format_param(schema))  # type: ignore[arg-type]
    except (ImportError, TypeError, ValueError):
        shape = schema.model_json_schema()
        return {"type": "json_schema", "json_schema": {"name": schema.__name__, "schema": shape}}


def _openai_client(model: BaseChatModel) -> bool:
    # Never imported here: importing langchain_openai takes seconds, on the event loop, at a
    # run's first structured call. A model of its class exists only once it has been imported.
    base = sys.modules.get("langchain_openai.chat_models.base")
    return base is not None and isinstance(model, base.BaseChatOpenAI)


def with_instructions(
    messages: list[BaseMessage], schema: type[BaseModel], method: Method
) -> list[BaseMessage]:
    """JSON mode only asks for *some* JSON: the schema goes into the instructions."""
    if method != "json_mode":
        return messages
    shape = json.dumps(schema.model_json_schema(), ensure_ascii=False)
    return [
        *messages,
        SystemMessage(
            content="Answer with one JSON object, and nothing else, that matches this JSON "
            f"schema: {shape}"
        ),
    ]


def without_thinking(text: str) -> str:
    """A reasoning model's answer without its `<think>…</think>` block."""
    return THINKING.sub("", text).strip()


def parse(outcome: Outcome, schema: type[M]) -> tuple[M | None, str]:
    """The instance in a structured call's outcome, or None and why not.

    LangChain's own parse is used when it succeeded; otherwise the raw message is read
    here — a tool call's arguments, or the content without a thinking block and without a
    Markdown fence — and validated strictly against `schema`.
    """
    parsed = outcome.get("parsed")
    if isinstance(parsed, schema) and outcome.get("parsing_error") is None:
        return parsed, ""
    if isinstance(parsed, dict) and outcome.get("parsing_error") is None:
        try:
            return schema.model_validate(parsed), ""
        except ValidationError as error:
            return None, _short(error)
    raw = outcome.get("raw")
    if not isinstance(raw, AIMessage):
        return None, str(outcome.get("parsing_error") or "no message")
    for call in raw.tool_calls or []:
        try:
            return schema.model_validate(call.get("args") or {}), ""
        except ValidationError as error:
            return None, _short(error)
    text = without_thinking(str(raw.content or ""))
    candidate = _json_object(text)
    if candidate is None:
        return None, f"no JSON object in the answer: {text[:200]!r}"
    try:
        return schema.model_validate_json(candidate), ""
    except ValidationError as error:
        return None, _short(error)


def refusal(outcome: Outcome) -> str | None:
    """The provider's refusal text, when the model declined (OpenAI's `refusal` field)."""
    raw = outcome.get("raw")
    kwargs = getattr(raw, "additional_kwargs", None) or {}
    return kwargs.get("refusal") or None


def _json_object(text: str) -> str | None:
    fenced = re.search(r"```(?:json)?\s*(\{.*\})\s*```", text, re.DOTALL)
    if fenced:
        return fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else None


def _short(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}" for e in error.errors()[:5]
    )


class ThinkingFilter:
    """Streams a reasoning model's text without its `<think>…</think>` block, even when a
    tag is split across chunks ("<thi" + "nk>")."""

    OPEN = ("<think>", "<thinking>")
    CLOSE = ("</think>", "</thinking>")

    def __init__(self) -> None:
        self.pending = ""
        self.inside = False

    def feed(self, text: str) -> str:
        self.pending += text
        shown: list[str] = []
        while self.pending:
            tags = self.CLOSE if self.inside else self.OPEN
            lowered = self.pending.lower()
            found = [(lowered.find(tag), tag) for tag in tags if tag in lowered]
            if found:
                index, tag = min(found)
                if not self.inside:
                    shown.append(self.pending[:index])
                self.pending = self.pending[index + len(tag) :]
                self.inside = not self.inside
                continue
            keep = _partial_tail(lowered, tags)  # maybe the start of a tag: wait for more
            if not self.inside:
                shown.append(self.pending[: len(self.pending) - keep])
            self.pending = self.pending[len(self.pending) - keep :]
            break
        return "".join(shown)

    def close(self) -> str:
        """What is left at the end of the stream (an unfinished tag was just text)."""
        rest, self.pending = ("" if self.inside else self.pending), ""
        return rest


def _partial_tail(text: str, tags: tuple[str, ...]) -> int:
    """How many characters at the end of `text` could begin one of `tags`."""
    for size in range(min(len(text), max(len(t) for t in tags) - 1), 0, -1):
        if any(tag.startswith(text[-size:]) for tag in tags):
            return size
    return 0
