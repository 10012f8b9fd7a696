"""The HTTP service: streamed chat over Server-Sent Events, threads, health, metrics, web chat.

`create_app()` builds the FastAPI app; its lifespan opens the database pools, the embedding
and analysis resources, the PostgreSQL checkpointer and the compiled graph, and closes them.
"""

from __future__ import annotations

import json
import logging
import time
from collections import defaultdict
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, aclosing, asynccontextmanager
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, generate_latest
from pydantic import BaseModel, Field
from sse_starlette.sse import EventSourceResponse

from graph.checkpoints import postgres_checkpointer
from graph.context import RunContext
from graph.events import pending_question, run_turn
from graph.resources import close_resources, open_resources
from graph.wiring import build_graph
from server import threads, web
from server.auth import CurrentCaller, mint_token
from server.database import admin_url
from server.settings import Settings

log = logging.getLogger("orquestra.server")
REQUESTS = Counter("orquestra_http_requests_total", "HTTP requests", ["path", "status"])
ACTIVE_STREAMS = Gauge("orquestra_active_streams", "Chat streams in progress")


class ChatRequest(BaseModel):
    """A message, on a new thread (`thread_id` null) or an existing one of the caller's."""

    message: str = Field(description="The user's message, in Portuguese or English.")
    thread_id: str | None = Field(None, max_length=64)


class DevLogin(BaseModel):
    tenant: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    async with AsyncExitStack() as stack:
        resources = await open_resources(settings)
        stack.push_async_callback(close_resources)
        await threads.ensure_table(resources.admin_pool)
        saver = await stack.enter_async_context(postgres_checkpointer(admin_url(settings)))
        app.state.resources = resources
        app.state.graph = build_graph().compile(checkpointer=saver)
        yield


def create_app(settings: Settings | None = None, *, dev_login: bool = False) -> FastAPI:
    """The app. `dev_login` adds `POST /v1/dev/token`, which mints a token for any tenant
    without authentication: only `orquestra demo` (or `serve --dev-login`) turns it on."""
    app = FastAPI(
        title="Orquestra",
        version="0.1.0",
        lifespan=lifespan,
        description="Text-to-SQL for multi-tenant PostgreSQL, streamed.",
    )
    app.state.settings = settings or Settings()
    app.state.running = defaultdict(int)
    app.state.dev_login = dev_login
    _errors(app)
    _routes(app)
    if dev_login:
        _dev_login_route(app)
    web.mount(app)

    @app.middleware("http")
    async def count(request: Request, call_next):
        response = await call_next(request)
        route = request.scope.get("route")
        REQUESTS.labels(path=getattr(route, "path", "other"), status=response.status_code).inc()
        return response

    return app


def _errors(app: FastAPI) -> None:
    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        body = (
            exc.detail
            if isinstance(exc.detail, dict)
            else {"code": "HTTP_ERROR", "message": str(exc.detail)}
        )
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return JSONResponse(
            {"code": "INVALID_REQUEST", "message": f"{where}: {first.get('msg')}"}, status_code=422
        )

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> JSONResponse:
        log.error("request failed", exc_info=exc)
        return JSONResponse(
            {"code": "INTERNAL", "message": "something went wrong; it was logged"}, status_code=500
        )


