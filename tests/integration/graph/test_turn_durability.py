"""A turn on the PostgreSQL checkpointer, as the server runs it: its state is written once,
as the run exits, and what a thread needs after a turn is all there — the answer to continue
from, and a clarifying question's pause to resume."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from orquestra.agent.wiring import build_graph
from orquestra.core.database import state_url
from orquestra.graph.checkpoints import FailFastSaver, postgres_checkpointer
from orquestra.graph.events import DURABILITY, pending_question, thread_config
from tests.integration.graph.conftest import Harness
from tests.integration.graph.scripts import augmented, routed, written


@pytest.fixture
async def saver(harness: Harness) -> AsyncIterator[FailFastSaver]:
    """The harness's graph on the PostgreSQL checkpointer of its deployment's database."""
    async with postgres_checkpointer(state_url(harness.deployment.settings)) as opened:
        harness.graph = build_graph(harness.resources).compile(checkpointer=opened)
        yield opened


async def checkpoints(saver: FailFastSaver, thread: str) -> int:
    return len([c async for c in saver.alist(thread_config(thread))])


async def test_a_turn_writes_its_state_once(harness: Harness, saver: FailFastSaver) -> None:
    """One checkpoint per turn, not one per stage (an analytics turn runs eleven): the turn
    is committed whole or not at all, so the steps in between were never read back."""
    assert DURABILITY == "exit"
    sql, question = harness.sql, harness.deployment.questions.analytics
    harness.use(
        {
            "augmenter": [augmented(question), augmented(question)],
            "router": [routed("ANALYTICS"), routed("ANALYTICS")],
            "sql_writer": [written(sql.monthly), written(sql.monthly)],
            "answer": ["Aqui está.", "De novo."],
        }
    )
    thread = "durable-1"
    first = await harness.ask(question, thread)
    assert first.result["rows"] and len(first.nodes()) >= 10
    assert await checkpoints(saver, thread) == 1
    second = await harness.ask(question, thread)  # continues from the first turn's state
    assert second.result["rows"]
    assert await checkpoints(saver, thread) == 2
    state = await harness.state(thread)
    assert [m.content for m in state["messages"]][-1] == "De novo."
    assert len(state["messages"]) == 4


async def test_a_clarifying_question_pauses_and_resumes(
    harness: Harness, saver: FailFastSaver
) -> None:
    sql = harness.sql
    current = harness.use(
        {
            "augmenter": [
                augmented(
                    "como está?", missing=["measure"], clarifying_question=sql.vague_question
                ),
                augmented(harness.deployment.questions.analytics),
            ],
            "router": [routed("ANALYTICS")],
            "sql_writer": [written(sql.monthly)],
            "answer": ["Aqui está."],
        }
    )
    thread = "durable-2"
    first = await harness.ask("como está?", thread)
    assert first.of("clarify") == [{"question": sql.vague_question}]
    paused = await harness.graph.aget_state(thread_config(thread))
    assert pending_question(paused) == sql.vague_question  # the pause was written
    second = await harness.ask(f"{sql.measure} de 2026", thread)
    assert second.result["rows"]
    prompt = [p for role, p in current.seen if role == "augmenter"][1]
    assert f"Q: {sql.vague_question}" in prompt and f"A: {sql.measure} de 2026" in prompt
    resumed = await harness.graph.aget_state(thread_config(thread))
    assert pending_question(resumed) is None
