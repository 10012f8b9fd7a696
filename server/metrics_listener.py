"""The operators' metrics listener: Prometheus metrics on an address and port of their own.

The public server never serves `/metrics`: one turn's counter changes tell its route, its SQL
attempts, each stage's time, the question's length and the tables chosen. `orquestra serve`
starts this listener instead (`metrics_host`:`metrics_port`, loopback by default, a bearer
token when `metrics_token` is set; `core.metrics_access`): prometheus_client's ASGI app,
served by uvicorn on a thread of the serving process, on a socket bound before the public
server starts, so a port that is taken stops `serve` with a named error.

Several workers (`serve --workers N`) are processes of their own, each counting apart, and
only one process can listen on a port. So the listener stays in the parent, which serves no
request, and reads every worker's counters through prometheus_client's multiprocess mode:
`PROMETHEUS_MULTIPROC_DIR` names a fresh folder before the workers start, each worker writes
its values there, and `MultiProcessCollector` adds them up. A scrape sees the replica as one
target, whatever N is (no port per worker for Prometheus to know), and a worker uvicorn
restarts keeps adding to the same sums. With one worker the app runs in the serving process
and the listener reads its registry directly.
"""

from __future__ import annotations

import logging
import os
import shutil
import socket
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager

import uvicorn
from prometheus_client import REGISTRY, CollectorRegistry, make_asgi_app
from prometheus_client.multiprocess import MultiProcessCollector
from pydantic import SecretStr
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from orquestra.core.errors import OrquestraError
from orquestra.core.metrics_access import METRICS_PATH, metrics_refusal
from orquestra.core.settings import Settings, is_loopback

log = logging.getLogger("orquestra.server")
MULTIPROCESS_ENV = "PROMETHEUS_MULTIPROC_DIR"
"""prometheus_client's multiprocess mode: where each worker process writes its values."""


class MetricsUnavailable(OrquestraError):
    """The metrics listener cannot start where the settings put it."""

    code = "METRICS_UNAVAILABLE"


def metrics_url(settings: Settings) -> str:
    """Where operators read the metrics (`http://127.0.0.1:9464/metrics` by default)."""
    host = f"[{settings.metrics_host}]" if ":" in settings.metrics_host else settings.metrics_host
    return f"http://{host}:{settings.metrics_port}{METRICS_PATH}"


def metrics_app(registry: CollectorRegistry, token: SecretStr | None) -> ASGIApp:
    """`GET /metrics` from `registry`, to whoever holds `token` (anyone, without one); 404
    elsewhere."""
    exposition = make_asgi_app(registry)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        refusal: JSONResponse | None
        if scope["path"] != METRICS_PATH:
            refusal = JSONResponse({"code": "NOT_FOUND", "message": "Not Found"}, 404)
        else:
            refusal = metrics_refusal(scope, token, "open")
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await exposition(scope, receive, send)

    return app


@contextmanager
def operator_metrics(settings: Settings, *, workers: int, public_port: int) -> Iterator[None]:
    """The metrics listener, serving while the block runs (nothing when it is turned off).
    Raises `MetricsUnavailable` before anything is served when it cannot listen."""
    if not settings.metrics_enabled:
        yield
        return
    if settings.metrics_port == public_port:
        raise MetricsUnavailable(
            "METRICS_PORT_CLASH",
            f"ORQUESTRA_METRICS_PORT={public_port} is the public server's port too: the"
            " metrics need a port of their own",
        )
    with ExitStack() as stack:
        registry = stack.enter_context(_workers_registry()) if workers > 1 else REGISTRY
        sock = _listen(settings.metrics_host, settings.metrics_port)
        stack.callback(_serve(sock, metrics_app(registry, settings.metrics_token)))
        if settings.metrics_token is None and not is_loopback(settings.metrics_host):
            _warn_open(settings)
        yield


@contextmanager
def _workers_registry() -> Iterator[CollectorRegistry]:
    """A registry that adds up the values the workers write to a folder they share (a fresh
    one, removed afterwards, unless the environment already names one)."""
    named = os.environ.get(MULTIPROCESS_ENV)
    folder = named or tempfile.mkdtemp(prefix="orquestra-metrics-")
    os.environ[MULTIPROCESS_ENV] = folder  # read by each worker as it starts
    try:
        registry = CollectorRegistry()
        # prometheus_client leaves `MultiProcessCollector.__init__` unannotated.
        MultiProcessCollector(registry, path=folder)  # type: ignore[no-untyped-call]
        yield registry
    finally:
        if named is None:
            os.environ.pop(MULTIPROCESS_ENV, None)
            shutil.rmtree(folder, ignore_errors=True)


def _listen(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, port), family=family)
    except OSError as exc:
        # The reason alone: create_server's wording repeats the address.
        why = str(exc.strerror or exc).split(" (while attempting")[0]
        raise MetricsUnavailable(
            f"the metrics listener cannot listen on {host}:{port} ({why}):"
            " set ORQUESTRA_METRICS_PORT to a free port (or ORQUESTRA_METRICS_HOST), or"
            " ORQUESTRA_METRICS_ENABLED=false to serve without metrics"
        ) from None


def _serve(sock: socket.socket, app: ASGIApp) -> Callable[[], None]:
    """uvicorn serving `app` on `sock` from a thread; returns what stops it."""
    config = uvicorn.Config(
        app, lifespan="off", log_config=None, log_level="warning", access_log=False
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="orquestra-metrics", daemon=True
    )
    thread.start()

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=5)
        sock.close()

    return stop


def _warn_open(settings: Settings) -> None:
    where = f"{settings.metrics_host}:{settings.metrics_port}"
    log.warning("metrics listener on %s without a token: anyone who reaches it reads it", where)
    print(
        f"WARNING: the metrics listen on {where} without ORQUESTRA_METRICS_TOKEN:"
        " anyone who can reach that address reads every turn's counters.",
        file=sys.stderr,
    )
