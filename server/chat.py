"""The chat and thread routes: a turn streamed as Server-Sent Events, the caller's threads.

A chat request is checked in the order that costs least and writes nothing: the token (before
the body is read), whether the server is shutting down, the body and its text, the tenant's
run limit, the thread's owner. A turn is all or nothing: only one that ends without an error
commits its checkpoint to the thread (`ThreadStore.commit`), so nothing refused or failed
appears in the caller's list, and a thread is always read and continued from its last
committed turn — a turn the server's drain cut (`server.shutdown`) included.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass
from typing import Any, cast

import anyio
from fastapi import APIRouter, FastAPI, HTTPException, Request
from prometheus_client import Gauge
from pydantic import ValidationError
from sse_starlette.sse import EventSourceResponse
from starlette.requests import ClientDisconnect

from orquestra.core.database import DatabaseUnavailable, database_work
from orquestra.core.settings import Settings
from orquestra.core.texts import say
from orquestra.ddl_catalog.language import detect_language
from orquestra.graph.context import RunContext
from orquestra.graph.event_types import (
    EVENTS,
    DoneEvent,
    ErrorData,
    ErrorEvent,
    Event,
    ResultData,
    ResultEvent,
    RunEvent,
    TurnEvent,
)
from orquestra.graph.events import (
    RUN_ERRORS,
    pending_question,
    run_turn,
    thread_config,
    user_error,
)
from orquestra.server.auth import Caller, CurrentCaller
from orquestra.server.middleware import RETRY_AFTER_S
from orquestra.server.run_leases import LeaseRefused, RunLeases
from orquestra.server.schemas import ChatRequest, errors, invalid_input
from orquestra.server.shutdown import Drain
from orquestra.server.threads import ThreadStore, new_thread_id

log = logging.getLogger("orquestra.server")
# `livesum`: under `serve --workers N` the metrics listener adds up the live workers' gauges.
ACTIVE_STREAMS = Gauge(
    "orquestra_active_streams", "Chat streams in progress", multiprocess_mode="livesum"
)
router = APIRouter()

EVENT_STREAM = {
    "description": "The turn as Server-Sent Events: `run` first, then `node`, `sql`, `token`,"
    " `clarify`, `result` or `error`, and `done` last (design §3.3). The schema is one event:"
    " its `event` is the SSE `event:` line, its `data` the `data:` line (JSON).",
    "content": {
        "text/event-stream": {
            "schema": {"$ref": "#/components/schemas/Event"},
            "example": 'event: run\ndata: {"run_id": "…", "thread_id": "…"}\n\n'
            'event: token\ndata: {"text": "Encontrei"}\n\nevent: done\ndata: {}\n\n',
        }
    },
}
EVENT_SCHEMAS = "#/components/schemas/{model}"


def document_events(app: FastAPI) -> None:
    """Add the event models to the app's OpenAPI components, as `Event` (a `oneOf` told apart
    by `event`) and one schema per model: the chat route's `text/event-stream` response
    refers to `Event`, which FastAPI would otherwise document only for a JSON response."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            document = build()  # FastAPI's document, cached on the app
            union = EVENTS.json_schema(ref_template=EVENT_SCHEMAS)
            models = union.pop("$defs")
            components = document.setdefault("components", {}).setdefault("schemas", {})
            components.update({**models, "Event": union})
        return app.openapi_schema or {}

    app.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented override


CHAT_BODY = {
    "required": True,
    "content": {"application/json": {"schema": ChatRequest.model_json_schema()}},
}


def invalid(code: str, message: str) -> HTTPException:
    return HTTPException(422, {"code": code, "message": message})


async def read_chat_request(request: Request) -> ChatRequest:
    """The body, parsed and validated here so that authentication never waits for it."""
    try:
        raw = await request.body()  # bounded by the body limit
    except ClientDisconnect:
        raise HTTPException(
            400, {"code": "CLIENT_DISCONNECTED", "message": "the request body was not finished"}
        ) from None
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise invalid("INVALID_REQUEST", f"the body is not JSON: {exc}") from None
    except RecursionError:
        raise invalid("INVALID_REQUEST", "the body nests too deeply") from None
    try:
        return ChatRequest.model_validate(data)
    except ValidationError as exc:
        raise invalid(*invalid_input(exc.errors())) from None
    except RecursionError:
        raise invalid("INVALID_REQUEST", "the body nests too deeply") from None


