"""Who may read the metrics: operators. One rule for every place that serves them.

A turn's counter changes tell its route, its SQL attempts, each stage's time, the question's
length and the tables chosen, so the metrics are never a tenant's to read. `orquestra serve`
serves them on a listener of their own (`server.metrics_listener`), and LangGraph Server's
own `/metrics` is gated (`agent.metrics_gate`); both ask `metrics_refusal` whether a request may
read them: with `metrics_token` set, only `Authorization: Bearer <token>` may.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from typing import Literal

from pydantic import SecretStr
from starlette.responses import JSONResponse
from starlette.types import Scope

METRICS_PATH = "/metrics"
WithoutToken = Literal["open", "hidden"]
"""What a request meets when no token is configured: `open` (the listener, on an address the
operator chose) or `hidden` (a public server's route: 404, as if it did not exist)."""


def metrics_refusal(
    scope: Scope, token: SecretStr | None, without_token: WithoutToken
) -> JSONResponse | None:
    """The response that refuses this request the metrics, or `None` when it may read them.

    >>> scope = {"headers": [(b"authorization", b"Bearer s3cret")]}
    >>> metrics_refusal(scope, SecretStr("s3cret"), "hidden") is None
    True
    >>> metrics_refusal({"headers": []}, SecretStr("s3cret"), "open").status_code
    401
    >>> metrics_refusal(scope, None, "hidden").status_code, metrics_refusal(scope, None, "open")
    (404, None)
    """
    if token is None:
        if without_token == "open":
            return None
        return _error(404, "NOT_FOUND", "Not Found")
    presented = _bearer(scope)
    if presented is None:
        return _error(
            401, "METRICS_TOKEN_MISSING", "the metrics need Authorization: Bearer <metrics token>"
        )
    if not hmac.compare_digest(presented, token.get_secret_value().encode()):
        return _error(401, "METRICS_TOKEN_INVALID", "the metrics token is not valid")
    return None


def _bearer(scope: Scope) -> bytes | None:
    headers: Iterable[tuple[bytes, bytes]] = scope.get("headers", ())
    for name, value in headers:
        if name == b"authorization":
            scheme, _, credentials = value.partition(b" ")
            if scheme.lower() == b"bearer" and credentials.strip():
                return credentials.strip()
            return None
    return None


def _error(status: int, code: str, message: str) -> JSONResponse:
    headers = {"WWW-Authenticate": 'Bearer realm="metrics"'} if status == 401 else None
    return JSONResponse({"code": code, "message": message}, status_code=status, headers=headers)
