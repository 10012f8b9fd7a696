"""One turn as the events of design §3.3 (the SSE stream and `orquestra ask --json`).

`run_turn` starts or resumes a thread (a pending clarifying question is answered by the new
message), streams LangGraph's `custom` mode, and maps it and the state the run leaves to
`run`, `node`, `sql`, `token`, `clarify`, `result`, `error` and `done` events — the typed
models of `graph.event_types`; the dicts the stages write to the custom stream are validated
into them here. Answer tokens are custom events the answering stages write after the output rails
(`graph.rails.AnswerStream`), so the client never receives text a rail would have masked or
withheld. Every run sets an explicit `recursion_limit`.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Any

import anyio
from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.errors import GraphRecursionError
from langgraph.pregel import Pregel
from langgraph.types import Command, Durability, StateSnapshot, StreamMode
from prometheus_client import Counter

from orquestra.core.database import is_unavailable
from orquestra.ddl_catalog.language import detect_language
from orquestra.graph import tracing
from orquestra.graph.context import RunContext
from orquestra.graph.event_types import (
    ClarifyData,
    ClarifyEvent,
    DoneEvent,
    ErrorData,
    ErrorEvent,
    Event,
    ResultData,
    ResultEvent,
    RunData,
    RunEvent,
    from_stream,
)
from orquestra.graph.model_errors import ModelError
from orquestra.graph.state import AgentState, InputState, OutputState
from orquestra.sandbox.analysis import jsonable

log = logging.getLogger("orquestra.run")
CANCEL_WAIT_S = 10.0
RUN_ERRORS = Counter("orquestra_run_errors_total", "Runs that ended with an error event", ["code"])

DURABILITY: Durability = "exit"
"""When a run's state is written to the checkpointer: once, as the run exits."""

STREAM_MODES: tuple[StreamMode, ...] = ("custom",)
"""What a run streams: the stages' own events. Whether it ended or paused on a clarifying
question is read from the state it leaves (LangGraph's `updates` mode would build every
stage's update once more, only to spot that pause)."""

Graph = Pregel[AgentState, RunContext, InputState, OutputState]
"""The compiled agent graph: its state, the run context it takes, its input and output."""


def thread_config(thread_id: str, checkpoint_id: str | None = None) -> RunnableConfig:
    """LangGraph's config for a thread: its newest checkpoint, or the one named."""
    configurable = {"thread_id": thread_id}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


async def run_turn(
    graph: Graph,
    message: str,
    *,
    thread_id: str,
    context: RunContext,
    run_id: str | None = None,
    checkpoint_id: str | None = None,
) -> AsyncIterator[Event]:
    """Events of one turn on `thread_id`, `run` first and `done` last.

    The turn starts from the thread's newest checkpoint, or from `checkpoint_id` (the last
    turn the server committed), so that a turn that failed half-way leaves no trace: its
    checkpoints are forked past, as LangGraph does when a run starts from an older one.
    """
    run_id = run_id or str(uuid.uuid4())
    yield RunEvent(data=RunData(run_id=run_id, thread_id=thread_id))
    config: RunnableConfig = {
        **thread_config(thread_id, checkpoint_id),
        "recursion_limit": context.caps.recursion_limit,
        "metadata": {"run_id": run_id, "tenant": context.tenant, "user": context.user},
        "callbacks": tracing.callbacks(),
        "run_name": "orquestra turn",
    }
    # The graph runs in its own task, so that a consumer going away (a client disconnecting
    # closes this generator) cancels the run — and with it a running database query.
    queue: asyncio.Queue[Event | None] = asyncio.Queue()
    producer = asyncio.create_task(_produce(graph, message, config, context, run_id, queue))
    try:
        while (event := await queue.get()) is not None:
            yield event
    finally:
        if not producer.done():
            producer.cancel()
            # Shielded: the consumer may itself be in a cancelled scope (an SSE server whose
            # client left); the run's cancellation must still be seen through to the end.
            with anyio.CancelScope(shield=True):
                await asyncio.wait([producer], timeout=CANCEL_WAIT_S)
    yield DoneEvent()


