"""The guard's command lines: `orquestra guard rewrite`, `orquestra sql`, `db policies`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import asyncpg

REPO = Path(__file__).resolve().parents[3]
BIN = Path(sys.executable).parent


def run(args: list[str], data_dir: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "ORQUESTRA_DATA_DIR": str(data_dir)}
    return subprocess.run(
        args, input=stdin, capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )


def test_rewrite_with_a_policy_file(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("tables:\n  orders: {tenant_column: tenant_id}\n  fx: {shared: true}\n")
    command = [
        sys.executable,
        "-m",
        "guards",
        "rewrite",
        "--policy",
        str(policy),
        "--tenant",
        "acme",
        "--max-rows",
        "0",
    ]
    ok = run(command, tmp_path, "SELECT o.total * fx.rate FROM orders o JOIN fx USING (currency)")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout) == {
        "sql": "SELECT o.total * fx.rate FROM (SELECT * FROM public.orders WHERE "
        "orders.tenant_id = $1) AS o INNER JOIN public.fx USING (currency)",
        "params": ["acme"],
    }
    refused = run(command, tmp_path, "SELECT * FROM users")
    assert refused.returncode == 3
    assert json.loads(refused.stdout) == {
        "rejected": "GUARD_TABLE_NOT_ALLOWED",
        "message": "table users is not in the catalog",
    }


def test_rewrite_defaults_to_the_catalog_and_the_row_cap(tmp_path: Path) -> None:
    result = run(
        [str(Path(sys.executable).parent / "orquestra"), "guard", "rewrite", "--tenant", "101"],
        tmp_path,
        "SELECT count(*) FROM notas_fiscais",
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["sql"].endswith("LIMIT 500")


def test_sql_command_guarded_and_raw(demo_db, data_dir: Path) -> None:
    query = "SELECT cod_fornecedor, count(*) FROM notas_fiscais GROUP BY 1"
    guarded = run([str(BIN / "orquestra"), "sql", "--tenant", "102", "--json", query], data_dir)
    assert guarded.returncode == 0, guarded.stderr
    payload = json.loads(guarded.stdout)
    assert payload["params"] == ["102"] and payload["rows"][0][0] == 102
    assert len(payload["rows"]) == 1 and payload["truncated"] is False
    raw = run(
        [
            str(BIN / "orquestra"),
            "sql",
            "--tenant",
            "102",
            "--raw",
            "--json",
            "SELECT DISTINCT cod_fornecedor FROM notas_fiscais",
        ],
        data_dir,
    )
    assert raw.returncode == 0, raw.stderr
    assert json.loads(raw.stdout)["rows"] == [[102]]  # layer 3 alone still filters
    rejected = run(
        [
            str(BIN / "orquestra"),
            "sql",
            "--tenant",
            "102",
            "SELECT set_config('app.tenant_id', '101', false)",
        ],
        data_dir,
    )
    assert rejected.returncode == 3
    assert rejected.stdout.startswith("rejected [GUARD_FUNCTION_NOT_ALLOWED]")
    denied = run(
        [str(BIN / "orquestra"), "sql", "--tenant", "102", "--raw", "DELETE FROM titulos"], data_dir
    )
    assert denied.returncode == 4
    assert "Traceback" not in denied.stdout + denied.stderr


async def test_printed_policies_apply_to_a_fresh_database(
    demo_db, data_dir: Path, db_url: str
) -> None:
    """What a DBA would do: the printed SQL, applied to their own copy of the tables."""
    from orquestra.core.database import with_database, with_user

    printed = run(
        [str(BIN / "orquestra"), "db", "policies", "--print", "--database", "dba_db"], data_dir
    )
    assert printed.returncode == 0, printed.stderr
    assert "FORCE ROW LEVEL SECURITY" in printed.stdout
    admin = await asyncpg.connect(with_database(db_url, "postgres"))
    try:
        await admin.execute("DROP DATABASE IF EXISTS dba_db")
        await admin.execute("CREATE DATABASE dba_db")
    finally:
        await admin.close()
    conn = await asyncpg.connect(with_database(db_url, "dba_db"))
    try:
        await conn.execute(
            "CREATE TABLE pedidos (num_pedido bigint, cod_fornecedor integer);"
            "INSERT INTO pedidos VALUES (1, 101), (2, 102)"
        )
        from orquestra.ddl_catalog import load_catalog

        for table in load_catalog().tables:
            if table != "pedidos":
                await conn.execute(f"CREATE TABLE {table} (cod_fornecedor integer)")
        await conn.execute(printed.stdout)
        agent = await asyncpg.connect(with_user(with_database(db_url, "dba_db"), "orquestra_agent"))
        try:
            async with agent.transaction(readonly=True):
                await agent.execute("SET LOCAL app.tenant_id = '102'")
                assert await agent.fetch("SELECT num_pedido FROM pedidos") == [(2,)]
        finally:
            await agent.close()
    finally:
        await conn.close()


def test_sql_command_shows_times_in_the_deployments_zone(demo_db, data_dir: Path) -> None:
    """A month bucket reads as the month began where the query read dates (the deployment's
    time zone), not as the UTC instant asyncpg returns."""
    query = (
        "SELECT date_trunc('month', data_emissao) AS mes FROM notas_fiscais"
        " WHERE data_emissao >= '2026-06-01' GROUP BY 1"
    )
    orquestra = str(BIN / "orquestra")
    found = run([orquestra, "sql", "--tenant", "101", "--json", query], data_dir)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["rows"] == [["2026-06-01 00:00:00-03:00"]]
    shown = run([orquestra, "sql", "--tenant", "101", query], data_dir)
    assert "2026-06-01 00:00:00-03:00" in shown.stdout and "+00:00" not in shown.stdout
