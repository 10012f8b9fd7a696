"""Every dialect slip of the corpus, repaired, answers its question: on the demo's real
database, `normalise` -> guard -> executor as the tenant returns the same rows as the gold SQL
through the same guard and executor (the evaluations' comparison: a multiset of rows, column
order and names ignored, numbers to 2 decimals). And `orquestra sql --dialect` does the same
from the command line, in a process of its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.evals.compare import exact_match
from orquestra.guards import GuardPolicy, guard_sql
from orquestra.guards.dialects import normalise
from orquestra.guards.tenant_query import QueryResult, run_as_tenant
from tests.dialect_slips import DIALECTS, TENANT, DialectSlip, load_slips

ORQUESTRA = str(Path(sys.executable).parent / "orquestra")
REPO = Path(__file__).resolve().parents[2]
SLIPS = load_slips()


@pytest.fixture(scope="module")
def policy() -> GuardPolicy:
    return GuardPolicy.from_catalog(load_catalog())


async def guarded_rows(
    conn: asyncpg.Connection, sql: str, policy: GuardPolicy, settings: Settings
) -> QueryResult:
    """`sql` through the guard (no row cap) and the executor as the tenant (layer 3)."""
    guarded = guard_sql(sql, policy, TENANT, max_rows=0)
    limits = settings.limits.execution()
    return await run_as_tenant(conn, guarded.sql, guarded.params, tenant=TENANT, limits=limits)


@pytest.mark.parametrize("slip", SLIPS, ids=lambda s: s.id)
async def test_a_repaired_slip_returns_the_gold_rows(
    slip: DialectSlip, agent: asyncpg.Connection, policy: GuardPolicy, settings: Settings
) -> None:
    normalised = normalise(slip.sql, DIALECTS)
    assert normalised.dialect in DIALECTS
    answer = await guarded_rows(agent, normalised.sql, policy, settings)
    gold = await guarded_rows(agent, slip.gold, policy, settings)
    assert gold.rows, "a gold with no rows would prove nothing"
    assert len(gold.rows) <= settings.limits.row_cap  # a graph's answer is never truncated
    assert len(answer.columns) == len(gold.columns)
    assert exact_match([list(r) for r in answer.rows], [list(r) for r in gold.rows]), normalised.sql


def orquestra_sql(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "ORQUESTRA_DATA_DIR": str(data_dir)}
    return subprocess.run(
        [ORQUESTRA, "sql", "--tenant", TENANT, *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )


def test_orquestra_sql_reads_another_dialect(data_dir: Path, demo_db: object) -> None:
    top = "SELECT TOP 3 num_pedido, valor_total FROM pedidos ORDER BY valor_total DESC, num_pedido"
    shown = orquestra_sql(data_dir, "--dialect", "tsql", top)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("-- normalised from tsql: SELECT num_pedido, valor_total")
    assert "LIMIT 3" in shown.stdout and "(3 rows" in shown.stdout
    as_json = orquestra_sql(data_dir, "--dialect", "tsql", "--json", top)
    assert as_json.returncode == 0, as_json.stderr
    result = json.loads(as_json.stdout)
    assert result["normalised_from"] == "tsql" and result["row_count"] == 3
    assert result["normalised_sql"].endswith("LIMIT 3")
    assert "cod_fornecedor = $1" in result["sql"] and result["params"] == [TENANT]


def test_orquestra_sql_refuses_an_unknown_dialect(tmp_path: Path) -> None:
    refused = orquestra_sql(tmp_path, "--dialect", "cobol", "SELECT 1")
    assert refused.returncode == 2
    assert refused.stderr.startswith("error [DIALECT_UNKNOWN]: unknown SQL dialect 'cobol'")
    assert "Traceback" not in refused.stderr and refused.stdout == ""
    assert not (tmp_path / "pgdata").exists()  # refused before any database was started
