"""Whole turns through the real OpenAI client against a provider with each quirk users meet.

The graph, guard, executor and database are real; the model is the real `ChatOpenAI` client
talking over a socket to a local fake OpenAI-compatible provider (`tests/fake_provider.py`)
whose answers come from the offline model. Every turn ends in a result or a named error —
never INTERNAL — and the structured-output method, retries and token accounting are read
from what the provider actually received.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from prometheus_client import REGISTRY

from orquestra.agent.wiring import build_graph
from orquestra.core.settings import Settings
from orquestra.graph.context import ROLES, RunContext
from orquestra.graph.events import run_turn
from orquestra.graph.model_health import forget
from orquestra.graph.structured import forget_choices
from tests.fake_provider import FakeProvider
from tests.graph_resources import OpenResources

pytestmark = pytest.mark.filterwarnings(
    "ignore:This model does not support OpenAI's structured output"  # langchain-openai's hint
)
QUESTION = "quantas notas bloqueadas temos?"
"""A data question every quirk's turn answers (tenant 101 has blocked invoices)."""


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as provider:
        yield provider


@pytest.fixture
async def turn(
    fake: FakeProvider,
    settings: Settings,
    demo_db: object,
    monkeypatch: pytest.MonkeyPatch,
    open_resources: OpenResources,
) -> AsyncIterator[Any]:
    """`await turn(spec, message, **role_specs)`: one turn, its events and its final state."""
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)  # what ChatOpenAI reads, as users set
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    resources = await open_resources.of(settings)
    graph = build_graph(resources).compile(checkpointer=InMemorySaver())
    fake.reset()
    forget_choices()
    forget()

    async def run(spec: str, message: str = QUESTION, **per_role: str) -> dict[str, Any]:
        models = {role: f"openai:{per_role.get(role, spec)}" for role in ROLES}
        context = RunContext.from_settings(settings, tenant="101", user="provider-test")
        context.models = models
        thread = f"provider-{spec}-{len(fake.requests)}"
        events = [e async for e in run_turn(graph, message, thread_id=thread, context=context)]
        snapshot = await graph.aget_state({"configurable": {"thread_id": thread}})
        return {"events": events, "state": snapshot.values}

    yield run


def of(done: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e.payload() for e in done["events"] if e.event == kind]


def result(done: dict[str, Any]) -> dict[str, Any]:
    found = of(done, "result")
    assert found, f"no result: {of(done, 'error')}"
    return found[0]


def error_code(done: dict[str, Any]) -> str:
    errors = of(done, "error")
    assert errors, "the turn ended without an error event"
    return errors[0]["code"]


def structured(fake: FakeProvider) -> list[tuple[str, str, int]]:
    """(method, role, status) of every structured request, in order."""
    return [
        (r.structured_method, r.role, r.status)
        for r in fake.requests
        if r.path.endswith("/chat/completions") and r.structured_method != "text"
    ]


@pytest.mark.parametrize(
    ("model", "tried"),
    [
        ("fake", ["json_schema"]),
        ("fake+no-json-schema", ["json_schema", "function_calling"]),
        ("fake+tools-only", ["json_schema", "function_calling"]),
        ("fake+json-mode-only", ["json_schema", "function_calling", "json_mode"]),
    ],
)
async def test_the_strictest_method_the_provider_accepts_is_found_once(
    turn, fake: FakeProvider, model: str, tried: list[str]
) -> None:
    done = await turn(model)
    assert result(done)["rows"] and "notas_fiscais" in result(done)["sql"]
    calls = structured(fake)
    # The first structured call walks down the methods; every later one goes straight to
    # the one that worked, for every role using this model.
    assert [method for method, _role, _status in calls[: len(tried)]] == tried
    assert [status for _m, _r, status in calls[: len(tried)]][-1] == 200
    assert all(status >= 400 for _m, _r, status in calls[: len(tried) - 1])
    assert {method for method, _r, _s in calls[len(tried) :]} == {tried[-1]}
    assert all(status == 200 for _m, _r, status in calls[len(tried) :])
    assert len({role for _m, role, _s in calls}) >= 3  # augmenter, router, SQL writer at least


async def test_a_configured_method_is_used_as_is(
    turn, fake: FakeProvider, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings.models, "structured_output", {"default": "json_mode"})
    done = await turn("fake+json-mode-only")
    assert result(done)["rows"]
    assert {method for method, _r, _s in structured(fake)} == {"json_mode"}


