"""A real Orquestra server (uvicorn, over a socket) on the session's embedded database."""

from __future__ import annotations

import fcntl
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from httpx_sse import connect_sse
from playwright.sync_api import Browser, sync_playwright

BIN = Path(sys.executable).parent


_handed_out: set[int] = set()
_handing = threading.Lock()


def free_port() -> int:
    """A port free now and never handed out before in this process: servers started side by
    side (replicas) each take two, and the kernel may offer a just-closed one again."""
    with _handing:
        while True:
            with socket.socket() as sock:
                sock.bind(("127.0.0.1", 0))
                port = sock.getsockname()[1]
            if port not in _handed_out:
                _handed_out.add(port)
                return port


@dataclass
class Server:
    url: str
    process: subprocess.Popen
    log: Path
    """The server's stderr (JSON log lines). A file, not a pipe: a pipe nobody reads fills up
    during a long outage's warnings, and the server then blocks writing its log."""
    metrics_url: str
    """The operators' metrics listener (`/metrics` is not on the public port)."""

    def logs(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def start_server(
    data_dir: Path, probe: str = "/readyz", *, args: tuple[str, ...] = (), **env: str
) -> Server:
    """`orquestra serve` on a free port (extra command-line `args`, extra `env`), once ready,
    its metrics listener on another free port (unless `env` names one)."""
    port = free_port()
    environment = {
        **os.environ,
        "ORQUESTRA_DATA_DIR": str(data_dir),
        "ORQUESTRA_METRICS_PORT": str(free_port()),
        **env,
    }
    log = data_dir / "logs" / f"serve-{port}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as stderr:
        process = subprocess.Popen(
            [str(BIN / "orquestra"), "serve", "--port", str(port), *args],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(log.read_text(encoding="utf-8", errors="replace")[-3000:])
        try:
            if httpx.get(f"{url}{probe}", timeout=2).status_code == 200:
                metrics = f"http://127.0.0.1:{environment['ORQUESTRA_METRICS_PORT']}/metrics"
                return Server(url, process, log, metrics)
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    process.kill()
    raise RuntimeError("the server did not become ready")


@pytest.fixture(scope="session")
def server(data_dir: Path, demo_db) -> Iterator[Server]:
    running = start_server(data_dir)
    yield running
    running.stop()


@pytest.fixture(scope="session")
def demo_server(data_dir: Path, demo_db) -> Iterator[Server]:
    """A server with the demo's dev login (`serve --dev-login`), as `orquestra demo` runs it."""
    running = start_server(data_dir, args=("--dev-login",))
    yield running
    running.stop()


@pytest.fixture(scope="session")
def clinics_server(data_dir: Path, clinics_db) -> Iterator[Server]:
    """A server of the clinics deployment (`ORQUESTRA_DEPLOYMENT=clinics`) with the dev
    login, on the clinics database the session loaded into the same data folder."""
    running = start_server(data_dir, args=("--dev-login",), ORQUESTRA_DEPLOYMENT="clinics")
    yield running
    running.stop()


def orquestra_cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """The `orquestra` command in a process of its own, `env` over the tests' environment."""
    return subprocess.run(
        [str(BIN / "orquestra"), *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
    )


def imported_deployment(url: str, data_dir: Path, folder: Path, *decision: str) -> dict[str, str]:
    """A schema taken as a company would: `init DIR --schema public` with the tenancy
    `decision`, `catalog check`, `db policies --apply`; the environment that serves it."""
    env = {
        "DATABASE_URL": url,
        "ORQUESTRA_DATA_DIR": str(data_dir),
        "ORQUESTRA_DEPLOYMENT": str(folder),
    }
    for step in (
        ("init", str(folder), "--schema", "public", *decision),
        ("catalog", "check"),
        ("db", "policies", "--apply"),
    ):
        done = orquestra_cli(env, *step)
        assert done.returncode == 0, done.stdout + done.stderr
    return env


def token(tenant: str = "101", user: str = "ana") -> str:
    from orquestra.core.settings import Settings
    from orquestra.server.auth import mint_token

    return mint_token(Settings(), tenant, user)


def stream(url: str, message: str, *, bearer: str, thread: str | None = None) -> list[dict]:
    """Every SSE event of one turn, as {"event", "data"} with data parsed."""
    import json

    events = []
    with (
        httpx.Client(timeout=120) as client,
        connect_sse(
            client,
            "POST",
            f"{url}/v1/chat/stream",
            json={"message": message, "thread_id": thread},
            headers={"Authorization": f"Bearer {bearer}"},
        ) as source,
    ):
        for event in source.iter_sse():
            events.append({"event": event.event, "data": json.loads(event.data)})
    return events


FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> str:
    """Debian's Chromium, installed by the test setup when missing (root, package registry)."""
    found = shutil.which("chromium")
    if found is None and os.geteuid() == 0:
        # The suite's workers (pytest-xdist) may all get here at once; apt takes one.
        with open(Path(tempfile.gettempdir()) / "orquestra-chromium.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            found = shutil.which("chromium")
            if found is None:
                env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
                for apt in (["update", "-q"], ["install", "-y", "-q", "chromium"]):
                    subprocess.run(["apt-get", *apt], check=True, env=env, capture_output=True)
                found = shutil.which("chromium")
    if found is None:
        pytest.fail("Chromium is required: install Debian's `chromium` package")
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's Chromium through Playwright, one per test module (Playwright's sync API runs
    its own event loop, which must not outlive the module's tests)."""
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium(), args=FLAGS)
        yield launched
        launched.close()