@router.post(
    "/v1/chat/stream",
    tags=["chat"],
    summary="Ask; the answer streams as SSE events",
    openapi_extra={"requestBody": CHAT_BODY},
    response_class=EventSourceResponse,
    responses={200: EVENT_STREAM, **errors(401, 404, 409, 413, 422, 429, 503)},
)
async def chat_stream(request: Request, caller: CurrentCaller) -> EventSourceResponse:
    app = request.app
    settings: Settings = app.state.settings
    app.state.drain.refuse_when_draining()  # 503 before anything is read or written
    body = await read_chat_request(request)
    if len(body.message) > settings.limits.max_message_chars:
        raise HTTPException(
            413,
            {
                "code": "MESSAGE_TOO_LONG",
                "message": f"messages are limited to {settings.limits.max_message_chars}"
                " characters",
            },
        )
    context = RunContext.from_settings(settings, tenant=caller.tenant, user=caller.user)
    thread = await _thread_for(app, caller, body.thread_id, body.message)  # 404 / 503
    reservation = await Reservation.take(app, caller.tenant, thread["thread_id"])  # 429 / 409
    try:
        if thread["checkpoint_id"]:
            # Ours now: whatever a failed attempt left on the committed checkpoint must not
            # replay (a database that is down is a 503 here).
            async with database_work(db_timeout(app), "preparing the thread"):
                await app.state.graph.checkpointer.discard_failed_writes(
                    thread["thread_id"], thread["checkpoint_id"]
                )
    except BaseException:
        await reservation.release()
        raise
    return TurnResponse(
        _events(app, caller, body.message, thread, context, reservation),
        reservation=reservation,
        ping=15,
        send_timeout=30,
    )


@dataclass
class Reservation:
    """A tenant's run slot and a thread's turn, held from the request until the stream ends:
    a lease in the state database (`server.run_leases`), so the limits hold across replicas.

    Released exactly once, whichever way the stream ends — including a stream that never
    starts (the client left before the response did), whose generator never runs. The
    server's drain (`server.shutdown`) counts the turn from its lease to its release."""

    leases: RunLeases
    run_id: str
    drain: Drain
    released: bool = False

    @classmethod
    async def take(cls, app: Any, tenant: str, thread_id: str) -> Reservation:
        """The tenant's slot and the thread's turn: 429 past the limit, 409 while the thread
        is answering (whichever replica runs it); nothing else is written when refused."""
        leases: RunLeases = app.state.leases
        drain: Drain = app.state.drain
        drain.admit()  # 503 once the server is shutting down
        try:
            run_id = await leases.take(tenant, app.state.settings.max_runs_per_tenant, thread_id)
        except LeaseRefused as refused:
            drain.leave()
            raise _lease_refused(refused) from None
        except BaseException:
            drain.leave()
            raise
        ACTIVE_STREAMS.inc()
        return cls(leases, run_id, drain)

    async def release(self) -> None:
        if self.released:
            return
        self.released = True
        ACTIVE_STREAMS.dec()
        self.drain.leave()
        # Shielded: a stream ends by cancellation when its client leaves, and the slot must
        # still be given back (if the database is away, the lease expires by itself).
        with anyio.CancelScope(shield=True):
            await self.leases.give_back(self.run_id)


def _lease_refused(refused: LeaseRefused) -> HTTPException:
    """409 while the thread is answering, 429 past the tenant's limit."""
    if refused.code == "THREAD_BUSY":
        busy = "this thread is still answering; wait for it"
        return HTTPException(409, {"code": "THREAD_BUSY", "message": busy})
    return HTTPException(
        429,
        {"code": "TOO_MANY_RUNS", "message": "too many questions at once for this account"},
        headers={"Retry-After": str(RETRY_AFTER_S)},
    )


