"""The local Studio mode (`ORQUESTRA_STUDIO_DEV_TENANT`) in a real `langgraph dev`: a request
without a token made on the machine itself reads as the named tenant; the same request
relayed by a proxy, from a web page of another site, or from another address is refused; and
a server in production mode refuses to start with it."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from langgraph_sdk import get_client

from tests.integration.graph.langgraph_servers import (
    LANGGRAPH,
    REPO,
    DevServer,
    bearer,
    free_port,
    langgraph_dev,
    server_env,
)

CHAT = {"messages": [{"role": "user", "content": "oi, tudo bem?"}]}
STRONG_SECRET = "a-production-secret-of-at-least-32-bytes!"


@pytest.fixture(scope="module")
def studio(
    tmp_path_factory: pytest.TempPathFactory, data_dir: Path, demo_db
) -> Iterator[DevServer]:
    log = tmp_path_factory.mktemp("studio_dev") / "server.log"
    env = server_env(data_dir, ORQUESTRA_STUDIO_DEV_TENANT="0101")
    with langgraph_dev(log, env, host="0.0.0.0") as running:
        yield running


def outside_address() -> str | None:
    """This machine's address on its network (not loopback), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: only the route is looked up
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if address.startswith("127.") else address


async def test_studio_on_this_machine_reads_as_the_dev_tenant(studio: DevServer) -> None:
    local = get_client(url=studio.url)  # no token, as Studio's page in a browser
    thread = await local.threads.create()
    assert thread["metadata"] | {"tenant": "101", "owner": "studio-dev"} == thread["metadata"]
    out = await local.runs.wait(thread["thread_id"], "orquestra", input=CHAT)
    assert out["route"] == "CHAT" and out["answer"]
    studio_page = {"Origin": "https://smith.langchain.com"}
    async with httpx.AsyncClient() as browser:
        found = await browser.post(f"{studio.url}/threads/search", json={}, headers=studio_page)
    assert found.status_code == 200
    # a token still names its own caller, dev mode or not
    other = get_client(url=studio.url, headers=bearer("102", "bia"))
    assert thread["thread_id"] not in [t["thread_id"] for t in await other.threads.search()]


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Forwarded-For": "203.0.113.9"},
        {"Forwarded": "for=203.0.113.9"},
        {"X-Real-IP": "203.0.113.9"},
        {"Origin": "https://evil.example"},
        {"Host": "orquestra.example.com"},
    ],
    ids=["x-forwarded-for", "forwarded", "x-real-ip", "foreign-page", "public-host"],
)
def test_relayed_or_foreign_requests_need_a_token(studio: DevServer, headers: dict) -> None:
    refused = httpx.post(f"{studio.url}/threads/search", json={}, headers=headers)
    assert refused.status_code == 401, refused.text
    assert "TOKEN_MISSING" in refused.text


def test_another_address_needs_a_token(studio: DevServer) -> None:
    address = outside_address()
    if address is None:
        pytest.skip("this machine has no address besides loopback")
    url = studio.url.replace("127.0.0.1", address)
    assert httpx.post(f"{url}/threads/search", json={}).status_code == 401
    assert httpx.post(f"{url}/threads/search", json={}, headers=bearer("101")).status_code == 200


def test_production_refuses_to_start_in_dev_mode(data_dir: Path, demo_db, tmp_path: Path) -> None:
    env = server_env(
        data_dir,
        ORQUESTRA_MODE="production",
        ORQUESTRA_JWT_SECRET=STRONG_SECRET,
        ORQUESTRA_STUDIO_DEV_TENANT="101",
    )
    command = [str(LANGGRAPH), "dev", "--no-browser", "--no-reload", "--port", str(free_port())]
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, timeout=180)
    assert done.returncode != 0
    assert b"STUDIO_DEV_MODE_REFUSED" in done.stdout + done.stderr