async def test_thinking_never_reaches_the_user(turn, fake: FakeProvider) -> None:
    done = await turn("fake+think")
    answer = result(done)["answer"]
    streamed = "".join(t["text"] for t in of(done, "token"))
    assert result(done)["rows"] and answer
    for text in (answer, streamed):
        assert "<think" not in text and "think about the tables" not in text


async def test_separate_reasoning_content_is_ignored(turn) -> None:
    done = await turn("fake+reasoning-content")
    assert result(done)["rows"] and "think about the tables" not in result(done)["answer"]


async def test_a_provider_without_usage_is_estimated_and_marked(turn) -> None:
    counted = await turn("fake")
    assert not counted["state"]["tokens_estimated"]
    estimated = await turn("fake+no-usage")
    state = estimated["state"]
    assert state["tokens_estimated"] and state["prompt_tokens"] > 0
    assert state["completion_tokens"] > 0


def failures(code: str) -> float:
    return sum(
        REGISTRY.get_sample_value("orquestra_model_errors_total", {"role": role, "code": code})
        or 0.0
        for role in ROLES
    )


@pytest.mark.parametrize(
    ("model", "code", "words"),
    [
        ("fake+401", "MODEL_AUTH", "credenciais"),
        ("fake+403", "MODEL_AUTH", "credenciais"),
        ("fake+429", "MODEL_RATE_LIMITED", "limitando"),
        ("fake+500", "MODEL_UNAVAILABLE", "fora do ar"),
        ("fake+503", "MODEL_UNAVAILABLE", "fora do ar"),
        ("fake+filter", "MODEL_REFUSED", "filtro de conteúdo"),
    ],
)
async def test_provider_failures_are_named_in_the_users_language(
    turn, model: str, code: str, words: str
) -> None:
    before = failures(code)
    done = await turn(model)
    assert error_code(done) == code
    message = of(done, "error")[0]["message"]
    assert words in message  # a Portuguese question, a Portuguese message
    assert "Traceback" not in message and "sk-" not in message
    assert failures(code) == before + 1
    assert of(done, "done")  # the stream still ends properly


async def test_an_english_question_hears_the_failure_in_english(turn) -> None:
    done = await turn("fake+401", "how many blocked invoices do we have?")
    assert error_code(done) == "MODEL_AUTH"
    assert "credentials" in of(done, "error")[0]["message"]


async def test_a_rate_limit_is_waited_out_within_the_turn(turn, fake: FakeProvider) -> None:
    done = await turn("fake+429x2")
    assert result(done)["rows"]
    limited = [r for r in fake.requests if r.status == 429]
    assert len(limited) == 2
    assert done["state"]["model_wait_s"] >= 2.0  # Retry-After: 1, honoured twice


async def test_an_outage_blip_is_retried(turn, fake: FakeProvider) -> None:
    done = await turn("fake+500x1")
    assert result(done)["rows"]
    assert [r.status for r in fake.requests].count(500) == 1


async def test_a_rate_limit_that_does_not_fit_the_budget_is_named(
    turn, fake: FakeProvider, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(settings.limits, "model_wait_s", 0.5)  # less than Retry-After: 1
    done = await turn("fake+429x1")
    assert error_code(done) == "MODEL_RATE_LIMITED"
    assert [r.status for r in fake.requests] == [429]


async def test_a_context_too_long_retries_the_sql_writer_with_a_smaller_prompt(
    turn, fake: FakeProvider
) -> None:
    await turn("fake")
    writer = next(r for r in fake.requests if r.role == "sql_writer")
    size = sum(len(str(m.get("content") or "")) for m in writer.body["messages"])
    limited = f"fake+context={size - 1}"
    done = await turn("fake", sql_writer=limited)
    assert result(done)["rows"]
    attempts = [r for r in fake.requests if r.model == limited]
    assert [r.status for r in attempts] == [400, 200]
    second = sum(len(str(m.get("content") or "")) for m in attempts[1].body["messages"])
    assert second < size - 1


async def test_rows_survive_an_answer_model_that_fails(turn) -> None:
    done = await turn("fake", answer="fake+500")
    found = result(done)
    assert found["rows"] and found["stop_reason"] == "MODEL_UNAVAILABLE"
    assert "[MODEL_UNAVAILABLE]" in found["answer"] and "linha" in found["answer"]