def _routes(app: FastAPI) -> None:
    @app.post("/v1/chat/stream", tags=["chat"], summary="Ask; the answer streams as SSE events")
    async def chat_stream(body: ChatRequest, caller: CurrentCaller, request: Request):
        settings: Settings = app.state.settings
        pool = app.state.resources.admin_pool
        if len(body.message) > settings.limits.max_message_chars:
            raise HTTPException(
                413,
                {
                    "code": "MESSAGE_TOO_LONG",
                    "message": f"messages are limited to {settings.limits.max_message_chars}"
                    " characters",
                },
            )
        if body.thread_id is not None:
            if await threads.owned(pool, caller, body.thread_id) is None:
                raise HTTPException(404, {"code": "THREAD_NOT_FOUND", "message": "no such thread"})
            thread_id = body.thread_id
        else:
            thread_id = await threads.create(pool, caller, body.message.strip() or "…")
        if app.state.running[caller.tenant] >= settings.max_runs_per_tenant:
            raise HTTPException(
                429,
                {
                    "code": "TOO_MANY_RUNS",
                    "message": "too many questions at once for this account; try again",
                },
            )
        app.state.running[caller.tenant] += 1
        ACTIVE_STREAMS.inc()
        context = RunContext.from_settings(settings, tenant=caller.tenant, user=caller.user)
        return EventSourceResponse(
            _events(app, body.message, thread_id, context), ping=15, send_timeout=30
        )

    @app.get("/v1/threads", tags=["threads"], summary="The caller's threads, newest first")
    async def list_threads(caller: CurrentCaller) -> dict[str, Any]:
        return {"threads": await threads.listed(app.state.resources.admin_pool, caller)}

    @app.get("/v1/threads/{thread_id}", tags=["threads"], summary="One thread's messages")
    async def get_thread(thread_id: str, caller: CurrentCaller) -> dict[str, Any]:
        row = await threads.owned(app.state.resources.admin_pool, caller, thread_id)
        if row is None:
            raise HTTPException(404, {"code": "THREAD_NOT_FOUND", "message": "no such thread"})
        graph = app.state.graph
        state = (await graph.aget_state({"configurable": {"thread_id": thread_id}})).values
        messages = [
            {"role": "user" if m.type == "human" else "assistant", "content": m.content}
            for m in state.get("messages", [])
        ]
        return {
            "thread_id": thread_id,
            "title": row["title"],
            "messages": messages,
            "pending_question": await pending_question(graph, thread_id),
        }

    @app.get("/healthz", tags=["ops"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", tags=["ops"])
    async def readyz() -> JSONResponse:
        checks = await _readiness(app)
        ok = all(v == "ok" for v in checks.values())
        return JSONResponse(
            {"status": "ok" if ok else "unavailable", **checks}, status_code=200 if ok else 503
        )

    @app.get("/metrics", tags=["ops"])
    async def metrics() -> Response:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    @app.get("/v1/auth/options", tags=["auth"], summary="How a person signs in here")
    async def auth_options() -> dict[str, bool]:
        return {"dev_login": app.state.dev_login}


def create_dev_app() -> FastAPI:
    """The demo's app: `create_app` with the token-minting login (uvicorn factory)."""
    return create_app(dev_login=True)


def _dev_login_route(app: FastAPI) -> None:
    @app.post("/v1/dev/token", tags=["demo"], summary="Demo only: a token for any tenant")
    async def dev_token(body: DevLogin) -> dict[str, str]:
        settings: Settings = app.state.settings
        return {
            "token": mint_token(settings, body.tenant, f"demo-{body.tenant}"),
            "tenant": body.tenant,
        }


async def _events(app: FastAPI, message: str, thread_id: str, context: RunContext):
    """The run's events as SSE; a client that goes away cancels the run (and its query)."""
    started = time.perf_counter()
    try:
        # aclosing: when the client goes away this generator is closed, and so must the run's
        # (an inner async generator is not closed with its consumer).
        turn = run_turn(app.state.graph, message, thread_id=thread_id, context=context)
        async with aclosing(turn) as events:
            async for event in events:
                yield {
                    "event": event["event"],
                    "data": json.dumps(event["data"], default=str, ensure_ascii=False),
                }
        await threads.touch(app.state.resources.admin_pool, thread_id)
    finally:
        app.state.running[context.tenant] -= 1
        ACTIVE_STREAMS.dec()
        log.info(
            "stream ended",
            extra={
                "thread_id": thread_id,
                "tenant": context.tenant,
                "ms": round((time.perf_counter() - started) * 1000),
            },
        )


async def _readiness(app: FastAPI) -> dict[str, str]:
    from graph.models import model_for

    checks = {}
    try:
        async with app.state.resources.agent_pool.acquire() as conn:
            await conn.fetchval("SELECT 1")
        checks["database"] = "ok"
    except Exception as exc:  # reported, not raised: this is the readiness probe
        checks["database"] = f"unavailable: {type(exc).__name__}"
    try:
        model_for("router", RunContext(), app.state.settings)
        checks["model"] = "ok"
    except Exception as exc:
        checks["model"] = f"unavailable: {type(exc).__name__}"
    return checks