async def _produce(
    graph: Graph,
    message: str,
    config: RunnableConfig,
    context: RunContext,
    run_id: str,
    queue: asyncio.Queue[Event | None],
) -> None:
    try:
        async for event in _stream(graph, message, config, context):
            await queue.put(event)
    except Exception as error:  # every failure becomes a user-safe event
        lang = detect_language(message)
        await queue.put(ErrorEvent(data=user_error(error, run_id, lang)))
    finally:
        await queue.put(None)


def pending_question(snapshot: StateSnapshot) -> str | None:
    """The clarifying question a thread's state is waiting on, if any."""
    for task in snapshot.tasks:
        for pending in task.interrupts:
            return str(pending.value.get("question", ""))
    return None


async def _stream(
    graph: Graph, message: str, config: RunnableConfig, context: RunContext
) -> AsyncIterator[Event]:
    base = await graph.aget_state(config)
    payload: Any = (
        Command(resume=message)
        if pending_question(base) is not None
        else {"messages": [HumanMessage(content=message)]}
    )
    modes = list(STREAM_MODES)
    # With a list of modes, each part is a (mode, chunk) pair; LangGraph types parts loosely.
    mode: str
    chunk: Any
    # Checkpointed when the run exits (its end, a clarifying question's pause or a failure),
    # not after every super-step: a turn is committed whole or not at all, so the steps in
    # between were never resumed from, and writing them was most of a turn's cost.
    # Consumed to the end even after an interrupt: the run's last checkpoint is written
    # when the stream finishes, and the turn is over only once it is.
    stream = graph.astream(
        payload, config, context=context, stream_mode=modes, durability=DURABILITY
    )
    async for mode, chunk in stream:
        if mode == "custom" and isinstance(chunk, dict) and "event" in chunk:
            yield from_stream(chunk)  # a stage's dict, checked against the contract
    snapshot = await graph.aget_state(thread_config(config["configurable"]["thread_id"]))
    question = pending_question(snapshot)
    if question is not None:
        yield ClarifyEvent(data=ClarifyData(question=question))
        return
    yield ResultEvent(data=ResultData.model_validate(result_payload(snapshot.values)))


OPTIONAL_RESULT_FIELDS = (
    "sql",
    "cards",
    "chart",
    "sources",
    "attempts",
    "stop_reason",
    "blocked_by",
    "judgements",
    "display",
    "model",
)
"""State fields the `result` event carries when they are set."""


def result_payload(state: dict[str, Any]) -> dict[str, Any]:
    """The `result` event: the answer and what it stands on."""
    payload: dict[str, Any] = {"answer": state.get("answer", ""), "route": state.get("route")}
    result = state.get("result")
    if result:
        payload.update(
            columns=result["columns"],
            rows=[[jsonable(v) for v in row] for row in result["rows"]],
            row_count=result["row_count"],
            truncated=result["truncated"],
        )
    payload.update({key: state[key] for key in OPTIONAL_RESULT_FIELDS if state.get(key)})
    return payload


def user_error(error: Exception, run_id: str, lang: str = "en") -> ErrorData:
    """A code and a plain message (in the user's language where it is ours to word); the
    details go to the log with the run id."""
    if isinstance(error, ModelError):
        code, message = error.code, error.for_user(lang)
    elif is_unavailable(error):
        code, message = "DB_UNAVAILABLE", "The database is unavailable right now. Try again soon."
    elif isinstance(error, GraphRecursionError):
        code, message = "RECURSION_LIMIT", "This question took too many steps and was stopped."
    else:
        code, message = "INTERNAL", "Something went wrong while answering. It has been logged."
    log.error("run failed", exc_info=error, extra={"run_id": run_id, "code": code})
    RUN_ERRORS.labels(code=code).inc()
    return ErrorData(code=code, message=message)
