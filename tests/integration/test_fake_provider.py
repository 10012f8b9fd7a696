"""The fake OpenAI-compatible provider, driven by the real clients over a real socket.

One test per quirk pins the wire behaviour it promises (status, error body, headers, usage,
tool calls, think tags cut across chunks) and what the `openai` SDK and langchain-openai make
of it (exception classes, retries); the structured tests check that every stage's schema,
through every structured-output method, comes back as JSON its Pydantic class accepts.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from langchain_core.exceptions import ContextOverflowError, OutputParserException
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, ValidationError

from orquestra.guards.rails.judges import Relevance
from orquestra.nodes.augmenter import Augmented
from orquestra.nodes.fixer import FixedSql
from orquestra.nodes.librarian import LibrarianAnswer
from orquestra.nodes.router import RouteDecision
from orquestra.nodes.sql_writer import SqlDraft
from tests.fake_provider import FakeProvider

REPO = Path(__file__).resolve().parents[2]
QUESTION = "quantos pedidos foram entregues?"
ASK = [SystemMessage("Answer in English."), HumanMessage(f"## Question\n{QUESTION}")]
WIRE_ASK = [
    {"role": "system", "content": "Answer in English."},
    {"role": "user", "content": f"## Question\n{QUESTION}"},
]
METHODS = ["json_schema", "function_calling", "json_mode"]

pytestmark = pytest.mark.filterwarnings(
    "ignore:This model does not support OpenAI's structured output"
)


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as provider:
        yield provider


@pytest.fixture(autouse=True)
def fresh(fake: FakeProvider) -> None:
    fake.reset()


def client(fake: FakeProvider, **options: Any) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0, **options)


def chat_model(fake: FakeProvider, model: str, **options: Any) -> ChatOpenAI:
    options.setdefault("max_retries", 0)
    return ChatOpenAI(model=model, base_url=fake.base_url, api_key="sk-test", **options)


def stage_messages(schema: type[BaseModel], method: str) -> list[BaseMessage]:
    """What the stage answering `schema` sends, with JSON mode's schema instructions."""
    user = {
        Augmented: f"## Today\n2026-03-10\n\n## Message\n{QUESTION}",
        FixedSql: f"## Question\n{QUESTION}\n\n## Failing SQL\nSELECT count(*) FROM pedido\n\n"
        '## Error\nrelation "pedido" does not exist',
        Relevance: f"## Question\n{QUESTION}\n\n## Answer\nQuantidade: 12.\n\n## Kind\ndata answer",
    }.get(schema, f"## Today\n2026-03-10\n\n## Question\n{QUESTION}")
    messages: list[BaseMessage] = [
        SystemMessage("You answer in English. You are allowed to ask: yes."),
        HumanMessage(user),
    ]
    if method == "json_mode":
        shape = json.dumps(schema.model_json_schema())
        messages.append(SystemMessage(f"Answer with one JSON object matching: {shape}"))
    return messages


async def streamed(fake: FakeProvider, model: str, **options: Any) -> list[Any]:
    stream = await client(fake).chat.completions.create(
        model=model, messages=WIRE_ASK, stream=True, **options
    )
    return [chunk async for chunk in stream]


def content_of(chunks: list[Any]) -> str:
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    ("schema", "role"),
    [
        (Augmented, "augmenter"),
        (RouteDecision, "router"),
        (SqlDraft, "sql_writer"),
        (FixedSql, "fixer"),
        (LibrarianAnswer, "librarian"),
        (Relevance, "judge"),
    ],
)
async def test_each_stage_schema_through_each_method(
    fake: FakeProvider, schema: type[BaseModel], role: str, method: str
) -> None:
    structured = chat_model(fake, "fake").with_structured_output(
        schema, method=method, include_raw=True
    )
    out = await structured.ainvoke(stage_messages(schema, method))
    assert out["parsing_error"] is None
    assert isinstance(out["parsed"], schema)
    [seen] = fake.requests
    assert (seen.structured_method, seen.role, seen.status) == (method, role, 200)
    if schema is SqlDraft:
        assert "pedidos" in out["parsed"].sql
    if schema is FixedSql:
        assert "pedidos" in out["parsed"].sql


