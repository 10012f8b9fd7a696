"""The graph LangGraph Server serves (`langgraph dev`, Studio, the SDK, LangGraph Platform),
and the app whose lifespan opens its resources at start-up (both named in `langgraph.json`).

The server builds the graph at import and supplies the checkpointer; its custom app's
lifespan (`http.app`) is the start-up hook, so the resources open there, before the server
accepts a request, and the first run does not pay for them (`OnFirstRun` still opens them
on a run whose event loop has none: a worker on a loop of its own). Who asks comes only from
the verified token (`agent.auth`): `caller_context` puts the authenticated user's tenant and
user into every stage's run context, whatever the client's context said.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware

from orquestra.agent.doorkeeper import TENANT, claim, current_doorkeeper
from orquestra.agent.metrics_gate import MetricsForOperators
from orquestra.agent.wiring import build_graph
from orquestra.core.settings import Settings
from orquestra.graph.context import RunContext
from orquestra.graph.resources import OnFirstRun

log = logging.getLogger("orquestra.studio")


def caller_context(context: RunContext, user: Any, settings: Settings) -> RunContext:
    """The run's context as the authenticated `user` (LangGraph Server's
    `langgraph_auth_user`) may run it: its tenant and user, never the client's; without an
    authenticated tenant, no tenant at all (no data is read). A tenant that must have its
    personal data masked has it masked, whatever the context asks. In production mode the
    models, caps and limits are the server's settings, not the caller's (in demo mode Studio
    may try others)."""
    tenant, name = claim(user, TENANT), claim(user, "user")
    tenant_settings = settings.tenants.get(tenant)
    masked = bool(tenant_settings and tenant_settings.mask_personal_data)
    run = replace(
        context, tenant=tenant, user=name, mask_personal_data=context.mask_personal_data or masked
    )
    if settings.mode != "production":
        return run
    return replace(
        run,
        models={},
        caps=settings.caps.model_copy(),
        limits=settings.limits.model_copy(),
        analysis_code_mode=settings.analysis_code_mode,
    )


resources = OnFirstRun()
graph = build_graph(resources, identity=caller_context).compile(name="orquestra")


@asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    """Open the resources (and read the token settings) before the first request."""
    started = time.perf_counter()
    await current_doorkeeper()  # an invalid setting (dev mode in production) stops start-up
    await resources()
    log.info("resources opened at start-up in %.1f s", time.perf_counter() - started)
    try:
        yield
    finally:
        await asyncio.shield(resources.close())


# The custom app's middleware runs before LangGraph Server's own routes, `/metrics` too.
app = Starlette(lifespan=lifespan, middleware=[Middleware(MetricsForOperators)])
