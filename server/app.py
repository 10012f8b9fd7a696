"""The HTTP service: streamed chat over Server-Sent Events, threads, health, web chat.

`create_app()` builds the FastAPI app; its lifespan opens the database pools, the embedding
and analysis resources, the PostgreSQL checkpointer and the compiled graph, and closes them;
while it serves, SIGTERM first drains the running turns (`server.shutdown`).
The metrics are not served here (`/metrics` is a 404): they are for operators only, on the
listener `orquestra serve` starts apart (`server.metrics_listener`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from orquestra.agent.wiring import build_graph
from orquestra.core.database import LOST_CONNECTION, database_work, is_unavailable, state_url
from orquestra.core.settings import Settings
from orquestra.graph.checkpoints import postgres_checkpointer
from orquestra.graph.context import RunContext
from orquestra.graph.resources import Resources
from orquestra.guards.rails import Guardrails
from orquestra.guards.tenant_key import InvalidTenant, deployment_key
from orquestra.server import chat, review_routes, thread_routes, web
from orquestra.server.auth import TokenRefused, mint_token
from orquestra.server.middleware import RETRY_AFTER_S, BodyLimit, RequestMetrics, error_response
from orquestra.server.retention import Pruner
from orquestra.server.review import ReviewStore
from orquestra.server.run_leases import RunLeases
from orquestra.server.schemas import DevLogin, invalid_input
from orquestra.server.shutdown import Drain
from orquestra.server.threads import ThreadStore, thread_scope

log = logging.getLogger("orquestra.server")
HTTP_CODES = {400: "BAD_REQUEST", 404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    settings: Settings = app.state.settings
    async with AsyncExitStack() as stack:
        resources = await Resources.open(settings, guardrails=app.state.guardrails)
        app.state.guardrails = None  # the resources hold them now
        stack.push_async_callback(resources.close)
        scope = await asyncio.to_thread(thread_scope, settings)
        app.state.threads = ThreadStore(resources.state, settings.limits.database_timeout_s, scope)
        await app.state.threads.ensure_table()
        app.state.review = ReviewStore(resources.state, settings.limits.database_timeout_s, scope)
        await app.state.review.ensure_tables()
        app.state.leases = RunLeases(
            resources.state,
            ttl_s=settings.run_lease_s,
            timeout_s=settings.limits.database_timeout_s,
            scope=scope,
        )
        await app.state.leases.ensure_table()
        app.state.leases.start()
        stack.push_async_callback(app.state.leases.stop)
        saver = await stack.enter_async_context(
            postgres_checkpointer(state_url(settings), settings.limits.database_timeout_s)
        )
        # After the checkpointer: its tables exist. One replica at a time prunes.
        app.state.pruner = Pruner.of(resources.state, settings, scope)
        if settings.thread_prune_interval_s > 0:
            app.state.pruner.start(settings.thread_prune_interval_s)
            stack.push_async_callback(app.state.pruner.stop)
        app.state.resources = resources
        app.state.tenant_key = deployment_key(resources.catalog, resources.profile)
        app.state.graph = build_graph(resources).compile(checkpointer=saver)
        app.state.drain = Drain(settings.drain_s)
        # Last in, first out: the signals are handed back before anything above closes.
        stack.enter_context(app.state.drain.on_signals())
        yield


def create_app(
    settings: Settings | None = None,
    *,
    dev_login: bool = False,
    guardrails: Guardrails | None = None,
) -> FastAPI:
    """The app. `dev_login` adds `POST /v1/dev/token`, which mints a token for any tenant
    without authentication: only `orquestra demo` (or `serve --dev-login`) turns it on.
    `guardrails` already loaded from the settings' file are used rather than read again."""
    app = FastAPI(
        title="Orquestra",
        version="0.1.0",
        lifespan=lifespan,
        description="Text-to-SQL for multi-tenant PostgreSQL, streamed.",
    )
    settings = settings or Settings()
    if dev_login and settings.mode == "production":
        raise ValueError("the dev login mints tokens for any tenant; it is refused in production")
    app.state.settings = settings
    app.state.dev_login = dev_login
    app.state.guardrails = guardrails
    _errors(app)
    app.include_router(chat.router)
    app.include_router(thread_routes.router)
    app.include_router(review_routes.router)
    chat.document_events(app)
    _routes(app)
    if dev_login:
        _dev_login_route(app)
    web.mount(app)
    # The last added is the outermost: metrics see every response, the 413s included.
    app.add_middleware(BodyLimit, max_bytes=settings.limits.max_body_bytes)
    app.add_middleware(RequestMetrics)
    return app


