"""The server's outer layers, as plain ASGI: a body size limit, request metrics, headers.

They are pure ASGI rather than `BaseHTTPMiddleware` so that a request body is never
buffered on its way through, and so that a request that ends in an exception (a 500) is
still seen and counted.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import HTTPException
from prometheus_client import Counter
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("orquestra.server")
REQUESTS = Counter("orquestra_http_requests_total", "HTTP requests", ["path", "status"])
HTTP_ERRORS = Counter(
    "orquestra_http_errors_total", "HTTP error responses by code", ["path", "status", "code"]
)
RETRY_AFTER_S = 5
"""What `Retry-After` tells a client refused for load (429) or a lost database (503)."""
BASE_HEADERS = [(b"x-content-type-options", b"nosniff")]
"""Sent on every response: browsers must never guess a JSON or event stream's type."""


def route_path(scope: Scope) -> str:
    """The matched route's template (`/v1/threads/{thread_id}`), never the raw URL: metric
    labels must stay few whatever clients send."""
    route = scope.get("route")
    return getattr(route, "path", None) or "other"


def error_response(
    scope: Scope,
    status: int,
    code: str,
    message: str,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """The JSON error body every failure uses (`{code, message}`), counted by code."""
    HTTP_ERRORS.labels(path=route_path(scope), status=status, code=code).inc()
    return JSONResponse({"code": code, "message": message}, status_code=status, headers=headers)


class BodyTooLarge(HTTPException):
    """The request body passed the limit while it was being read (an `HTTPException`, so the
    framework's body reading lets it through to the error handlers as it is). FastAPI's
    subclass of Starlette's, whose `detail` may be the `{code, message}` the handlers read."""

    code = "BODY_TOO_LARGE"

    def __init__(self, max_bytes: int) -> None:
        self.message = f"request bodies are limited to {max_bytes} bytes"
        super().__init__(
            413, {"code": self.code, "message": self.message}, headers={"Connection": "close"}
        )


class BodyLimit:
    """Refuse a body above `max_bytes` with 413, before reading it when `Content-Length`
    says so, and as soon as the streamed (chunked) size passes the limit otherwise."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.max_bytes:
            await self._refuse(scope, receive, send)
            return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except BodyTooLarge:
            if started:
                raise
            await self._refuse(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused = BodyTooLarge(self.max_bytes)
        response = error_response(
            scope, 413, refused.code, refused.message, headers=refused.headers
        )
        await response(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", ()):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


class RequestMetrics:
    """Count every response by route and status, 500s included, and add `BASE_HEADERS`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status: dict[str, Any] = {}

        async def counted_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                message["headers"] = [*message.get("headers", ()), *BASE_HEADERS]
            await send(message)

        try:
            await self.app(scope, receive, counted_send)
        except Exception:
            # The error handler outside this layer answers 500; count it here.
            REQUESTS.labels(path=route_path(scope), status=500).inc()
            raise
        REQUESTS.labels(path=route_path(scope), status=status.get("code", 500)).inc()
