"""Three `orquestra serve` processes on one database behave as one deployment: the per-tenant
run limit holds across them, a killed process's slots come back within the lease's life, and
a thread started on one continues on another."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import yaml

from tests.e2e.conftest import Server, start_server, stream, token

LIMIT = 2
LEASE_S = 3
MODEL_DELAY_MS = 1_000
"""Each model call takes this long, so a turn (three calls) outlives the requests sent
around it."""


@pytest.fixture(scope="module")
def replicas(
    data_dir: Path, demo_db, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[list[Server]]:
    script = tmp_path_factory.mktemp("replicas") / "slow_chat.yaml"
    script.write_text(
        yaml.safe_dump(
            {
                "delay_ms": MODEL_DELAY_MS,
                "repeat": ["augmenter", "router", "chat"],
                "roles": {
                    "augmenter": [
                        {"question": "notas fiscais", "is_data_question": False, "missing": []}
                    ],
                    "router": [{"route": "CHAT"}],
                    "chat": ["Posso ajudar com as notas fiscais."],
                },
            }
        )
    )
    env = {
        "ORQUESTRA_MODELS__DEFAULT": f"scripted:{script}",
        "ORQUESTRA_MAX_RUNS_PER_TENANT": str(LIMIT),
        "ORQUESTRA_RUN_LEASE_S": str(LEASE_S),
    }
    with ThreadPoolExecutor(3) as starting:  # they start side by side, as replicas do
        servers = list(starting.map(lambda _: start_server(data_dir, **env), range(3)))
    yield servers
    for server in servers:
        if server.process.poll() is None:
            server.stop()


def ask(url: str, bearer: str, thread: str | None = None) -> int:
    """Start a turn and read it to the end; the HTTP status it was answered with."""
    body: dict[str, str] = {"message": "notas fiscais"}
    if thread:
        body["thread_id"] = thread
    with (
        httpx.Client(timeout=60) as client,
        client.stream(
            "POST",
            f"{url}/v1/chat/stream",
            json=body,
            headers={"Authorization": f"Bearer {bearer}"},
        ) as response,
    ):
        for _ in response.iter_bytes():
            pass
        return response.status_code


def at_once(calls: list[tuple[str, str]]) -> list[int]:
    """Every `(url, bearer)` turn started at the same moment; their statuses."""
    statuses: list[int] = [0] * len(calls)
    start = threading.Barrier(len(calls))

    def one(index: int, url: str, bearer: str) -> None:
        start.wait()
        statuses[index] = ask(url, bearer)

    workers = [
        threading.Thread(target=one, args=(i, url, bearer)) for i, (url, bearer) in enumerate(calls)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=90)
    return statuses


def test_the_tenant_limit_holds_across_replicas(replicas: list[Server]) -> None:
    bearer = token("101", "ana")
    statuses = at_once([(server.url, bearer) for server in replicas for _ in range(2)])
    assert sorted(statuses) == [200] * LIMIT + [429] * (6 - LIMIT), statuses
    # Another tenant has its own slots meanwhile, and the freed ones serve again.
    assert ask(replicas[0].url, token("102", "bia")) == 200
    assert ask(replicas[1].url, bearer) == 200


def test_a_thread_started_on_one_replica_continues_on_another(replicas: list[Server]) -> None:
    bearer = token("103", "caio")
    first = stream(replicas[0].url, "notas fiscais", bearer=bearer)
    thread = next(e["data"]["thread_id"] for e in first if e["event"] == "run")
    second = stream(replicas[1].url, "notas fiscais", bearer=bearer, thread=thread)
    assert [e["event"] for e in second][-2:] == ["result", "done"]
    found = httpx.get(
        f"{replicas[2].url}/v1/threads/{thread}",
        headers={"Authorization": f"Bearer {bearer}"},
        timeout=10,
    ).json()
    questions = [m for m in found["messages"] if m["role"] == "user"]
    assert len(questions) == 2


def test_a_killed_replicas_slots_come_back_within_the_lease(replicas: list[Server]) -> None:
    bearer = token("104", "dora")
    doomed, other = replicas[2], replicas[0]
    holders = [
        threading.Thread(target=lambda: _ignore_errors(ask, doomed.url, bearer))
        for _ in range(LIMIT)
    ]
    for holder in holders:
        holder.start()
    time.sleep(1.0)  # both runs have their leases and are waiting on the model
    doomed.process.send_signal(signal.SIGKILL)  # no clean shutdown: the leases stay behind
    doomed.process.wait(timeout=10)
    killed = time.monotonic()
    assert ask(other.url, bearer) == 429  # the dead replica's leases still count…
    while ask(other.url, bearer) == 429:  # …until they expire
        assert time.monotonic() - killed < LEASE_S + 10, "the dead replica's slots never freed"
        time.sleep(0.5)
    for holder in holders:
        holder.join(timeout=30)


def _ignore_errors(call, *args) -> None:
    with contextlib.suppress(httpx.HTTPError):  # the replica was killed under this stream
        call(*args)
