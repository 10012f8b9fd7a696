"""LangGraph Server's `/metrics`, for operators only.

LangGraph Server serves `GET /metrics` itself, without authentication, from the process's
Prometheus registry, which holds Orquestra's counters too (a turn's route, SQL attempts,
stage times, prompt sizes). The server lets no custom route shadow it, but a custom app's
middleware runs before every route, so this one stands in front of it: with
`ORQUESTRA_METRICS_TOKEN` set, only `Authorization: Bearer <token>` passes; without it, the
route answers 404 as if it did not exist (`core.metrics_access`, the rule `orquestra serve`'s
metrics listener follows too).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from orquestra.agent.doorkeeper import current_doorkeeper
from orquestra.core.metrics_access import METRICS_PATH, metrics_refusal


class MetricsForOperators:
    """ASGI middleware: `/metrics` (any method, with or without a trailing slash) only to
    the holder of the metrics token; every other request passes untouched."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].rstrip("/") == METRICS_PATH:
            token = (await current_doorkeeper()).settings.metrics_token
            refusal = metrics_refusal(scope, token, "hidden")
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)
