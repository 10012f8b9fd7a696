"""The typed events against real turns: every event `run_turn` yields is one of the union's
models, its JSON survives a round trip through the union unchanged, and it is byte for byte
the JSON the untyped events gave — for the `ask --json` line and the SSE `data:` line.

The graph is wrapped so that the test also sees what the stages wrote to LangGraph's stream
(the dicts the models are validated from) and rebuilds each event from them as `run_turn`
did before the models: `{"event": kind, "data": the other keys}`, `result_payload` of the
final state, `{}` for `done`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

from orquestra.graph.context import ROLES, RunContext
from orquestra.graph.event_types import EVENTS, KINDS, ErrorEvent, TurnEvent
from orquestra.graph.events import result_payload, run_turn
from tests.integration.graph.conftest import Harness
from tests.integration.graph.scripts import data_turn


class Recording:
    """The compiled graph, remembering every part it streams."""

    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.parts: list[tuple[str, Any]] = []

    async def aget_state(self, *args: Any, **kwargs: Any) -> Any:
        return await self.graph.aget_state(*args, **kwargs)

    async def astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        async for part in self.graph.astream(*args, **kwargs):
            self.parts.append(part)
            yield part


def line(event: dict[str, Any]) -> str:
    """An event as `orquestra ask --json` printed it (and prints it)."""
    return json.dumps(event, ensure_ascii=False, default=str)


def sse_data(data: dict[str, Any]) -> str:
    """An event's SSE `data:` line, as the chat route wrote it (and writes it)."""
    return json.dumps(data, default=str, ensure_ascii=False)


async def checked_turn(
    harness: Harness, message: str, thread: str, context: RunContext
) -> list[TurnEvent]:
    """One real turn; fails unless each event is exactly what the untyped code sent."""
    recording = Recording(harness.graph)
    events = [e async for e in run_turn(recording, message, thread_id=thread, context=context)]  # type: ignore[arg-type]
    for event in events:  # each one a model of the union, surviving a JSON round trip
        assert isinstance(event, TurnEvent) and event.event in KINDS
        again = EVENTS.validate_json(line(event.wire()))
        assert type(again) is type(event) and line(again.wire()) == line(event.wire())
    run_id = events[0].payload()["run_id"]
    assert line(events[0].wire()) == line(
        {"event": "run", "data": {"run_id": run_id, "thread_id": thread}}
    )
    assert line(events[-1].wire()) == line({"event": "done", "data": {}})
    written = [
        {"event": chunk["event"], "data": {k: v for k, v in chunk.items() if k != "event"}}
        for mode, chunk in recording.parts
        if mode == "custom" and isinstance(chunk, dict) and "event" in chunk
    ]
    streamed = [e for e in events if e.event in ("node", "sql", "token")]
    assert [line(e.wire()) for e in streamed] == [line(w) for w in written]
    assert [sse_data(e.payload()) for e in streamed] == [sse_data(w["data"]) for w in written]
    for event in events:
        if event.event == "result":
            state = (await harness.graph.aget_state({"configurable": {"thread_id": thread}})).values
            assert sse_data(event.payload()) == sse_data(result_payload(state))
        elif event.event == "clarify":  # the question the thread now waits on
            paused = await harness.graph.aget_state({"configurable": {"thread_id": thread}})
            asked = [i.value for task in paused.tasks for i in task.interrupts]
            assert event.payload() == {"question": asked[0].get("question", "")}
    return events


def seen(events: list[TurnEvent]) -> dict[str, list[dict[str, Any]]]:
    """Each kind's data, as sent."""
    found: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        found.setdefault(event.event, []).append(event.payload())
    return found


async def test_every_event_of_offline_turns_is_typed_and_sent_as_before(offline: Harness) -> None:
    questions, sql = offline.deployment.questions, offline.sql
    messages = [
        questions.tracking,
        questions.analytics,
        questions.knowledge,
        questions.no_data,
        "quem é você?",
        "Bom dia!",
        sql.injection,
        "como está a produção?",  # the offline model asks back
    ]
    events: list[TurnEvent] = []
    for number, message in enumerate(messages):
        events += await checked_turn(offline, message, f"contract-{number}", offline.base)
    kinds = seen(events)
    assert set(kinds) == set(KINDS) - {"error"}  # every kind a turn that works can send
    results = kinds["result"]
    for field in ("rows", "cards", "chart", "sources", "attempts", "judgements", "blocked_by"):
        assert any(field in r for r in results), field  # each optional part was exercised
    ends = [n for n in kinds["node"] if n["status"] == "end"]
    assert any("blocked_by" in n for n in ends) and any("judges" in n for n in ends)
    assert all(set(n) == {"node", "status"} for n in kinds["node"] if n["status"] == "start")


async def test_a_withdrawn_draft_is_typed_and_sent_as_before(harness: Harness) -> None:
    question, measure = harness.deployment.questions.analytics, harness.sql.measure
    harness.use(
        {
            **data_turn(question, harness.sql.monthly),
            "answer": [
                f"A {measure} de 2026 somou R$ 9.999.999,99.",
                f"A {measure} de 2026 está na tabela abaixo, mês a mês.",
            ],
        },
        repeat=("judge",),
    )
    models = {role: f"scripted:{harness.script_path}" for role in ROLES}
    events = await checked_turn(
        harness, question, "withdrawn", replace(harness.base, models=models)
    )
    tokens = seen(events)["token"]
    assert {"text": "", "reset": True} in tokens
    assert all(set(t) == {"text"} for t in tokens if not t.get("reset"))


async def test_a_failed_turn_sends_exactly_a_code_and_a_message(harness: Harness) -> None:
    harness.use({})  # no model is needed before the cap stops the turn
    caps = harness.base.caps.model_copy(update={"recursion_limit": 1})
    models = {role: f"scripted:{harness.script_path}" for role in ROLES}
    context = replace(harness.base, caps=caps, models=models)
    events = await checked_turn(harness, "Bom dia!", "failed", context)
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert len(errors) == 1 and errors[0].payload()["code"] == "RECURSION_LIMIT"
    assert list(errors[0].payload()) == ["code", "message"]
    assert [e.event for e in events][-2:] == ["error", "done"]
