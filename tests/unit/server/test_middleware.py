"""The server's outer layers in-process: 500s are counted and answered without a trace,
bodies are limited before the route reads them. (The same paths over a real process are in
tests/e2e/test_hardening.py; a genuine 500 cannot be provoked from outside.)"""

from __future__ import annotations

import httpx
import pytest
from prometheus_client import REGISTRY

from orquestra.core.settings import Settings
from orquestra.server.app import create_app


def counted(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.fixture
def app():
    application = create_app(Settings(limits={"max_body_bytes": 2048}))

    @application.get("/boom")
    async def boom() -> None:
        raise RuntimeError("a bug of ours")

    @application.post("/echo")
    async def echo(body: dict) -> dict:
        return body

    return application


async def test_a_500_is_counted_and_says_nothing_of_the_bug(app) -> None:
    before = counted("orquestra_http_requests_total", path="/boom", status="500")
    errors = counted("orquestra_http_errors_total", path="/boom", status="500", code="INTERNAL")
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        response = await client.get("/boom")
    assert response.status_code == 500
    assert response.json()["code"] == "INTERNAL" and "bug" not in response.text
    assert counted("orquestra_http_requests_total", path="/boom", status="500") == before + 1
    assert (
        counted("orquestra_http_errors_total", path="/boom", status="500", code="INTERNAL")
        == errors + 1
    )


async def test_bodies_are_limited_by_length_and_by_stream(app) -> None:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        small = await client.post("/echo", json={"a": "b"})
        declared = await client.post("/echo", content=b"x" * 4096)

        async def chunks():
            for _ in range(8):
                yield b"y" * 1024

        streamed = await client.post("/echo", content=chunks())
        nowhere = await client.post("/no-such-route", content=b"z" * 4096)
    assert small.status_code == 200 and small.headers["x-content-type-options"] == "nosniff"
    for response in (declared, streamed, nowhere):
        assert response.status_code == 413 and response.json()["code"] == "BODY_TOO_LARGE"
