"""One turn as the events of design §3.3 (the SSE stream and `orquestra ask --json`).

`run_turn` starts or resumes a thread (a pending clarifying question is answered by the new
message), streams LangGraph's `updates` and `custom` modes, and maps them to `run`, `node`,
`sql`, `token`, `clarify`, `result`, `error` and `done` events. Answer tokens are custom
events the answering stages write after the output rails (`graph.rails.AnswerStream`), so
the client never receives text a rail would have masked or withheld. Every run sets
an explicit `recursion_limit`.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from typing import Any

import anyio
from langchain_core.messages import HumanMessage
from langgraph.errors import GraphRecursionError
from langgraph.pregel import Pregel
from langgraph.types import Command

from graph import tracing
from graph.analysis import jsonable
from graph.context import RunContext
from graph.models import ModelUnavailable
from server.database import DatabaseUnavailable

log = logging.getLogger("orquestra.run")
CANCEL_WAIT_S = 10.0

Event = dict[str, Any]


async def run_turn(
    graph: Pregel, message: str, *, thread_id: str, context: RunContext, run_id: str | None = None
) -> AsyncIterator[Event]:
    """Events of one turn on `thread_id`, `run` first and `done` last."""
    run_id = run_id or str(uuid.uuid4())
    yield {"event": "run", "data": {"run_id": run_id, "thread_id": thread_id}}
    config = {
        "configurable": {"thread_id": thread_id},
        "recursion_limit": context.recursion_limit,
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
    yield {"event": "done", "data": {}}


async def _produce(graph, message, config, context, run_id: str, queue: asyncio.Queue) -> None:
    try:
        async for event in _stream(graph, message, config, context):
            await queue.put(event)
    except Exception as error:  # every failure becomes a user-safe event
        await queue.put({"event": "error", "data": user_error(error, run_id)})
    finally:
        await queue.put(None)


async def pending_question(graph: Pregel, thread_id: str) -> str | None:
    """The clarifying question a thread is waiting on, if any."""
    snapshot = await graph.aget_state({"configurable": {"thread_id": thread_id}})
    for task in snapshot.tasks:
        for pending in task.interrupts:
            return str(pending.value.get("question", ""))
    return None


async def _stream(graph: Pregel, message: str, config: dict, context: RunContext):
    waiting = await pending_question(graph, config["configurable"]["thread_id"])
    payload: Any = (
        Command(resume=message)
        if waiting is not None
        else {"messages": [HumanMessage(content=message)]}
    )
    modes = ["updates", "custom"]
    async for mode, chunk in graph.astream(payload, config, context=context, stream_mode=modes):
        if mode == "custom" and isinstance(chunk, dict) and "event" in chunk:
            yield {
                "event": chunk["event"],
                "data": {k: v for k, v in chunk.items() if k != "event"},
            }
        elif mode == "updates" and "__interrupt__" in chunk:
            question = chunk["__interrupt__"][0].value.get("question", "")
            yield {"event": "clarify", "data": {"question": question}}
            return
    snapshot = await graph.aget_state(config)
    yield {"event": "result", "data": result_payload(snapshot.values)}


OPTIONAL_RESULT_FIELDS = (
    "sql",
    "cards",
    "chart",
    "sources",
    "attempts",
    "stop_reason",
    "blocked_by",
    "judgements",
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


def user_error(error: Exception, run_id: str) -> dict[str, str]:
    """A code and a plain message; the details go to the log with the run id."""
    if isinstance(error, DatabaseUnavailable | OSError):
        code, message = "DB_UNAVAILABLE", "The database is unavailable right now. Try again soon."
    elif isinstance(error, ModelUnavailable):
        code, message = "MODEL_UNAVAILABLE", error.message
    elif isinstance(error, GraphRecursionError):
        code, message = "RECURSION_LIMIT", "This question took too many steps and was stopped."
    else:
        code, message = "INTERNAL", "Something went wrong while answering. It has been logged."
    log.error("run failed", exc_info=error, extra={"run_id": run_id, "code": code})
    return {"code": code, "message": message}
