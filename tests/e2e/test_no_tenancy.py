"""One organisation's data (`tenancy: none`), as a company without tenants meets Orquestra:
Northwind imported by `init --no-tenancy` with no hand edits, `db policies --apply`, then the
command line and the HTTP server over a socket, with the default (offline) model.

Without a decision `init` fails closed and names the columns that could hold a tenant; a token
that names a tenant is refused; threads stay private per person; a profile that disagrees with
its catalog on tenancy stops the deployment."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import jwt
import pytest
from playwright.sync_api import Browser, expect

from orquestra.core.database import embedded_server
from orquestra.core.deployment import load_deployment
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.server.auth import mint_token
from tests.e2e.conftest import Server, start_server, stream
from tests.e2e.conftest import orquestra_cli as orquestra
from tests.schemas import load_schema


@pytest.fixture(scope="module")
async def northwind_url(settings: Settings) -> str:
    server_url = embedded_server(settings.data_dir).get_uri()  # type: ignore[attr-defined]
    url, _ = await load_schema(server_url, "northwind", "tenancy_none_northwind")
    return url


@pytest.fixture(scope="module")
def environment(northwind_url: str, data_dir: Path, tmp_path_factory) -> dict[str, str]:
    """ORQUESTRA_DEPLOYMENT set first, naming the folder `init` is about to write."""
    folder = tmp_path_factory.mktemp("northwind") / "deployment"
    return {
        "DATABASE_URL": northwind_url,
        "ORQUESTRA_DATA_DIR": str(data_dir),
        "ORQUESTRA_DEPLOYMENT": str(folder),
    }


@pytest.fixture(scope="module")
def deployment(environment: dict[str, str]) -> Path:
    folder = Path(environment["ORQUESTRA_DEPLOYMENT"])
    written = orquestra(environment, "init", str(folder), "--schema", "public", "--no-tenancy")
    assert written.returncode == 0, written.stdout + written.stderr
    # the review speaks of one organisation's data, not of tenants it does not have
    assert "no tenants (--no-tenancy)" in written.stdout, written.stdout
    assert "tenant column" not in written.stdout and "every tenant" not in written.stdout
    applied = orquestra(environment, "db", "policies", "--apply")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    return folder


@pytest.fixture(scope="module")
def server(deployment: Path, environment: dict[str, str], data_dir: Path) -> Iterator[Server]:
    running = start_server(data_dir, args=("--dev-login",), **environment)
    yield running
    running.stop()


def test_init_without_a_decision_fails_closed_naming_the_candidates(
    environment: dict[str, str], tmp_path: Path
) -> None:
    folder = tmp_path / "undecided"
    result = orquestra(
        {**environment, "ORQUESTRA_DEPLOYMENT": ""}, "init", str(folder), "--schema", "public"
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert "error [TENANT_COLUMN_REQUIRED]" in result.stderr
    assert "--no-tenancy" in result.stderr and "--tenant-column" in result.stderr
    assert "employee_id (3 tables)" in result.stderr
    assert "customer_id (3 tables)" in result.stderr
    assert "Traceback" not in result.stderr
    assert not folder.exists()
    # Never a default taken from a sample deployment.
    demo_columns = set(load_catalog(Settings().catalog_folder).tenant_tables().values())
    assert not any(column in result.stdout + result.stderr for column in demo_columns)


def test_init_no_tenancy_writes_one_organisations_deployment(deployment: Path) -> None:
    profile = load_deployment(deployment).profile
    assert profile.tenancy == "none" and not profile.has_tenants
    catalog = load_catalog(deployment / "catalog")
    assert catalog.tables and all(t.shared for t in catalog.tables.values())
    assert profile.tenant == {}  # no tenant labels to write


async def test_policies_create_the_read_only_role_and_grants_and_no_row_security(
    deployment: Path, northwind_url: str
) -> None:
    role = Settings().agent_role
    catalog = load_catalog(deployment / "catalog")
    conn = await asyncpg.connect(northwind_url)
    try:
        secured = await conn.fetch(
            "SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace"
            " AND relkind IN ('r', 'p') AND relrowsecurity"
        )
        readable = await conn.fetch(
            "SELECT c.relname FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace"
            " AND c.relkind IN ('r', 'p') AND has_table_privilege($1, c.oid, 'SELECT')",
            role,
        )
        writable = await conn.fetch(
            "SELECT c.relname FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace"
            " AND c.relkind = 'r' AND has_table_privilege($1, c.oid, 'INSERT, UPDATE, DELETE')",
            role,
        )
    finally:
        await conn.close()
    assert secured == []
    assert {r["relname"] for r in readable} == set(catalog.tables)
    assert writable == []


def test_ask_needs_no_tenant_and_refuses_one(deployment: Path, environment: dict[str, str]) -> None:
    answered = orquestra(environment, "ask", "--json", "how many customers are there?")
    assert answered.returncode == 0, answered.stderr
    events = [json.loads(line) for line in answered.stdout.splitlines() if line.strip()]
    result = next(e["data"] for e in events if e["event"] == "result")
    assert result["rows"] == [[91]], result
    refused = orquestra(environment, "ask", "--tenant", "1", "how many customers are there?")
    assert refused.returncode == 2
    assert "error [TENANT_NOT_USED]" in refused.stderr


def test_a_token_without_tenants_carries_no_tenant_claim(
    deployment: Path, environment: dict[str, str]
) -> None:
    minted = orquestra(environment, "token", "--user", "rita")
    assert minted.returncode == 0, minted.stderr
    claims = jwt.decode(minted.stdout.strip(), options={"verify_signature": False})
    assert claims["sub"] == "rita" and "tenant" not in claims
    refused = orquestra(environment, "token", "--tenant", "7")
    assert refused.returncode == 2 and "error [TENANT_NOT_USED]" in refused.stderr


def test_the_server_answers_without_a_tenant_and_refuses_a_tenant_claim(server: Server) -> None:
    profile = httpx.get(f"{server.url}/v1/profile").json()
    assert profile["tenancy"] == "none"
    signed_in = httpx.post(f"{server.url}/v1/dev/token", json={})
    assert signed_in.status_code == 200, signed_in.text
    bearer = signed_in.json()["token"]
    events = stream(server.url, "how many products are there?", bearer=bearer)
    result = next(e["data"] for e in events if e["event"] == "result")
    assert result["rows"] == [[77]], result
    with_tenant = mint_token(Settings(), "101", "ana")  # a token issued for tenanted data
    refused = httpx.get(
        f"{server.url}/v1/threads", headers={"Authorization": f"Bearer {with_tenant}"}
    )
    assert refused.status_code == 401
    assert refused.json()["code"] == "TOKEN_INVALID"
    assert "no tenants" in refused.json()["message"]


def test_threads_stay_private_per_person(server: Server) -> None:
    settings = Settings()
    rita, joao = mint_token(settings, "-", "rita"), mint_token(settings, "-", "joao")
    events = stream(server.url, "how many suppliers are there?", bearer=rita)
    thread = events[0]["data"]["thread_id"]
    headers = {"Authorization": f"Bearer {joao}"}
    assert httpx.get(f"{server.url}/v1/threads/{thread}", headers=headers).status_code == 404
    listed = httpx.get(f"{server.url}/v1/threads", headers=headers).json()["threads"]
    assert thread not in {t["thread_id"] for t in listed}
    resumed = httpx.post(
        f"{server.url}/v1/chat/stream",
        headers=headers,
        json={"message": "and in 1997?", "thread_id": thread},
    )
    assert resumed.status_code == 404
    mine = httpx.get(f"{server.url}/v1/threads", headers={"Authorization": f"Bearer {rita}"})
    assert thread in {t["thread_id"] for t in mine.json()["threads"]}


def test_a_profile_and_catalog_that_disagree_on_tenancy_stop_the_deployment(
    deployment: Path, environment: dict[str, str], tmp_path: Path
) -> None:
    import shutil

    copy = tmp_path / "tenanted-profile"
    shutil.copytree(deployment, copy)
    profile = (copy / "profile.yaml").read_text(encoding="utf-8")
    profile = profile.replace("tenancy: none\n", "tenant:\n  en: {singular: shop, plural: shops}\n")
    (copy / "profile.yaml").write_text(profile, encoding="utf-8")
    result = orquestra(
        {**environment, "ORQUESTRA_DEPLOYMENT": str(copy)}, "ask", "--tenant", "1", "hello"
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert "error [DEPLOYMENT_TENANCY_MISMATCH]" in result.stderr
    assert "every tenant would read every row" in result.stderr


def test_the_web_chat_signs_in_without_a_tenant(server: Server, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(server.url)
        page.wait_for_selector("#login-form:not([hidden])")
        assert page.locator("#tenant").is_hidden() and page.locator("#tenant-code").is_hidden()
        assert page.locator("#login-intro").inner_text() in {
            "Enter the demo:",
            "Entrar na demonstração:",
        }
        page.click("#login-form button")
        page.wait_for_selector("#app:not([hidden])")
        assert page.locator("#who").inner_text() == "demo"
        answers = page.locator(".msg.bot")
        page.fill("#question", "how many orders are there?")
        page.click("#send")
        expect(answers).to_have_count(1)
        expect(page.locator("#send")).to_be_enabled(timeout=60_000)
        assert "830" in answers.last.inner_text()
    finally:
        context.close()
