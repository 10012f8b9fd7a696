"""What a new user meets first, through the real `orquestra` process on a database of its own:
`DATABASE_URL` (and the other database settings) in libpq's key=value form working for every
command, a form that cannot be used refused by name, and an agent role that was never
created named with the step that creates it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import asyncpg
import pytest

from orquestra.core.database import embedded_server
from orquestra.core.settings import Settings
from tests.databases import fresh_database
from tests.integration.rental_schema import create_rental_database

ORQUESTRA = str(Path(sys.executable).parent / "orquestra")
REPO = Path(__file__).resolve().parents[2]
DATABASE = "rental_first_connection"
QUESTION = "how many rentals are there?"


@pytest.fixture(scope="module")
def server_url(settings: Settings) -> str:
    return str(embedded_server(settings.data_dir).get_uri())  # type: ignore[attr-defined]


def pairs(server_url: str, database: str) -> str:
    """The embedded server's database in key=value form, its socket folder quoted as libpq
    quotes a value (the folder is a temporary path)."""
    socket = parse_qs(urlsplit(server_url).query)["host"][0]
    quoted = socket.replace("\\", "\\\\").replace("'", "\\'")
    return f"host='{quoted}' dbname={database} user=postgres"


@pytest.fixture(scope="module")
async def rental(server_url: str) -> str:
    """The rental schema in a database of its own, as key=value pairs."""
    await create_rental_database(server_url, DATABASE)
    return pairs(server_url, DATABASE)


@pytest.fixture(scope="module")
async def state(server_url: str) -> str:
    """A database for Orquestra's own state, as key=value pairs (ORQUESTRA_STATE_URL)."""
    await fresh_database(server_url, "first_connection_state")
    return pairs(server_url, "first_connection_state")


def orquestra(data_dir: Path, *args: str, **variables: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "ORQUESTRA_DATA_DIR": str(data_dir), **variables}
    result = subprocess.run(
        [ORQUESTRA, *args], capture_output=True, text=True, env=environment, cwd=REPO, timeout=300
    )
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result


@pytest.fixture(scope="module")
def folder(rental: str, data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`orquestra init` given the database with `--database-url` in key=value form."""
    folder = tmp_path_factory.mktemp("first-connection") / "rental"
    args = ("init", str(folder), "--schema", "public", "--tenant-column", "store_id")
    result = orquestra(data_dir, *args, "--database-url", rental)
    assert result.returncode == 0, result.stdout + result.stderr
    return folder


def test_every_command_takes_the_key_value_form(
    rental: str, state: str, folder: Path, data_dir: Path, tmp_path: Path
) -> None:
    env = {"DATABASE_URL": rental, "ORQUESTRA_DEPLOYMENT": str(folder)}
    imported = orquestra(
        data_dir, "catalog", "import", "--schema", "public", "--tenant-column", "store_id",
        "--out", str(tmp_path / "systems"), **env,
    )  # fmt: skip
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert (tmp_path / "systems" / "public.yaml").is_file()
    checked = orquestra(data_dir, "catalog", "check", **env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    printed = orquestra(data_dir, "db", "policies", "--print", **env)
    assert f"-- Orquestra layer-3 policies for database {DATABASE}," in printed.stdout
    applied = orquestra(data_dir, "db", "policies", "--apply", **env)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    asked = orquestra(
        data_dir, "ask", "--tenant", "1", "--json", QUESTION, **env, ORQUESTRA_STATE_URL=state
    )
    assert asked.returncode == 0, asked.stdout + asked.stderr
    events = [json.loads(line) for line in asked.stdout.splitlines()]
    result = next(e["data"] for e in events if e["event"] == "result")
    assert result["attempts"][0]["outcome"] == "rows", result
    ran = orquestra(data_dir, "sql", "--tenant", "1", "SELECT count(*) FROM rental", **env)
    assert ran.returncode == 0, ran.stdout + ran.stderr


async def test_db_init_loads_a_sample_through_the_key_value_form(
    server_url: str, data_dir: Path
) -> None:
    url = await fresh_database(server_url, "first_connection_sample")
    env = {"DATABASE_URL": pairs(server_url, "first_connection_sample")}
    loaded = orquestra(
        data_dir, "db", "init", "--scale", "0.2", ORQUESTRA_DEPLOYMENT="clinics", **env
    )
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    conn = await asyncpg.connect(url)
    try:
        assert await conn.fetchval(
            "SELECT count(*) FROM pg_tables WHERE schemaname <> 'pg_catalog'"
        )
    finally:
        await conn.close()


UNREADABLE = {
    "a host and a path": ("localhost:5432/shop", 'missing "="'),
    "a keyword asyncpg cannot apply": (
        "host=/tmp dbname=shop connect_timeout=5",
        "connect_timeout",
    ),
    "a value asyncpg refuses": ("host=/tmp dbname=shop sslmode=sometimes", "sslmode"),
}


@pytest.mark.parametrize(("value", "reason"), UNREADABLE.values(), ids=UNREADABLE.keys())
def test_a_form_that_cannot_be_used_is_named(
    value: str, reason: str, data_dir: Path, tmp_path: Path
) -> None:
    for result in (
        orquestra(data_dir, "catalog", "check", DATABASE_URL=value),
        orquestra(data_dir, "init", str(tmp_path / "d"), "--schema", "public",
                  "--tenant-column", "store_id", "--database-url", value),
    ):  # fmt: skip
        assert result.returncode == 2, result.stdout + result.stderr
        assert "error [DATABASE_URL_INVALID]" in result.stderr and reason in result.stderr
        assert "postgresql://" in result.stderr and "key=value" in result.stderr
        assert "ClientConfigurationError" not in result.stderr


async def test_a_missing_agent_role_names_the_step_that_creates_it(
    rental: str, server_url: str, folder: Path, data_dir: Path, tmp_path: Path
) -> None:
    """Roles are the whole server's, and the session's server has the default agent role:
    this deployment names one nobody created yet."""
    role = f"orquestra_agent_new_{os.getpid()}"
    root = await asyncpg.connect(server_url)
    try:
        assert not await root.fetchval("SELECT 1 FROM pg_roles WHERE rolname = $1", role)
    finally:
        await root.close()
    env = {
        "DATABASE_URL": rental,
        "ORQUESTRA_DEPLOYMENT": str(folder),
        "ORQUESTRA_AGENT_ROLE": role,
    }
    dataset = tmp_path / "one.jsonl"
    case = {"id": "a", "question": QUESTION, "tenant": "1", "route": "analytics",
            "split": "project", "origin": "first_connection"}  # fmt: skip
    dataset.write_text(json.dumps(case) + "\n")
    for result in (
        orquestra(data_dir, "ask", "--tenant", "1", QUESTION, **env),
        orquestra(data_dir, "eval", "--dataset", str(dataset), "--out", str(tmp_path), **env),
        orquestra(data_dir, "sql", "--tenant", "1", "SELECT 1", **env),
    ):
        assert result.returncode == 2, result.stdout + result.stderr
        assert "error [AGENT_ROLE_MISSING]" in result.stderr, result.stderr
        assert f'"{role}"' in result.stderr and "orquestra db policies --apply" in result.stderr
    applied = orquestra(data_dir, "db", "policies", "--apply", **env)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    asked = orquestra(data_dir, "ask", "--tenant", "1", QUESTION, **env)
    assert asked.returncode == 0, asked.stdout + asked.stderr
