"""`orquestra serve` reads the deployment's guardrails file once: the command line checks it
before serving (a broken file is a clear error), and the server it starts uses what it read;
every line it logs is JSON, uvicorn's own included."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from urllib.parse import urlparse

import httpx

from tests.e2e.conftest import start_server, token

REPO = Path(__file__).resolve().parents[2]


def test_serve_loads_the_guardrails_file_once(data_dir: Path, demo_db, tmp_path: Path) -> None:
    record = tmp_path / "loads.txt"
    rails = tmp_path / "guardrails.yaml"
    rails.write_text(
        "input:\n"
        "  - {code: PINJ}\n"
        "  - {code: COUNTED, type: external, "
        f"class: 'tests.plugins.acme_guardrails:LoadCounter', options: {{record: '{record}'}}}}\n"
    )
    server = start_server(data_dir, ORQUESTRA_GUARDRAILS_FILE=str(rails), PYTHONPATH=str(REPO))
    try:
        answer = httpx.post(
            f"{server.url}/v1/chat/stream",
            json={"message": "olá"},
            headers={"Authorization": f"Bearer {token()}"},
            timeout=30,
        )
        assert answer.status_code == 200
        _not_http(server.url)
    finally:
        server.stop()
    loads = record.read_text().split()
    assert loads == [str(server.process.pid)]  # once, in the serving process
    # uvicorn's own warning about a request that is not HTTP is a JSON line like ours
    lines = [json.loads(line) for line in server.logs().splitlines() if line.strip()]
    assert any(line.get("logger", "").startswith("uvicorn") for line in lines), lines


def _not_http(url: str) -> None:
    """A request uvicorn cannot parse (it logs "Invalid HTTP request received")."""
    where = urlparse(url)
    with socket.create_connection((where.hostname or "", where.port or 80), timeout=10) as raw:
        raw.sendall(b"\x16\x03\x01 not http at all\r\n\r\n")
        raw.recv(1024)
