"""Provider failures get names, structured output is read whatever the provider sent, and a
reasoning model's thinking never reaches the user.

The errors are the real client classes (the `openai` SDK's, built on real `httpx` responses,
and plain transport errors), so the classification is the one the running server applies.
"""

from __future__ import annotations

import httpx
import openai
import pytest
from langchain_core.messages import AIMessage
from pydantic import BaseModel

from orquestra.graph.model_errors import (
    ModelAuth,
    ModelContext,
    ModelError,
    ModelRateLimited,
    ModelRefused,
    ModelTimeout,
    classify,
    rejects_format,
)
from orquestra.graph.structured import ThinkingFilter, parse, without_thinking

REQUEST = httpx.Request("POST", "http://provider.test/v1/chat/completions")


def api_error(status: int, message: str, code: str | None = None, **headers: str):
    body = {"error": {"message": message, "type": "invalid_request_error", "code": code}}
    response = httpx.Response(status, request=REQUEST, headers=headers, json=body)
    kinds = {
        400: openai.BadRequestError,
        401: openai.AuthenticationError,
        403: openai.PermissionDeniedError,
        404: openai.NotFoundError,
        422: openai.UnprocessableEntityError,
        429: openai.RateLimitError,
    }
    kind = kinds.get(status, openai.InternalServerError)
    return kind(message, response=response, body=body["error"])


@pytest.mark.parametrize(
    ("error", "named"),
    [
        (api_error(401, "Incorrect API key provided: sk-wrong.", "invalid_api_key"), ModelAuth),
        (api_error(403, "You do not have access to this model"), ModelAuth),
        (api_error(429, "Rate limit reached", "rate_limit_exceeded"), ModelRateLimited),
        (api_error(500, "The server had an error"), ModelError),
        (api_error(503, "Service unavailable"), ModelError),
        (api_error(404, "The model `gpt-9` does not exist"), ModelError),
        (
            api_error(
                400,
                "This model's maximum context length is 8192 tokens. However, your messages "
                "resulted in 9001 tokens.",
                "context_length_exceeded",
            ),
            ModelContext,
        ),
        (
            api_error(
                400,
                "The response was filtered due to the prompt triggering Azure "
                "OpenAI's content management policy.",
                "content_filter",
            ),
            ModelRefused,
        ),
        (openai.APITimeoutError(request=REQUEST), ModelTimeout),
        (TimeoutError("read timed out"), ModelTimeout),
        (httpx.ReadTimeout("timed out", request=REQUEST), ModelTimeout),
        (openai.APIConnectionError(request=REQUEST), ModelError),
        (httpx.ConnectError("connection refused", request=REQUEST), ModelError),
    ],
)
def test_provider_failures_are_named(error: Exception, named: type[ModelError]) -> None:
    failure = classify(error)
    assert type(failure) is named
    assert failure.for_user("pt") != failure.for_user("en")  # worded in both languages


def test_a_rate_limit_carries_the_wait_the_provider_asked_for() -> None:
    failure = classify(api_error(429, "Rate limit reached", **{"Retry-After": "3"}))
    assert isinstance(failure, ModelRateLimited) and failure.retry_after == 3.0
    in_ms = classify(api_error(429, "slow down", **{"retry-after-ms": "1500"}))
    assert in_ms.retry_after == 1.5
    unsaid = classify(api_error(429, "slow down"))
    assert unsaid.retry_after is None


@pytest.mark.parametrize(
    "error",
    [KeyError("sql"), ValueError("invalid literal for int()"), AttributeError("x")],
)
def test_our_own_bugs_are_not_model_failures(error: Exception) -> None:
    assert classify(error) is None


@pytest.mark.parametrize(
    "error",
    [
        api_error(400, "'response_format' of type 'json_schema' is not supported with this model"),
        api_error(400, "tools are not supported by this model"),
        api_error(422, "Extra inputs are not permitted: response_format"),
        api_error(400, "json_schema response format is unsupported"),
        ValueError(
            "Unrecognized method argument. Expected one of 'function_calling' or 'json_mode'"
        ),
        NotImplementedError(),
    ],
)
def test_a_refused_request_format_is_recognised(error: Exception) -> None:
    assert rejects_format(error)


@pytest.mark.parametrize(
    "error",
    [
        api_error(400, "This model's maximum context length is 8192 tokens (tools included)"),
        api_error(401, "Incorrect API key provided"),
        api_error(500, "response_format handler crashed"),
        api_error(429, "Rate limit reached for tools"),
        KeyError("response_format"),
    ],
)
def test_other_failures_are_not_format_refusals(error: Exception) -> None:
    assert not rejects_format(error)


class Answer(BaseModel):
    sql: str
    confidence: float = 0.5


def test_structured_output_is_read_from_a_tool_call() -> None:
    raw = AIMessage(
        content="",
        tool_calls=[{"name": "Answer", "args": {"sql": "SELECT 1"}, "id": "call_1"}],
    )
    parsed, problem = parse({"raw": raw, "parsed": None, "parsing_error": "x"}, Answer)
    assert parsed == Answer(sql="SELECT 1") and problem == ""


@pytest.mark.parametrize(
    "content",
    [
        '<think>\nThe user wants a count.\n</think>\n{"sql": "SELECT 1"}',
        'Here it is:\n```json\n{"sql": "SELECT 1"}\n```',
        '<thinking>{"sql": "not this"}</thinking>{"sql": "SELECT 1"}',
    ],
)
def test_structured_output_is_read_past_thinking_and_fences(content: str) -> None:
    parsed, _ = parse({"raw": AIMessage(content=content), "parsed": None}, Answer)
    assert parsed == Answer(sql="SELECT 1")


def test_invalid_structured_output_says_why() -> None:
    parsed, problem = parse({"raw": AIMessage(content='{"confidence": 2}')}, Answer)
    assert parsed is None and "sql" in problem
    parsed, problem = parse({"raw": AIMessage(content="I cannot help")}, Answer)
    assert parsed is None and "no JSON object" in problem


def test_thinking_is_removed_from_a_whole_answer() -> None:
    assert without_thinking("<think>plan</think>\nThe total is 3.") == "The total is 3."
    assert without_thinking("<think>never closed") == ""


@pytest.mark.parametrize(
    "chunks",
    [
        ["<think>\nplan the answer\n</think>\n", "The total ", "is 3."],
        ["<thi", "nk>plan", " more</th", "ink>The total is 3."],
        ["<", "t", "h", "i", "n", "k", ">", "x", "<", "/", "think>", "The total is 3."],
        ["The total is 3."],
    ],
)
def test_streamed_thinking_never_reaches_the_user(chunks: list[str]) -> None:
    thinking = ThinkingFilter()
    shown = "".join(thinking.feed(c) for c in chunks) + thinking.close()
    assert shown.strip() == "The total is 3."


def test_a_lone_angle_bracket_is_text() -> None:
    thinking = ThinkingFilter()
    shown = "".join(thinking.feed(c) for c in ["a <", " b", " <t"]) + thinking.close()
    assert shown == "a < b <t"
