"""The metrics are for operators only, over real `orquestra serve` processes.

One turn's counter changes tell its route, SQL attempts, each stage's time, the question's
length and the tables chosen, so the public port never serves `/metrics`: the metrics
listener does, on loopback by default, to the token's holder when a token is set, once for
all of `--workers N`; a setting that would open it, or a port it cannot have, stops `serve`
with a named error, never a traceback.
"""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import httpx
import psutil
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.conftest import BIN, Server, free_port, start_server

TOKEN = "operators-only-0123456789abcdef-0123"


def requests_counted(server: Server, path: str, **headers: str) -> float:
    text = httpx.get(server.metrics_url, headers=headers, timeout=10).text
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "orquestra_http_requests_total"
        and sample.labels == {"path": path, "status": "200"}
    )


def outside_address() -> str | None:
    """This machine's address on its network (not loopback), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") else address


def serve_exit(data_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`orquestra serve` expected to stop before serving: its exit code and stderr."""
    return subprocess.run(
        [str(BIN / "orquestra"), "serve", "--port", str(free_port()), *args],
        env={**os.environ, "ORQUESTRA_DATA_DIR": str(data_dir), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_public_port_has_no_metrics_and_the_listener_answers_on_loopback(
    server: Server,
) -> None:
    for path in ("/metrics", "/metrics/", "/metrics?format=json"):
        public = httpx.get(f"{server.url}{path}", timeout=10)
        assert public.status_code == 404 and public.json()["code"] == "NOT_FOUND", path
    listener = httpx.get(server.metrics_url, timeout=10)
    assert listener.status_code == 200
    assert listener.headers["content-type"].startswith("text/plain")
    assert 'orquestra_http_requests_total{path="other",status="404"}' in listener.text
    assert "orquestra_node_seconds" in listener.text and "orquestra_active_streams" in listener.text
    address = outside_address()
    if address is not None:  # the same port, from the machine's network address: nobody
        port = int(server.metrics_url.split(":")[2].split("/")[0])
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://{address}:{port}/metrics", timeout=5)


def test_with_a_token_only_its_holder_reads_the_metrics(data_dir: Path, demo_db) -> None:
    running = start_server(data_dir, ORQUESTRA_METRICS_TOKEN=TOKEN)
    try:
        missing = httpx.get(running.metrics_url, timeout=10)
        wrong = httpx.get(running.metrics_url, headers={"Authorization": "Bearer x"}, timeout=10)
        held = httpx.get(running.metrics_url, headers={"Authorization": f"Bearer {TOKEN}"})
        public = httpx.get(f"{running.url}/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    finally:
        running.stop()
    assert missing.status_code == 401 and missing.json()["code"] == "METRICS_TOKEN_MISSING"
    assert wrong.status_code == 401 and wrong.json()["code"] == "METRICS_TOKEN_INVALID"
    assert held.status_code == 200 and "orquestra_http_requests_total" in held.text
    assert public.status_code == 404  # the token opens the listener, not the public port


@pytest.mark.parametrize(
    ("env", "says"),
    [
        (
            {"ORQUESTRA_METRICS_HOST": "0.0.0.0"},
            "error [CONFIG_INVALID]: ORQUESTRA_METRICS_HOST=0.0.0.0 is not a loopback address:"
            " set ORQUESTRA_METRICS_TOKEN too",
        ),
        (
            {"ORQUESTRA_METRICS_HOST": "0.0.0.0", "ORQUESTRA_METRICS_TOKEN": "short"},
            "error [CONFIG_INVALID]: ORQUESTRA_METRICS_TOKEN must be at least 32 bytes",
        ),
    ],
    ids=["open-without-token", "short-token"],
)
def test_production_refuses_an_open_listener_with_a_named_error(
    data_dir: Path, env: dict[str, str], says: str
) -> None:
    production = {"ORQUESTRA_MODE": "production", "ORQUESTRA_JWT_SECRET": "k" * 32}
    result = serve_exit(data_dir, **production, **env)
    assert result.returncode == 2 and result.stderr.startswith(says), result.stderr[-2000:]
    assert "Traceback" not in result.stderr


def test_a_metrics_port_it_cannot_have_stops_serve_with_a_named_error(
    data_dir: Path, demo_db
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        result = serve_exit(data_dir, ORQUESTRA_METRICS_PORT=port)
    assert result.returncode == 2, result.stderr[-2000:]
    assert result.stderr.startswith("error [METRICS_UNAVAILABLE]: the metrics listener cannot")
    assert f"127.0.0.1:{port}" in result.stderr and "Traceback" not in result.stderr


def test_several_workers_are_read_through_one_listener(data_dir: Path, demo_db) -> None:
    """`serve --workers 2`: the listener starts once, in the process that supervises the
    workers, and adds up what each worker counted."""
    running = start_server(data_dir, args=("--workers", "2"))
    try:
        workers = psutil.Process(running.process.pid).children()
        assert len([w for w in workers if "spawn" in " ".join(w.cmdline())]) >= 2
        before = requests_counted(running, "/healthz")
        for _ in range(30):  # a new connection each: the workers take them in turn
            assert httpx.get(f"{running.url}/healthz", timeout=10).status_code == 200
        assert requests_counted(running, "/healthz") == before + 30
        assert httpx.get(f"{running.url}/metrics", timeout=10).status_code == 404
    finally:
        running.stop()
    assert "Traceback" not in running.logs()