class TurnResponse(EventSourceResponse):
    """The SSE response of a turn: its reservation is released when the response ends,
    even when the event generator never started."""

    def __init__(self, *args: Any, reservation: Reservation, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.reservation = reservation

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.reservation.release()


async def _thread_for(
    app: Any, caller: Caller, thread_id: str | None, message: str
) -> dict[str, Any]:
    """The thread to answer on (`thread_id`, `title`, `checkpoint_id`), or 404.

    Either way the database answers first: one that is down is a 503 now, not a stream that
    can only fail."""
    store: ThreadStore = app.state.threads
    if thread_id is None:
        await store.ping()
        return {"thread_id": new_thread_id(), "title": message, "checkpoint_id": None}
    found = await store.owned(caller, thread_id)
    if found is None:
        raise HTTPException(404, {"code": "THREAD_NOT_FOUND", "message": "no such thread"})
    return found


async def _events(
    app: Any,
    caller: Caller,
    message: str,
    thread: dict[str, Any],
    context: RunContext,
    reservation: Reservation,
) -> AsyncIterator[dict[str, str]]:
    """The run's events as SSE; a client that goes away cancels the run (and its query)."""
    started = time.perf_counter()
    thread_id = thread["thread_id"]
    failed = False
    try:
        # aclosing: when the client goes away this generator is closed, and so must the run's
        # (an inner async generator is not closed with its consumer).
        # `run_turn` is an async generator, though annotated as an iterator only.
        turn = cast(
            "AsyncGenerator[Event, None]",
            run_turn(
                app.state.graph,
                message,
                thread_id=thread_id,
                context=context,
                checkpoint_id=thread["checkpoint_id"],
            ),
        )
        drain: Drain = app.state.drain
        ended = False
        run_id, result = "", None
        async with aclosing(turn) as events, aclosing(drain.until_cut(events)) as running:
            async for event in running:
                ended = event.event == "done"
                failed = failed or event.event == "error"
                if isinstance(event, RunEvent):
                    run_id = event.data.run_id
                elif isinstance(event, ResultEvent):
                    result = event.data
                if ended and not failed:
                    failure, values = await _commit(app, caller, thread)
                    if failure is not None:
                        yield _sse(failure)
                    elif result is not None:
                        await _record(app, caller, thread, run_id, message, values, result)
                yield _sse(event)
        if not ended:  # the drain cut the turn: it ends as a failed one, and is not kept
            failed = True
            yield _sse(_shutting_down(message))
            yield _sse(DoneEvent())
    finally:
        await reservation.release()
        log.info(
            "stream ended",
            extra={
                "thread_id": thread_id,
                "tenant": context.tenant,
                "failed": failed,
                "ms": round((time.perf_counter() - started) * 1000),
            },
        )


def _shutting_down(message: str) -> ErrorEvent:
    """The error a turn cut by the server's drain ends with, in the question's language."""
    RUN_ERRORS.labels(code="SHUTTING_DOWN").inc()
    text = say("server.SHUTTING_DOWN", detect_language(message))
    return ErrorEvent(data=ErrorData(code="SHUTTING_DOWN", message=text))


def db_timeout(app: Any) -> float:
    settings: Settings = app.state.settings
    return settings.limits.database_timeout_s


async def _commit(
    app: Any, caller: Caller, thread: dict[str, Any]
) -> tuple[ErrorEvent | None, dict[str, Any]]:
    """Commit the turn that just ended well: the error event if that failed, and the turn's
    state."""
    try:
        async with database_work(db_timeout(app), "reading the turn's checkpoint"):
            snapshot = await app.state.graph.aget_state(thread_config(thread["thread_id"]))
        committed = await app.state.threads.commit(
            caller,
            thread["thread_id"],
            thread["title"],
            snapshot.config["configurable"]["checkpoint_id"],
            previous=thread["checkpoint_id"],
        )
    except DatabaseUnavailable as exc:
        return ErrorEvent(data=user_error(exc, thread["thread_id"])), {}
    if not committed:
        busy = (
            "the thread changed while this answer was written (another answer was saved"
            " first, or the thread was deleted); this one was not kept"
        )
        return ErrorEvent(data=ErrorData(code="THREAD_BUSY", message=busy)), {}
    return None, snapshot.values


async def _record(
    app: Any,
    caller: Caller,
    thread: dict[str, Any],
    run_id: str,
    message: str,
    values: dict[str, Any],
    result: ResultData,
) -> None:
    """Keep the committed turn for feedback and review (`server.review`). The answer is
    already the person's: a failure here is logged, never theirs."""
    try:
        await app.state.review.record(
            caller,
            thread_id=thread["thread_id"],
            run_id=run_id,
            message=message,
            rewritten=values.get("question"),
            lang=values.get("lang"),
            result=result,
        )
    except DatabaseUnavailable:
        log.warning("the turn was not recorded for review", extra={"run_id": run_id})


def _sse(event: TurnEvent) -> dict[str, str]:
    """An event as sse-starlette sends it. `json.dumps` of the data as the model holds it
    (not pydantic's JSON): the bytes stay what clients have always received."""
    data = json.dumps(event.payload(), default=str, ensure_ascii=False)
    return {"event": event.event, "data": data}


@router.get(
    "/v1/threads",
    tags=["threads"],
    summary="The caller's threads, newest first",
    responses=errors(401, 503),
)
async def list_threads(request: Request, caller: CurrentCaller) -> dict[str, Any]:
    return {"threads": await request.app.state.threads.listed(caller)}


@router.get(
    "/v1/threads/{thread_id}",
    tags=["threads"],
    summary="One thread's messages",
    responses=errors(401, 404, 503),
)
async def get_thread(request: Request, thread_id: str, caller: CurrentCaller) -> dict[str, Any]:
    app = request.app
    row = await app.state.threads.owned(caller, thread_id)
    if row is None:
        raise HTTPException(404, {"code": "THREAD_NOT_FOUND", "message": "no such thread"})
    async with database_work(app.state.settings.limits.database_timeout_s, "reading the thread"):
        state = await app.state.graph.aget_state(thread_config(thread_id, row["checkpoint_id"]))
    messages = [
        {"role": "user" if m.type == "human" else "assistant", "content": m.content}
        for m in state.values.get("messages", [])
    ]
    return {
        "thread_id": thread_id,
        "title": row["title"],
        "messages": messages,
        "pending_question": pending_question(state),
    }
