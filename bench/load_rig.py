"""The load test's rig (bench/load.py): server processes, the proxy, and what is measured of
them — CPU per part, memory and active streams per server, checkpoint rows."""

from __future__ import annotations

import asyncio
import re
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import httpx
import psutil
from prometheus_client.parser import text_string_to_metric_families

REPO = Path(__file__).resolve().parents[1]
SESSIONS = "orquestra_sessions"
CHECKPOINT_TABLES = ["checkpoints", "checkpoint_blobs", "checkpoint_writes"]
"""LangGraph's checkpointer tables in the state database (graph/checkpoints.py); the threads
table beside them holds one row per thread."""


@dataclass
class Server:
    """One `orquestra serve` process and what was sampled of it in the current phase."""

    port: int
    process: subprocess.Popen
    metrics_port: int
    """Its metrics listener (operators only: `/metrics` is not on the public port)."""
    idle_rss: int = 0
    peak_rss: int = 0
    peak_active: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def metrics_url(self) -> str:
        return f"http://127.0.0.1:{self.metrics_port}/metrics"

    def processes(self) -> list[psutil.Process]:
        """The server and its children (the analysis workers)."""
        parent = psutil.Process(self.process.pid)
        return [parent, *parent.children(recursive=True)]

    def rss(self) -> int:
        return sum(p.memory_info().rss for p in self.processes())

    def reset(self) -> None:
        self.idle_rss = self.peak_rss = self.rss()
        self.peak_active = 0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int, env: dict[str, str], logs: Path) -> Server:
    command = [str(Path(sys.executable).parent / "orquestra"), "serve", "--port", str(port)]
    metrics_port = free_port()  # one listener per server process, each on a port of its own
    env = {**env, "ORQUESTRA_METRICS_PORT": str(metrics_port)}
    with open(logs / f"serve-{port}.log", "w") as log:  # the child keeps its own descriptor
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    return Server(port, process, metrics_port)


def nginx_binary() -> str | None:
    found = shutil.which("nginx")
    return found or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


def nginx_version(binary: str) -> str:
    shown = subprocess.run([binary, "-v"], capture_output=True, text=True).stderr
    return shown.strip().split("/")[-1]


def nginx_config(ports: list[int], listen: int, folder: Path) -> Path:
    """deploy/nginx.conf with a local upstream: the settings the deployment ships, only the
    upstream's servers here (Docker's DNS and `resolve`, nginx >= 1.27.3, are not)."""
    text = (REPO / "deploy" / "nginx.conf").read_text(encoding="utf-8")
    local = "\n        ".join(f"server 127.0.0.1:{p};" for p in ports)
    text = re.sub(r"^\s*resolver\s[^;]*;\n", "", text, flags=re.MULTILINE)
    text, replaced = re.subn(r"server\s+orquestra:8000\s+resolve;", local, text)
    text, listened = re.subn(r"listen\s+8080;", f"listen 127.0.0.1:{listen};", text)
    if (replaced, listened) != (1, 1):
        raise SystemExit("deploy/nginx.conf changed shape: no single upstream server / listen")
    target = folder / "nginx.conf"
    target.write_text(text, encoding="utf-8")
    return target


def start_nginx(binary: str, config: Path) -> subprocess.Popen:
    """nginx in the foreground with `config`, after `nginx -t` accepted it."""
    directives = f"daemon off; pid {config.parent / 'nginx.pid'};"
    command = [binary, "-p", str(config.parent), "-c", str(config), "-g", directives]
    subprocess.run([*command, "-t", "-q"], check=True)
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def postgres_processes(pgdata: Path) -> list[psutil.Process]:
    """The embedded server's postmaster (started with `-D pgdata`) and its backends."""
    for process in psutil.process_iter(["cmdline"]):
        command = " ".join(process.info["cmdline"] or [])
        if str(pgdata) in command and "postgres" in process.name():
            return [process, *process.children(recursive=True)]
    return []


def cpu_seconds(processes: list[psutil.Process]) -> float:
    """User and system CPU of `processes`, including their reaped children's."""
    total = 0.0
    for process in processes:
        try:
            t = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


async def active_streams(client: httpx.AsyncClient, server: Server) -> int:
    """The server's `orquestra_active_streams` gauge."""
    text = (await client.get(server.metrics_url, timeout=10)).text
    for family in text_string_to_metric_families(text):
        if family.name == "orquestra_active_streams":
            return int(family.samples[0].value)
    return 0


async def sample(servers: list[Server], every_s: float = 0.25) -> None:
    """Peak memory and active streams of each server, until cancelled."""
    async with httpx.AsyncClient() as client:
        while True:
            for server in servers:
                server.peak_rss = max(server.peak_rss, server.rss())
                try:
                    active = await active_streams(client, server)
                except httpx.HTTPError:
                    continue
                server.peak_active = max(server.peak_active, active)
            await asyncio.sleep(every_s)


async def checkpoint_rows(url: str) -> dict[str, tuple[int, int]]:
    """Rows and bytes in each checkpoint table and the threads table."""
    conn = await asyncpg.connect(url)
    try:
        counted = {}
        for table in [*CHECKPOINT_TABLES, "threads"]:
            row = await conn.fetchrow(
                f"SELECT count(*) AS n, coalesce(sum(pg_column_size(t.*)), 0) AS bytes"
                f" FROM {SESSIONS}.{table} t"
            )
            counted[table] = (row["n"], row["bytes"])
        return counted
    finally:
        await conn.close()
