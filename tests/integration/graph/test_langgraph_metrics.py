"""LangGraph Server's own `/metrics` in a real `langgraph dev`: it serves the process's
Prometheus registry, Orquestra's counters included, and lets no custom route shadow it; the
custom app's middleware (`agent.metrics_gate`) keeps it for operators. With
`ORQUESTRA_METRICS_TOKEN` set, only its holder reads it (without one, the route is a 404:
`test_langgraph_dev.py`)."""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.integration.graph.langgraph_servers import langgraph_dev, server_env

TOKEN = "operators-only-0123456789abcdef-0123"


def test_only_the_token_holder_reads_langgraph_servers_metrics(
    tmp_path: Path, data_dir: Path, demo_db
) -> None:
    env = server_env(data_dir, ORQUESTRA_METRICS_TOKEN=TOKEN)
    with langgraph_dev(tmp_path / "server.log", env) as server:
        missing = httpx.get(f"{server.url}/metrics", timeout=10)
        wrong = httpx.get(f"{server.url}/metrics", headers={"Authorization": "Bearer x"})
        held = httpx.get(f"{server.url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        as_json = httpx.get(
            f"{server.url}/metrics?format=json", headers={"Authorization": "Bearer x"}
        )
        alive = httpx.get(f"{server.url}/ok", timeout=10)
    assert missing.status_code == 401 and missing.json()["code"] == "METRICS_TOKEN_MISSING"
    assert wrong.status_code == 401 and wrong.json()["code"] == "METRICS_TOKEN_INVALID"
    assert as_json.status_code == 401
    assert held.status_code == 200 and "# TYPE orquestra_" in held.text
    assert alive.status_code == 200  # the other routes are not the gate's
