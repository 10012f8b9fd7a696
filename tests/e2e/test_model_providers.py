"""Model failures through real server processes, as an operator and a user meet them.

`orquestra serve` runs with `OPENAI_BASE_URL` pointing at the local fake OpenAI-compatible
provider (`tests/fake_provider.py`), configured the way a user configures a real one. A
refused key, a slow model and a provider outage each end the turn with the named error in the
user's language — never INTERNAL — the server keeps serving, `/readyz` says when the key is
refused, the metrics listener counts the failures, and the web chat shows the name, not a
generic error.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.e2e.conftest import Server, start_server, stream, token
from tests.fake_provider import FakeProvider

QUESTION = "quantas notas bloqueadas temos?"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeProvider]:
    with FakeProvider() as provider:
        yield provider


def serve_with(data_dir: Path, fake: FakeProvider, model: str, **env: str) -> Server:
    return start_server(
        data_dir,
        "/healthz",  # readiness may rightly say no (a refused key): wait for liveness only
        args=("--dev-login",),
        OPENAI_BASE_URL=fake.base_url,
        OPENAI_API_KEY="sk-test",
        ORQUESTRA_MODELS__DEFAULT=f"openai:{model}",
        **env,
    )


@pytest.fixture(scope="module")
def refused_key(data_dir: Path, demo_db: object, fake: FakeProvider) -> Iterator[Server]:
    running = serve_with(data_dir, fake, "fake+401")
    yield running
    running.stop()


def error_of(events: list[dict]) -> dict:
    errors = [e["data"] for e in events if e["event"] == "error"]
    assert errors, [e["event"] for e in events]
    assert events[-1]["event"] == "done"
    return errors[0]


def test_a_refused_key_is_named_and_the_server_keeps_serving(refused_key: Server) -> None:
    for question, words in ((QUESTION, "credenciais"), ("how many blocked invoices?", "key")):
        error = error_of(stream(refused_key.url, question, bearer=token()))
        assert error["code"] == "MODEL_AUTH" and words in error["message"]
        assert "Traceback" not in error["message"] and "sk-" not in error["message"]
    assert httpx.get(f"{refused_key.url}/healthz", timeout=5).status_code == 200
    ready = httpx.get(f"{refused_key.url}/readyz", timeout=10)
    assert ready.status_code == 503
    assert ready.json()["database"] == "ok" and ready.json()["model"].startswith("MODEL_AUTH")
    metrics = httpx.get(refused_key.metrics_url, timeout=5).text
    assert 'orquestra_model_errors_total{code="MODEL_AUTH",role="augmenter"} 2.0' in metrics
    assert "INTERNAL" not in metrics.split("orquestra_run_errors_total")[-1].split("\n#")[0]


def test_a_working_provider_is_ready_and_answers(
    data_dir: Path, demo_db: object, fake: FakeProvider
) -> None:
    running = serve_with(data_dir, fake, "fake+tools-only+no-usage")
    try:
        assert httpx.get(f"{running.url}/readyz", timeout=10).status_code == 200
        events = stream(running.url, QUESTION, bearer=token())
        result = next(e["data"] for e in events if e["event"] == "result")
        assert result["rows"] and "notas_fiscais" in result["sql"]
        # a customer's name, found in the tenant's rows, is in the SQL writer's prompt
        name = asyncio.run(own_customer(data_dir, "101"))
        before = len(fake.requests)
        events = stream(running.url, f"quantos pedidos o cliente {name} fez?", bearer=token())
        result = next(e["data"] for e in events if e["event"] == "result")
        asked = [r for r in fake.requests[before:] if r.role == "sql_writer"]
        prompt = json.dumps(asked[0].body, ensure_ascii=False)
        assert "## Values in the data" in prompt and f"clientes.nome = '{name}'" in prompt
        assert f"'{name}'" in result["sql"] and result["rows"] and result["rows"][0][0] > 0
    finally:
        running.stop()


async def own_customer(data_dir: Path, tenant: str) -> str:
    """A customer's name among the tenant's rows only (the fake reads what the server found)."""
    from orquestra.core.database import admin_url
    from orquestra.core.settings import Settings

    conn = await asyncpg.connect(admin_url(Settings(data_dir=data_dir)))
    try:
        return await conn.fetchval(
            "SELECT c.nome FROM clientes c WHERE c.cod_fornecedor::text = $1 AND NOT EXISTS "
            "(SELECT 1 FROM clientes o WHERE o.nome = c.nome AND o.cod_fornecedor <> "
            "c.cod_fornecedor) ORDER BY c.cod_cliente LIMIT 1",
            tenant,
        )
    finally:
        await conn.close()


@pytest.mark.parametrize(
    ("model", "env", "code"),
    [
        ("fake+slow=3", {"ORQUESTRA_LIMITS__MODEL_TIMEOUT_S": "1"}, "MODEL_TIMEOUT"),
        ("fake+503", {}, "MODEL_UNAVAILABLE"),
        ("fake+429", {"ORQUESTRA_LIMITS__MODEL_WAIT_S": "0"}, "MODEL_RATE_LIMITED"),
    ],
)
def test_each_failure_ends_in_its_name(
    data_dir: Path, demo_db: object, fake: FakeProvider, model: str, env: dict, code: str
) -> None:
    running = serve_with(data_dir, fake, model, **env)
    try:
        assert error_of(stream(running.url, QUESTION, bearer=token()))["code"] == code
        again = error_of(stream(running.url, QUESTION, bearer=token()))  # still serving
        assert again["code"] == code
    finally:
        running.stop()


def test_the_web_chat_shows_the_named_error(refused_key: Server, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        page.goto(refused_key.url)
        page.select_option("#tenant", "101")
        page.click("#login-form button")
        page.wait_for_selector("#app:not([hidden])")
        page.fill("#question", QUESTION)
        page.click("#send")
        error = page.locator(".msg.bot .error").last
        expect(error).to_contain_text("[MODEL_AUTH]", timeout=30_000)
        expect(error).to_contain_text("credenciais")
        assert "Something went wrong" not in page.inner_text("body")
    finally:
        context.close()
