"""`langgraph dev` as a user starts it: the repository's `langgraph.json`, a real process, a
real port; and what the tests check the answers against (the database, read as the owner)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from orquestra.core.database import admin_url
from orquestra.core.settings import Settings
from orquestra.guards.tokens import mint_token

REPO = Path(__file__).resolve().parents[3]
LANGGRAPH = Path(sys.executable).parent / "langgraph"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class DevServer:
    """A running `langgraph dev`: its URL, its process and the file its log goes to."""

    url: str
    process: subprocess.Popen[bytes]
    log: Path
    started_s: float
    """Seconds from launch to the first `/ok` (the resources open before it answers)."""

    def log_text(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


def server_env(data_dir: Path, **extra: str) -> dict[str, str]:
    """The test session's hermetic environment, the embedded database's folder, and
    `extra`; no model is configured (the default offline model answers)."""
    env = {**os.environ, "ORQUESTRA_DATA_DIR": str(data_dir), **extra}
    env.pop("ORQUESTRA_MODELS__DEFAULT", None)
    return env


@contextmanager
def langgraph_dev(
    log: Path, env: Mapping[str, str], *, host: str = "127.0.0.1", timeout_s: float = 120
) -> Iterator[DevServer]:
    """`langgraph dev` on a free port, without `--allow-blocking`; stopped on exit. Its log
    goes to a file (a pipe nobody reads would stall the server once full)."""
    port = free_port()
    command = [str(LANGGRAPH), "dev", "--no-browser", "--no-reload", "--host", host]
    started = time.monotonic()
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [*command, "--port", str(port)], cwd=REPO, env=dict(env), stdout=sink, stderr=sink
        )
    url = f"http://127.0.0.1:{port}"
    try:
        while time.monotonic() - started < timeout_s:
            if process.poll() is not None:
                raise RuntimeError(f"langgraph dev exited:\n{log.read_text()[-3000:]}")
            try:
                if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.25)
        else:
            raise RuntimeError(f"langgraph dev did not start:\n{log.read_text()[-3000:]}")
        yield DevServer(url, process, log, time.monotonic() - started)
    finally:
        process.terminate()
        process.wait(timeout=30)


def bearer(tenant: str, user: str = "ana", settings: Settings | None = None) -> dict[str, str]:
    """The header of a token `orquestra token` would mint for `tenant` and `user`."""
    return {"Authorization": f"Bearer {mint_token(settings or Settings(), tenant, user)}"}


async def rows_as(settings: Settings, sql: str, tenant: str) -> list[list[Any]]:
    """The rows the guarded `sql` (tenant as `$1`) returns for `tenant`, read as the owner
    in the deployment's time zone (as the executor reads)."""
    conn = await asyncpg.connect(admin_url(settings))
    try:
        await conn.execute(f"SET TimeZone = '{settings.limits.timezone}'")
        return [list(r.values()) for r in await conn.fetch(sql, int(tenant))]
    finally:
        await conn.close()


def money(rows: list[list[Any]]) -> list[float]:
    """The last column of each row, rounded to cents (the answer's figures)."""
    return [round(float(row[-1]), 2) for row in rows]
