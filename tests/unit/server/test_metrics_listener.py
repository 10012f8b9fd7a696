"""The metrics are for operators only: the settings that refuse an open listener in production,
the token rule (`core.metrics_access`), the listener `orquestra serve` starts (in process, on a
free port), its sum over several worker processes, and LangGraph Server's gated `/metrics`."""

from __future__ import annotations

import doctest
import os
import socket
import subprocess
import sys
from types import SimpleNamespace

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from pydantic import ValidationError

from orquestra.agent import metrics_gate
from orquestra.core import metrics_access
from orquestra.core import settings as settings_module
from orquestra.core.settings import Settings
from orquestra.server.metrics_listener import (
    MULTIPROCESS_ENV,
    MetricsUnavailable,
    metrics_url,
    operator_metrics,
)

TOKEN = "m" * 32
PRODUCTION = {"mode": "production", "jwt_secret": "k" * 32}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.1.2.3", "metrics.internal"])
def test_production_refuses_an_open_listener_without_a_token(host: str) -> None:
    with pytest.raises(ValidationError, match=f"ORQUESTRA_METRICS_HOST={host} is not a loopback"):
        Settings(**PRODUCTION, metrics_host=host)
    assert Settings(**PRODUCTION, metrics_host=host, metrics_token=TOKEN).metrics_host == host
    assert not Settings(**PRODUCTION, metrics_host=host, metrics_enabled=False).metrics_enabled
    assert Settings(metrics_host=host).mode == "demo"  # demo mode: a warning at start only


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "localhost"])
def test_production_keeps_a_loopback_listener_without_a_token(host: str) -> None:
    assert Settings(**PRODUCTION, metrics_host=host).metrics_token is None


def test_the_token_is_a_production_secret_and_empty_means_none() -> None:
    with pytest.raises(ValidationError, match="ORQUESTRA_METRICS_TOKEN must be at least 32"):
        Settings(**PRODUCTION, metrics_token="m" * 31)
    assert Settings(metrics_token="").metrics_token is None
    assert TOKEN not in repr(Settings(metrics_token=TOKEN))  # a secret, never printed


def test_the_docstring_examples_hold() -> None:
    for module in (metrics_access, settings_module):
        results = doctest.testmod(module)
        assert results.attempted and results.failed == 0, module.__name__


def test_the_listener_answers_only_the_token_holder() -> None:
    settings = Settings(metrics_port=free_port(), metrics_token=TOKEN)
    url = metrics_url(settings)
    assert url == f"http://127.0.0.1:{settings.metrics_port}/metrics"
    with operator_metrics(settings, workers=1, public_port=settings.port):
        missing = httpx.get(url)
        wrong = httpx.get(url, headers={"Authorization": f"Bearer {TOKEN[:-1]}x"})
        held = httpx.get(url, headers={"Authorization": f"bearer {TOKEN}"})
        elsewhere = httpx.get(url.replace("/metrics", "/"), headers={"Authorization": TOKEN})
    assert missing.status_code == 401 and missing.json()["code"] == "METRICS_TOKEN_MISSING"
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert wrong.status_code == 401 and wrong.json()["code"] == "METRICS_TOKEN_INVALID"
    assert held.status_code == 200 and "# TYPE orquestra_" in held.text
    assert elsewhere.status_code == 404 and elsewhere.json()["code"] == "NOT_FOUND"
    with pytest.raises(httpx.ConnectError):  # stopped with the block
        httpx.get(url)


def test_a_port_it_cannot_have_is_a_named_error() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        with (
            pytest.raises(MetricsUnavailable, match="ORQUESTRA_METRICS_PORT") as refused,
            operator_metrics(Settings(metrics_port=port), workers=1, public_port=8000),
        ):
            pass
    assert refused.value.code == "METRICS_UNAVAILABLE" and "in use" in refused.value.message
    with (
        pytest.raises(MetricsUnavailable) as clash,
        operator_metrics(Settings(metrics_port=8000), workers=1, public_port=8000),
    ):
        pass
    assert clash.value.code == "METRICS_PORT_CLASH"


def test_turned_off_it_listens_nowhere() -> None:
    settings = Settings(metrics_port=free_port(), metrics_enabled=False)
    with (
        operator_metrics(settings, workers=1, public_port=settings.port),
        pytest.raises(httpx.ConnectError),
    ):
        httpx.get(metrics_url(settings))


WORKER = """
from prometheus_client import Counter
Counter("orquestra_probe_total", "A worker's count").inc({n})
"""


def test_several_workers_are_added_up_by_one_listener(monkeypatch) -> None:
    """`serve --workers N`: each worker process counts apart; the parent's listener reads
    the sum through prometheus_client's multiprocess mode, then removes their files."""
    monkeypatch.delenv(MULTIPROCESS_ENV, raising=False)
    settings = Settings(metrics_port=free_port())
    with operator_metrics(settings, workers=2, public_port=settings.port):
        folder = os.environ[MULTIPROCESS_ENV]
        for n in (2, 3):  # two worker processes, started after the listener, as uvicorn's
            subprocess.run([sys.executable, "-c", WORKER.format(n=n)], check=True)
        text = httpx.get(metrics_url(settings)).text
    (family,) = (f for f in text_string_to_metric_families(text) if f.name == "orquestra_probe")
    assert [s.value for s in family.samples if s.name == "orquestra_probe_total"] == [5.0]
    assert MULTIPROCESS_ENV not in os.environ and not os.path.exists(folder)


async def test_langgraph_servers_metrics_route_is_gated(monkeypatch) -> None:
    """LangGraph Server serves `/metrics` itself, from the registry Orquestra counts in: the
    custom app's middleware hides it without a token and asks for it with one."""

    async def served(scope, receive, send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"orquestra_model_calls_total 1"})

    gate = metrics_gate.MetricsForOperators(served)
    transport = httpx.ASGITransport(app=gate)

    async def get(path: str, token: str | None, **headers: str) -> httpx.Response:
        doorkeeper = SimpleNamespace(settings=Settings(metrics_token=token))

        async def current():
            return doorkeeper

        monkeypatch.setattr(metrics_gate, "current_doorkeeper", current)
        async with httpx.AsyncClient(transport=transport, base_url="http://studio") as client:
            return await client.get(path, headers=headers)

    assert (await get("/metrics", None)).status_code == 404
    assert (await get("/metrics/", None)).status_code == 404
    assert (await get("/metrics", TOKEN)).json()["code"] == "METRICS_TOKEN_MISSING"
    held = await get("/metrics?format=json", TOKEN, authorization=f"Bearer {TOKEN}")
    assert held.status_code == 200 and held.text.startswith("orquestra_")
    assert (await get("/threads", None)).status_code == 200  # every other route untouched
