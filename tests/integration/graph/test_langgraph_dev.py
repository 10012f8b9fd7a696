"""LangGraph Studio's server: `langgraph dev` serves `langgraph.json` and runs a real thread."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml
from langgraph_sdk import get_client

from tests.integration.graph.scripts import REVENUE_2026, data_turn

REPO = Path(__file__).resolve().parents[3]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def dev_server(tmp_path: Path, data_dir: Path, demo_db) -> str:
    script = tmp_path / "studio.yaml"
    script.write_text(
        yaml.safe_dump(
            {"roles": data_turn("faturamento 2026", REVENUE_2026, answer="Faturamento de 2026.")}
        )
    )
    port = free_port()
    env = {
        **os.environ,
        "ORQUESTRA_DATA_DIR": str(data_dir),
        "ORQUESTRA_MODELS__DEFAULT": f"scripted:{script}",
    }
    command = [
        str(Path(sys.executable).parent / "langgraph"),
        "dev",
        "--no-browser",
        "--no-reload",
        "--port",
        str(port),
    ]
    process = subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read().decode()[-2000:]
            try:
                if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.5)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


async def test_langgraph_dev_runs_a_thread(dev_server: str) -> None:
    client = get_client(url=dev_server)
    assistants = await client.assistants.search(graph_id="orquestra")
    assert assistants, "the graph of langgraph.json is served"
    thread = await client.threads.create()
    output = await client.runs.wait(
        thread["thread_id"],
        "orquestra",
        input={"messages": [{"role": "user", "content": "faturamento por mês em 2026"}]},
        context={"tenant": "101"},
    )
    assert output["answer"] == "Faturamento de 2026."
    assert output["route"] == "ANALYTICS" and output["result"]["row_count"] == 6
    state = await client.threads.get_state(thread["thread_id"])
    assert state["values"]["messages"][-1]["content"] == "Faturamento de 2026."