async def test_request_shapes_are_recorded(fake: FakeProvider) -> None:
    model = chat_model(fake, "fake")
    await model.with_structured_output(SqlDraft, method="json_schema").ainvoke(ASK)
    await model.with_structured_output(SqlDraft, method="function_calling").ainvoke(ASK)
    schema_call, tool_call = fake.requests
    assert schema_call.body["response_format"]["json_schema"]["name"] == "SqlDraft"
    assert schema_call.headers["authorization"] == "Bearer sk-test"
    assert tool_call.body["tools"][0]["function"]["name"] == "SqlDraft"
    assert tool_call.body["tool_choice"]["function"]["name"] == "SqlDraft"
    assert tool_call.quirks.names == frozenset()


async def test_text_answers_chat_or_a_result(fake: FakeProvider) -> None:
    result = '1 of 1 rows\n{"quantidade": 12}'
    answer = await client(fake).chat.completions.create(
        model="fake",
        messages=[
            {"role": "system", "content": "Answer in English."},
            {"role": "user", "content": f"## Question\n{QUESTION}\n\n## Result\n{result}"},
        ],
    )
    assert "12" in answer.choices[0].message.content
    hello = await chat_model(fake, "fake").ainvoke([HumanMessage("hello")])
    assert "Orquestra" in hello.content
    assert [r.role for r in fake.requests] == ["answer", "chat"]


async def test_stream_ends_with_a_usage_chunk_when_asked(fake: FakeProvider) -> None:
    chunks = await streamed(fake, "fake", stream_options={"include_usage": True})
    *body, last = chunks
    assert last.choices == [] and last.usage.total_tokens > 0
    assert all(c.usage is None for c in body)
    assert body[-1].choices[0].finish_reason == "stop"
    unasked = await streamed(fake, "fake")
    assert all(c.choices and c.usage is None for c in unasked)
    assert content_of(unasked) == content_of(chunks)


async def test_no_usage_never_sends_usage(fake: FakeProvider) -> None:
    answer = await client(fake).chat.completions.create(model="fake+no-usage", messages=WIRE_ASK)
    assert answer.usage is None
    chunks = await streamed(fake, "fake+no-usage", stream_options={"include_usage": True})
    assert all(c.choices and c.usage is None for c in chunks)
    pieces = [c async for c in chat_model(fake, "fake+no-usage").astream(ASK, stream_usage=True)]
    assert pieces and all(p.usage_metadata is None for p in pieces)
    with_usage = [c async for c in chat_model(fake, "fake").astream(ASK, stream_usage=True)]
    assert sum(p.usage_metadata["total_tokens"] for p in with_usage if p.usage_metadata) > 0


async def test_think_block_is_cut_inside_its_tags(fake: FakeProvider) -> None:
    answer = await client(fake).chat.completions.create(model="fake+think", messages=WIRE_ASK)
    text = answer.choices[0].message.content
    assert text.startswith("<think>\n") and "\n</think>\n" in text
    chunks = await streamed(fake, "fake+think")
    pieces = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert pieces[:2] == ["<thi", "nk>\nLet me think "]
    assert any(p.endswith("</th") for p in pieces) and "ink>\n" in pieces
    assert content_of(chunks) == text
    streamed_lc = "".join([c.content async for c in chat_model(fake, "fake+think").astream(ASK)])
    assert streamed_lc == text  # langchain-openai passes the block through untouched


async def test_think_with_each_structured_method(fake: FakeProvider) -> None:
    model = chat_model(fake, "fake+think")
    # json_schema: the SDK validates the content itself, so the error escapes include_raw.
    with pytest.raises(ValidationError):
        await model.with_structured_output(
            SqlDraft, method="json_schema", include_raw=True
        ).ainvoke(ASK)
    as_json = model.with_structured_output(SqlDraft, method="json_mode", include_raw=True)
    out = await as_json.ainvoke(stage_messages(SqlDraft, "json_mode"))
    assert isinstance(out["parsing_error"], OutputParserException)
    assert out["raw"].content.startswith("<think>")
    as_tool = model.with_structured_output(SqlDraft, method="function_calling", include_raw=True)
    out = await as_tool.ainvoke(ASK)
    assert isinstance(out["parsed"], SqlDraft) and out["raw"].content.startswith("<think>")


