"""`orquestra eval` never hides a total failure: on a deployment whose agent may read no table
(PERMISSION_DENIED on every query, the gold SQL's included) each case counts as failed, the
failures are printed with their codes, and the run exits 1; the same cases where the agent may
read exit 0. Real processes, a database of their own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from orquestra.core.database import embedded_server
from orquestra.core.settings import Settings
from tests.integration.rental_schema import create_rental_database

ORQUESTRA = str(Path(sys.executable).parent / "orquestra")
REPO = Path(__file__).resolve().parents[3]
CASES = [
    {"id": "rentals", "question": "how many rentals are there?",
     "gold_sql": "SELECT count(*) FROM rental"},
    {"id": "films", "question": "how many films are there?",
     "gold_sql": "SELECT count(*) FROM film"},
]  # fmt: skip
"""Two data questions the default offline model answers right on the rental schema."""


@pytest.fixture(scope="module")
async def rental_url(settings: Settings) -> str:
    server_url = embedded_server(settings.data_dir).get_uri()  # type: ignore[attr-defined]
    return await create_rental_database(server_url, "rental_eval_failures")


def orquestra(
    url: str, data_dir: Path, *args: str, **variables: str
) -> subprocess.CompletedProcess:
    environment = {
        **os.environ,
        "DATABASE_URL": url,
        "ORQUESTRA_DATA_DIR": str(data_dir),
        **variables,
    }
    result = subprocess.run(
        [ORQUESTRA, *args], capture_output=True, text=True, env=environment, cwd=REPO, timeout=300
    )
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result


@pytest.fixture(scope="module")
def deployment(rental_url: str, data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("eval-failures") / "rental"
    init = orquestra(
        rental_url,
        data_dir,
        "init",
        str(folder),
        "--schema",
        "public",
        "--tenant-column",
        "store_id",
    )
    assert init.returncode == 0, init.stdout + init.stderr
    return folder


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("eval-failures-set") / "cases.jsonl"
    rows = [
        {**case, "tenant": "1", "route": "analytics", "split": "project", "origin": "failures"}
        for case in CASES
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


async def test_an_eval_where_every_case_failed_says_so_and_exits_1(
    rental_url: str, data_dir: Path, deployment: Path, dataset: Path, tmp_path: Path
) -> None:
    role = f"orquestra_agent_denied_{os.getpid()}"
    applied = orquestra(
        rental_url, data_dir, "db", "policies", "--apply",
        ORQUESTRA_DEPLOYMENT=str(deployment), ORQUESTRA_AGENT_ROLE=role,
    )  # fmt: skip
    assert applied.returncode == 0, applied.stdout + applied.stderr
    conn = await asyncpg.connect(rental_url)
    try:  # the agent role exists, and may read nothing: every query is PERMISSION_DENIED
        await conn.execute(f"REVOKE SELECT ON ALL TABLES IN SCHEMA public FROM {role}")
    finally:
        await conn.close()
    out = tmp_path / "denied"
    variables = {"ORQUESTRA_DEPLOYMENT": str(deployment), "ORQUESTRA_AGENT_ROLE": role}
    ran = orquestra(
        rental_url, data_dir, "eval", "--dataset", str(dataset), "--out", str(out), **variables
    )
    assert ran.returncode == 1, ran.stdout + ran.stderr
    assert f"failed cases ({len(CASES)} of {len(CASES)}):" in ran.stdout
    for case in CASES:
        line = next(line for line in ran.stdout.splitlines() if line.split()[:1] == [case["id"]])
        assert "PERMISSION_DENIED" in line, line
    assert "FAIL every case failed (2 of 2): nothing could be scored" in ran.stdout
    summary = json.loads((out / "report.json").read_text())["summary"]
    assert summary["errors"] == len(CASES)
    assert summary["execution_accuracy"] == 0.0  # failed cases are misses, never unscored
    assert {f["code"] for f in summary["failures"]} == {"PERMISSION_DENIED"}
    assert "## Cases that failed (2 of 2)" in (out / "report.md").read_text()


def test_the_same_eval_where_the_agent_may_read_exits_0(
    rental_url: str, data_dir: Path, deployment: Path, dataset: Path, tmp_path: Path
) -> None:
    variables = {"ORQUESTRA_DEPLOYMENT": str(deployment)}
    applied = orquestra(rental_url, data_dir, "db", "policies", "--apply", **variables)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    out = tmp_path / "allowed"
    ran = orquestra(
        rental_url, data_dir, "eval", "--dataset", str(dataset), "--out", str(out), **variables
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "failed cases" not in ran.stdout and "FAIL" not in ran.stdout
    summary = json.loads((out / "report.json").read_text())["summary"]
    assert summary["errors"] == 0 and summary["failures"] == []
    assert summary["execution_accuracy"] == 1.0