def _errors(app: FastAPI) -> None:
    """Every failure is `{code, message}` with a status, counted by code; never a trace."""

    @app.exception_handler(StarletteHTTPException)  # the router's 404 and 405 too
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if isinstance(exc.detail, dict):
            code, message = exc.detail["code"], exc.detail["message"]
        else:
            code, message = HTTP_CODES.get(exc.status_code, "HTTP_ERROR"), str(exc.detail)
        return error_response(request.scope, exc.status_code, code, message, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(request.scope, 422, *invalid_input(list(exc.errors())))

    async def unavailable(request: Request, exc: Exception) -> JSONResponse:
        log.warning("database unavailable", exc_info=exc)
        return error_response(
            request.scope,
            503,
            "DB_UNAVAILABLE",
            "the database is unavailable right now; try again soon",
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )

    for lost in LOST_CONNECTION:
        app.add_exception_handler(lost, unavailable)

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception) -> JSONResponse:
        if is_unavailable(exc):  # a lost connection behind another error
            return await unavailable(request, exc)
        log.error("request failed", exc_info=exc)
        return error_response(request.scope, 500, "INTERNAL", "something went wrong; it was logged")


def _routes(app: FastAPI) -> None:
    @app.get("/healthz", tags=["ops"])
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", tags=["ops"])
    async def readyz() -> JSONResponse:
        if app.state.drain.draining:  # at once: a load balancer stops sending turns here
            return JSONResponse({"status": "shutting_down"}, status_code=503)
        checks = await _readiness(app)
        ok = all(v == "ok" for v in checks.values())
        return JSONResponse(
            {"status": "ok" if ok else "unavailable", **checks}, status_code=200 if ok else 503
        )

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
        try:
            tenant = app.state.tenant_key.canonical(body.tenant)
            user = f"demo-{tenant}" if app.state.tenant_key.has_tenants else "demo"
            return {"token": mint_token(settings, tenant, user), "tenant": tenant}
        except InvalidTenant as exc:
            raise HTTPException(422, {"code": "INVALID_TENANT", "message": str(exc)}) from None
        except TokenRefused as exc:
            raise HTTPException(409, {"code": exc.code, "message": exc.message}) from None


async def _readiness(app: FastAPI) -> dict[str, str]:

    checks = {}
    try:
        async with database_work(app.state.settings.limits.database_timeout_s, "readiness"):
            await app.state.resources.agent_pool.fetchval("SELECT 1")
        checks["database"] = "ok"
    except Exception as exc:  # reported, not raised: this is the readiness probe
        checks["database"] = f"unavailable: {type(exc).__name__}"
    checks["model"] = await _models_ready(app.state.settings)
    return checks


async def _models_ready(settings: Settings) -> str:
    """`ok` when every role's model can be built and its credentials are not refused."""
    from orquestra.graph.context import ROLES
    from orquestra.graph.model_health import credentials
    from orquestra.graph.models import model_for

    seen: set[int] = set()
    for role in ROLES:
        try:
            model = model_for(role, RunContext(), settings)
        except Exception as exc:  # reported, not raised: this is the readiness probe
            return f"unavailable ({role}): {type(exc).__name__}"
        if id(model) in seen:
            continue
        seen.add(id(model))
        status = await credentials(model)
        if status != "ok":
            return f"{status} ({role})"
    return "ok"