async def test_reasoning_content_is_a_separate_field(fake: FakeProvider) -> None:
    answer = await client(fake).chat.completions.create(
        model="fake+reasoning-content", messages=WIRE_ASK
    )
    message = answer.choices[0].message
    assert message.reasoning_content == "Let me think about the tables…"
    assert "think" not in message.content
    chunks = await streamed(fake, "fake+reasoning-content")
    reasoning = "".join(
        getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks
    )
    assert reasoning == "Let me think about the tables…"
    assert content_of(chunks) == message.content
    lc = await chat_model(fake, "fake+reasoning-content").ainvoke(ASK)
    assert lc.content == message.content  # langchain-openai drops reasoning_content
    structured = chat_model(fake, "fake+reasoning-content").with_structured_output(
        SqlDraft, method="json_schema"
    )
    assert isinstance(await structured.ainvoke(ASK), SqlDraft)


async def refused(fake: FakeProvider, model: str, method: str) -> openai.BadRequestError:
    structured = chat_model(fake, model).with_structured_output(SqlDraft, method=method)
    with pytest.raises(openai.BadRequestError) as failed:
        await structured.ainvoke(stage_messages(SqlDraft, method))
    assert failed.value.status_code == 400
    assert failed.value.body["type"] == "invalid_request_error"
    return failed.value


async def accepted(fake: FakeProvider, model: str, method: str) -> None:
    structured = chat_model(fake, model).with_structured_output(SqlDraft, method=method)
    assert isinstance(await structured.ainvoke(stage_messages(SqlDraft, method)), SqlDraft)


async def test_no_json_schema(fake: FakeProvider) -> None:
    failure = await refused(fake, "fake+no-json-schema", "json_schema")
    assert failure.body["param"] == "response_format"
    assert "'response_format' of type 'json_schema' is not supported" in failure.message
    await accepted(fake, "fake+no-json-schema", "function_calling")
    await accepted(fake, "fake+no-json-schema", "json_mode")
    assert [r.status for r in fake.requests] == [400, 200, 200]


async def test_tools_only(fake: FakeProvider) -> None:
    await refused(fake, "fake+tools-only", "json_schema")
    failure = await refused(fake, "fake+tools-only", "json_mode")
    assert "'json_object' is not supported" in failure.message
    await accepted(fake, "fake+tools-only", "function_calling")


async def test_json_mode_only(fake: FakeProvider) -> None:
    await refused(fake, "fake+json-mode-only", "json_schema")
    failure = await refused(fake, "fake+json-mode-only", "function_calling")
    assert failure.body["param"] == "tools"
    await accepted(fake, "fake+json-mode-only", "json_mode")


@pytest.mark.parametrize(
    ("quirk", "error", "code"),
    [
        ("401", openai.AuthenticationError, "invalid_api_key"),
        ("403", openai.PermissionDeniedError, "model_not_allowed"),
    ],
)
async def test_auth_quirks(fake: FakeProvider, quirk: str, error: type, code: str) -> None:
    with pytest.raises(error) as failed:
        await chat_model(fake, f"fake+{quirk}").ainvoke(ASK)
    assert failed.value.status_code == int(quirk) and failed.value.code == code
    with pytest.raises(error):
        await client(fake).models.retrieve(f"fake+{quirk}")
    with pytest.raises(error):
        [c async for c in chat_model(fake, f"fake+{quirk}").astream(ASK)]


async def test_a_wrong_key_fails_every_endpoint(fake: FakeProvider) -> None:
    wrong = openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-wrong", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as failed:
        await wrong.models.list()
    assert failed.value.body["message"].startswith("Incorrect API key provided: sk-wrong.")
    listed = await client(fake).models.list()
    assert "fake" in [m.id for m in listed.data]


async def test_rate_limited_first_n_then_served(fake: FakeProvider) -> None:
    model = chat_model(fake, "fake+429x2")
    for _ in range(2):
        with pytest.raises(openai.RateLimitError) as failed:
            await model.ainvoke(ASK)
        assert failed.value.response.headers["retry-after"] == "1"
        assert failed.value.code == "rate_limit_exceeded"
    assert (await model.ainvoke(ASK)).content
    with pytest.raises(openai.RateLimitError):  # counted per model name
        await chat_model(fake, "fake+429x2+no-usage").ainvoke(ASK)
    fake.reset()
    with pytest.raises(openai.RateLimitError):
        await model.ainvoke(ASK)
    with pytest.raises(openai.RateLimitError):
        [c async for c in chat_model(fake, "fake+429").astream(ASK)]


async def test_the_sdk_retries_honouring_retry_after(fake: FakeProvider) -> None:
    started = time.monotonic()
    answer = await chat_model(fake, "fake+429x1", max_retries=None).ainvoke(ASK)
    assert answer.content and time.monotonic() - started >= 0.9
    assert [r.status for r in fake.requests] == [429, 200]


