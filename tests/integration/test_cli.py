"""The `orquestra` command as a user runs it: separate processes, real database."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import asyncpg
import httpx

from tests.catalog_copies import catalog_copy, edit

ORQUESTRA = [str(Path(sys.executable).parent / "orquestra")]
REPO = Path(__file__).resolve().parents[2]


def run(*args: str, data_dir: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "ORQUESTRA_DATA_DIR": str(data_dir), **env}
    return subprocess.run(
        [*ORQUESTRA, *args], capture_output=True, text=True, env=environment, cwd=REPO, timeout=300
    )


def test_second_process_shares_the_running_server(demo_db, data_dir: Path, db_url: str) -> None:
    result = run("db", "init", data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    assert "already loaded" in result.stdout
    for code in ("101", "102", "103", "104", "105"):
        assert code in result.stdout
    assert "notas_fiscais" in result.stdout

    async def still_up() -> int:
        conn = await asyncpg.connect(db_url)
        try:
            return await conn.fetchval("SELECT count(*) FROM fornecedores")
        finally:
            await conn.close()

    import asyncio

    assert asyncio.run(still_up()) == 5  # the other process left our server running


def test_demo_reports_then_serves_until_interrupted(demo_db, data_dir: Path) -> None:
    from tests.e2e.conftest import free_port

    port, metrics_port = free_port(), free_port()
    env = {
        **os.environ,
        "ORQUESTRA_DATA_DIR": str(data_dir),
        "ORQUESTRA_METRICS_PORT": str(metrics_port),
    }
    demo = subprocess.Popen(
        [*ORQUESTRA, "demo", "--port", str(port)],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        assert httpx.get(f"http://127.0.0.1:{port}/").text.startswith("<!doctype html>")
        # A developer sees the metrics on this machine, never on the web chat's port.
        metrics = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics")
        assert metrics.status_code == 200 and "orquestra_http_requests_total" in metrics.text
        assert httpx.get(f"http://127.0.0.1:{port}/metrics").status_code == 404
    finally:
        demo.send_signal(signal.SIGINT)  # what Ctrl-C does
        out, err = demo.communicate(timeout=60)
    assert demo.returncode == 0, err
    assert "Tenants" in out and "Estrela Têxtil ME" in out and "eventos_rastreamento" in out
    assert "catalog check: clean" in out
    assert f"Web chat: http://127.0.0.1:{port}/" in out and "Demo token for tenant 101:" in out
    assert (
        f"Metrics (operators only, not the web chat's port): http://127.0.0.1:{metrics_port}/metrics"
        in out
    )


def test_catalog_check_on_a_broken_copy_exits_1_with_file_and_line(
    demo_db, data_dir: Path, tmp_path: Path
) -> None:
    folder = catalog_copy(tmp_path)
    line = edit(folder / "systems" / "vendas.yaml", "numeric(14,2)", "numeric(16,4)")
    result = run("catalog", "check", "--catalog", str(folder), data_dir=data_dir)
    assert result.returncode == 1
    assert f"vendas.yaml:{line}: TYPE_MISMATCH" in result.stdout
    assert "1 drift" in result.stdout


def test_unreachable_database_is_a_clear_error_without_traceback(tmp_path: Path) -> None:
    result = run("db", "init", data_dir=tmp_path, DATABASE_URL="postgresql://u@127.0.0.1:1/erp")
    assert result.returncode == 2
    assert result.stderr.startswith(
        "error [DB_UNAVAILABLE]: cannot reach PostgreSQL at 127.0.0.1:1/erp"
    )
    assert "Traceback" not in result.stderr


def test_invalid_setting_is_a_clear_error(tmp_path: Path) -> None:
    result = run("db", "init", data_dir=tmp_path, ORQUESTRA_CAPS__MAX_FIX_ATTEMPTS="many")
    assert result.returncode == 2
    assert "error [CONFIG_INVALID]: setting caps.max_fix_attempts" in result.stderr
    assert "Traceback" not in result.stderr


def test_fresh_data_dir_initialises_and_stops_the_server_on_exit(tmp_path: Path) -> None:
    data_dir = tmp_path / "fresh"
    result = run("db", "init", "--scale", "0.05", data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    assert "Sample data of logistics loaded" in result.stdout
    assert (data_dir / "pgdata" / "PG_VERSION").exists()
    assert not (data_dir / "pgdata" / "postmaster.pid").exists()  # stopped cleanly


def test_ask_streams_an_answer_and_renders_the_chart(
    demo_db, data_dir: Path, tmp_path: Path
) -> None:
    chart = tmp_path / "faturamento.svg"
    result = run(
        "ask",
        "--tenant",
        "101",
        "--chart",
        str(chart),
        "faturamento por mês em 2026",
        data_dir=data_dir,
    )
    assert result.returncode == 0, result.stderr
    assert "Encontrei 6 linhas" in result.stdout
    assert "· executor" in result.stderr and "SQL (attempt 1)" in result.stderr
    assert chart.read_text().startswith("<svg")


def test_a_yearly_series_is_said_and_tabled_by_its_years(demo_db, data_dir: Path) -> None:
    """ "In Jan 01, 2026 03:00, freight spend fell…": the trend's period came to the answer
    as the UTC instant of the local new year; the terminal's table printed those instants."""
    result = run("ask", "--tenant", "101", "freight spend year over year", data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    assert "In 2026, freight spend" in result.stdout, result.stdout
    assert "03:00" not in result.stdout and "+00:00" not in result.stdout
    lines = result.stdout.splitlines()
    table = lines[next(i for i, line in enumerate(lines) if line.startswith("year ")) :]
    assert [line.split()[0] for line in table[1:]] == ["2024", "2025", "2026"], table


def test_invoices_issued_in_a_month_are_counted_by_their_issue_date(
    demo_db, data_dir: Path
) -> None:
    """ "quantas notas foram emitidas em junho?" counted only the notes still in the EMITIDA
    state (none): a row's first state said with a past period is the event that dates it.
    The default offline model, the real guard and database, in a real process."""
    gold = run(
        "sql",
        "--tenant",
        "101",
        "--json",
        "SELECT count(*) FROM notas_fiscais"
        " WHERE data_emissao >= '2026-06-01' AND data_emissao < '2026-07-01'",
        data_dir=data_dir,
    )
    assert gold.returncode == 0, gold.stderr
    issued = json.loads(gold.stdout)["rows"][0][0]
    assert issued > 0
    result = run(
        "ask", "--tenant", "101", "quantas notas foram emitidas em junho?", data_dir=data_dir
    )
    assert result.returncode == 0, result.stderr
    sql = next(line for line in result.stderr.splitlines() if "SQL (attempt 1)" in line)
    assert "'EMITIDA'" not in sql and "data_emissao >=" in sql, sql
    assert f"{issued:,}".replace(",", ".") in result.stdout, result.stdout


def test_a_deployments_guardrails_file_with_its_own_rail_and_codes(
    demo_db, data_dir: Path, tmp_path: Path
) -> None:
    rails = tmp_path / "guardrails.yaml"
    rails.write_text(
        "input:\n"
        "  - {code: PINJ}\n"
        "  - {code: ACME_WORD, type: external, "
        "class: 'tests.plugins.acme_guardrails:ForbiddenWord', options: {word: concorrente}}\n"
    )
    mapping = tmp_path / "mapping.yaml"
    mapping.write_text("codes: {GRL.ACME_WORD: ACME-017}\n")
    result = run(
        "ask",
        "--json",
        "--tenant",
        "101",
        "quanto o concorrente faturou?",
        data_dir=data_dir,
        ORQUESTRA_GUARDRAILS_FILE=str(rails),
        ORQUESTRA_OBSERVABILITY_MAPPING_FILE=str(mapping),
        PYTHONPATH=str(REPO),  # the deployment's package must be importable
    )
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    node = next(
        e["data"] for e in events if e["data"].get("node") == "input_rails" and "ms" in e["data"]
    )
    assert node["blocked_by"] == "ACME_WORD" and node["code"] == "ACME-017"
    answer = next(e["data"]["answer"] for e in events if e["event"] == "result")
    assert "(ACME-017)" in answer


def test_a_broken_guardrails_file_stops_serving_with_a_clear_error(
    data_dir: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "guardrails.yaml"
    broken.write_text("input:\n  - {code: PINJ, type: external}\n")
    result = run("serve", data_dir=data_dir, ORQUESTRA_GUARDRAILS_FILE=str(broken))
    assert result.returncode == 2
    assert result.stderr.startswith("error [GUARDRAILS_INVALID]: ")
    assert str(broken) in result.stderr and "external entries need" in result.stderr
    assert "Traceback" not in result.stderr
