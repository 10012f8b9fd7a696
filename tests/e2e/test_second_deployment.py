"""The clinics deployment through real processes, as the outside probe met Orquestra: a user
of another business hears that business's words, never the demo's, and a table scoped
through parents answers each tenant with its own rows, through the guard and the database
layer alone."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import asyncpg
import pytest

from orquestra.core.settings import Settings
from tests.deployment_cases import DEMO_WORDS
from tests.e2e.conftest import BIN, Server, stream, token

CLINICS = {"ORQUESTRA_DEPLOYMENT": "clinics"}
CHAIN = (
    "SELECT count(*) FROM apontamentos_revisao a JOIN revisoes_qualidade r USING (cod_revisao)"
    " JOIN laudos l ON l.id_laudo = r.id_laudo WHERE l.cod_unidade = $1"
)
"""The owner's count of a two-level `tenant_via` table's rows for one unit, by hand."""


def orquestra(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "ORQUESTRA_DATA_DIR": str(data_dir), **CLINICS}
    return subprocess.run(
        [str(BIN / "orquestra"), *args],
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def clinics_data(data_dir: Path, clinics_db: object) -> Path:
    """The data folder whose embedded server holds the session's clinics database; the
    CLI, told only ORQUESTRA_DEPLOYMENT=clinics, finds it there (`db init` has nothing to do)."""
    loaded = orquestra(data_dir, "db", "init")
    assert loaded.returncode == 0, loaded.stderr
    return data_dir


@pytest.mark.parametrize(("greeting", "topic"), [("olá", "laudos"), ("hello", "reports")])
def test_a_greeting_speaks_the_deployments_business(
    clinics_server: Server, greeting: str, topic: str
) -> None:
    events = stream(clinics_server.url, greeting, bearer=token("201"))
    answer = next(e["data"]["answer"] for e in events if e["event"] == "result")
    assert topic in answer.lower()
    assert not DEMO_WORDS.search(answer), answer


async def test_a_table_scoped_through_two_parents_counts_each_units_own_rows(
    clinics_data: Path,
) -> None:
    owner = await asyncpg.connect(_admin_url(clinics_data))
    try:
        truth = {unit: await owner.fetchval(CHAIN, unit) for unit in (201, 205)}
        everyone = await owner.fetchval("SELECT count(*) FROM apontamentos_revisao")
    finally:
        await owner.close()
    assert truth[201] != truth[205] and 0 < truth[205] < everyone
    for unit, expected in truth.items():
        for mode in ((), ("--raw",)):  # the guard's rewrite, then the database layer alone
            done = orquestra(
                clinics_data,
                "sql",
                "--tenant",
                str(unit),
                "--json",
                *mode,
                "SELECT count(*) FROM apontamentos_revisao",
            )
            assert done.returncode == 0, done.stderr
            assert json.loads(done.stdout)["rows"] == [[expected]], (unit, mode)


async def test_a_question_on_a_table_scoped_through_parents_answers_each_unit_alone(
    clinics_server: Server, clinics_data: Path
) -> None:
    """The probe's question ("how many … do I have?") on a two-level tenant_via table, asked
    through the server with the default offline model, per unit."""
    owner = await asyncpg.connect(_admin_url(clinics_data))
    try:
        truth = {
            unit: sorted(
                tuple(row)
                for row in await owner.fetch(
                    "SELECT a.categoria, count(*) FROM apontamentos_revisao a"
                    " JOIN revisoes_qualidade r USING (cod_revisao)"
                    " JOIN laudos l ON l.id_laudo = r.id_laudo WHERE l.cod_unidade = $1"
                    " GROUP BY 1",
                    unit,
                )
            )
            for unit in (201, 202)
        }
    finally:
        await owner.close()
    assert truth[201] != truth[202]
    for unit, expected in truth.items():
        events = stream(
            clinics_server.url, "apontamentos de revisão por categoria", bearer=token(str(unit))
        )
        result = next(e["data"] for e in events if e["event"] == "result")
        assert sorted(tuple(row) for row in result["rows"]) == expected, unit


def _admin_url(data_dir: Path) -> str:
    from orquestra.core.database import admin_url

    return admin_url(Settings(data_dir=data_dir, deployment="clinics"))