@pytest.mark.parametrize("status", [500, 503])
async def test_outages(fake: FakeProvider, status: int) -> None:
    model = chat_model(fake, f"fake+{status}x1")
    with pytest.raises(openai.InternalServerError) as failed:
        await model.ainvoke(ASK)
    assert failed.value.status_code == status and failed.value.body["type"] == "server_error"
    assert (await model.ainvoke(ASK)).content
    with pytest.raises(openai.InternalServerError):
        await chat_model(fake, f"fake+{status}").ainvoke(ASK)


async def test_slow_answers_time_out_without_blocking_the_server(fake: FakeProvider) -> None:
    slow = chat_model(fake, "fake+slow=1.5", timeout=0.3)
    quick = chat_model(fake, "fake+slow=0.2")
    outcomes = await asyncio.gather(slow.ainvoke(ASK), quick.ainvoke(ASK), return_exceptions=True)
    assert isinstance(outcomes[0], openai.APITimeoutError)
    assert outcomes[1].content


async def test_context_length(fake: FakeProvider) -> None:
    model = chat_model(fake, "fake+context=200")
    long_ask = [*ASK, HumanMessage("x" * 300)]
    with pytest.raises(openai.BadRequestError) as failed:
        await model.ainvoke(long_ask)
    assert failed.value.code == "context_length_exceeded" and failed.value.param == "messages"
    # langchain-openai looks for the code in str(error), which this SDK limits to the
    # message: OpenAI's own wording is not classified as its ContextOverflowError.
    assert not isinstance(failed.value, ContextOverflowError)
    assert (await model.ainvoke(ASK)).content


async def test_content_filter(fake: FakeProvider) -> None:
    with pytest.raises(openai.BadRequestError) as failed:
        await chat_model(fake, "fake+filter").ainvoke(ASK)
    assert failed.value.code == "content_filter" and failed.value.body["param"] == "prompt"


async def test_a_misspelt_quirk_is_not_found(fake: FakeProvider) -> None:
    with pytest.raises(openai.NotFoundError) as failed:
        await chat_model(fake, "fake+tools_only").ainvoke(ASK)
    assert failed.value.code == "model_not_found" and "tools_only" in failed.value.message


async def test_quirks_combine(fake: FakeProvider) -> None:
    model = chat_model(fake, "fake+think+no-usage+tools-only")
    await refused(fake, "fake+think+no-usage+tools-only", "json_schema")
    tool = model.with_structured_output(SqlDraft, method="function_calling", include_raw=True)
    out = await tool.ainvoke(ASK)
    assert isinstance(out["parsed"], SqlDraft) and out["raw"].usage_metadata is None
    assert out["raw"].content.startswith("<think>")
    text = "".join([c.content async for c in model.astream(ASK, stream_usage=True)])
    assert text.startswith("<think>")


async def test_streamed_tool_call_arguments_arrive_in_pieces(fake: FakeProvider) -> None:
    stream = await client(fake).chat.completions.create(
        model="fake",
        messages=WIRE_ASK,
        stream=True,
        tools=[{"type": "function", "function": {"name": "SqlDraft", "parameters": {}}}],
    )
    calls = [c.choices[0].delta.tool_calls async for c in stream if c.choices[0].delta.tool_calls]
    assert calls[0][0].function.name == "SqlDraft" and calls[0][0].id
    arguments = "".join(call[0].function.arguments or "" for call in calls)
    assert len(calls) > 2 and SqlDraft.model_validate_json(arguments).sql


async def test_a_clinics_provider_answers_from_its_catalog() -> None:
    with FakeProvider(deployment="clinics") as clinics:
        draft = (
            await chat_model(clinics, "fake")
            .with_structured_output(SqlDraft)
            .ainvoke([HumanMessage("## Question\nquantos exames foram realizados?")])
        )
    assert "exames" in draft.sql


def test_runs_as_a_process() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.fake_provider", "--port", "0"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = process.stdout.readline().split()[-1]
        deadline = time.monotonic() + 20
        while True:
            try:
                listed = httpx.get(f"{base_url}/models", timeout=1)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the fake provider did not start"
                time.sleep(0.1)
        assert listed.status_code == 200 and listed.json()["data"][0]["id"] == "fake"
    finally:
        process.terminate()
        # uvicorn shuts down cleanly, then re-raises the signal it caught
        assert process.wait(timeout=10) in (0, -signal.SIGTERM)
