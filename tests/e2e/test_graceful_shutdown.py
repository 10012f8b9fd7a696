"""SIGTERM to a real `orquestra serve` with turns running: it drains, then exits cleanly.

One server, a scripted model that takes `MODEL_DELAY_MS` a call (a chat turn makes three),
`ORQUESTRA_DRAIN_S` shorter than a whole turn. The signal comes when one turn has only its
last call left (it finishes within the drain) and another has just started (it cannot): the
first ends as usual, the second with `error` `SHUTTING_DOWN` and `done`, and is not kept in
its thread. Meanwhile `/readyz` is 503 and a new turn is refused with `Retry-After`; then
the process exits 0 and its run leases are gone.
"""

from __future__ import annotations

import asyncio
import json
import signal
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import asyncpg
import httpx
import pytest
import yaml
from httpx_sse import connect_sse

from tests.e2e.conftest import Server, start_server, stream, token

MODEL_DELAY_MS = 2_000
DRAIN_S = 4
"""Longer than the last call of a turn, shorter than a whole turn (three calls)."""
QUESTION = "notas fiscais"


class Turn(threading.Thread):
    """A streamed turn read in the background; `reached` is set at the first event for
    which `mark` holds."""

    def __init__(
        self, url: str, bearer: str, mark: Callable[[dict], bool], thread: str | None = None
    ) -> None:
        super().__init__(daemon=True)
        self.url, self.bearer, self.mark, self.thread = url, bearer, mark, thread
        self.events: list[dict] = []
        self.reached = threading.Event()

    def run(self) -> None:
        with (
            httpx.Client(timeout=60) as client,
            connect_sse(
                client,
                "POST",
                f"{self.url}/v1/chat/stream",
                json={"message": QUESTION, "thread_id": self.thread},
                headers={"Authorization": f"Bearer {self.bearer}"},
            ) as source,
        ):
            for sse in source.iter_sse():
                event = {"event": sse.event, "data": json.loads(sse.data)}
                self.events.append(event)
                if self.mark(event):
                    self.reached.set()
        self.reached.set()  # never left waiting, whatever the stream did

    @property
    def kinds(self) -> list[str]:
        return [e["event"] for e in self.events]

    @property
    def thread_id(self) -> str:
        return next(e["data"]["thread_id"] for e in self.events if e["event"] == "run")


@dataclass
class Shutdown:
    """What was seen of one drained shutdown."""

    finishing: Turn
    cut: Turn
    ready_during: int
    refused: httpx.Response
    exit_code: int
    leases_left: int
    committed_before: str | None
    committed_after: dict[str, str | None] = field(default_factory=dict)


def someone() -> str:
    return f"drain-{uuid.uuid4().hex[:8]}"


def ended_router(event: dict) -> bool:
    data = event["data"]
    return event["event"] == "node" and (data.get("node"), data.get("status")) == ("router", "end")


async def committed(url: str, thread_ids: list[str]) -> dict[str, str | None]:
    """Each thread's committed checkpoint (None when the thread was never committed)."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT thread_id, checkpoint_id FROM orquestra_sessions.threads"
            " WHERE thread_id = ANY($1::text[])",
            thread_ids,
        )
    finally:
        await conn.close()
    found = {r["thread_id"]: r["checkpoint_id"] for r in rows}
    return {t: found.get(t) for t in thread_ids}


async def leases_of(url: str, pid: int) -> int:
    conn = await asyncpg.connect(url)
    try:
        return int(
            await conn.fetchval(
                "SELECT count(*) FROM orquestra_sessions.run_leases WHERE holder LIKE $1",
                f"%:{pid}:%",
            )
        )
    finally:
        await conn.close()


def readiness_during_drain(server: Server) -> int:
    """`/readyz` once the signal has been taken (the first answer that is not 200)."""
    deadline = time.monotonic() + 10
    status = 200
    while status == 200 and time.monotonic() < deadline:
        status = httpx.get(f"{server.url}/readyz", timeout=5).status_code
    return status


@pytest.fixture(scope="module")
def shutdown(data_dir: Path, settings, demo_db, tmp_path_factory) -> Shutdown:
    from orquestra.core.database import state_url

    script = tmp_path_factory.mktemp("drain") / "slow_chat.yaml"
    script.write_text(
        yaml.safe_dump(
            {
                "delay_ms": MODEL_DELAY_MS,
                "repeat": ["augmenter", "router", "chat"],
                "roles": {
                    "augmenter": [{"question": QUESTION, "is_data_question": False}],
                    "router": [{"route": "CHAT"}],
                    "chat": ["Posso ajudar com as notas fiscais."],
                },
            }
        )
    )
    server = start_server(
        data_dir, ORQUESTRA_MODELS__DEFAULT=f"scripted:{script}", ORQUESTRA_DRAIN_S=str(DRAIN_S)
    )
    state = state_url(settings)
    try:
        # A thread with one committed turn (a greeting needs no model), to be continued by
        # the turn the drain cuts: its committed turn must stay the same.
        owner = token("101", someone())
        greeted = stream(server.url, "bom dia", bearer=owner)
        thread = next(e["data"]["thread_id"] for e in greeted if e["event"] == "run")
        before = asyncio.run(committed(state, [thread]))[thread]

        finishing = Turn(server.url, token("102", someone()), ended_router)
        finishing.start()
        assert finishing.reached.wait(60), finishing.events  # only its last call is left
        cut = Turn(server.url, owner, lambda e: e["event"] == "run", thread=thread)
        cut.start()
        assert cut.reached.wait(60), cut.events  # it holds its lease; three calls to go

        server.process.send_signal(signal.SIGTERM)
        ready_during = readiness_during_drain(server)
        refused = httpx.post(
            f"{server.url}/v1/chat/stream",
            json={"message": QUESTION},
            headers={"Authorization": f"Bearer {token('103', someone())}"},
            timeout=10,
        )
        finishing.join(60)
        cut.join(60)
        exit_code = server.process.wait(timeout=60)
    finally:
        if server.process.poll() is None:
            server.process.kill()
    seen = Shutdown(
        finishing,
        cut,
        ready_during,
        refused,
        exit_code,
        asyncio.run(leases_of(state, server.process.pid)),
        before,
    )
    seen.committed_after = asyncio.run(committed(state, [thread, finishing.thread_id]))
    return seen


def test_a_turn_that_ends_within_the_drain_is_answered_and_kept(shutdown: Shutdown) -> None:
    turn = shutdown.finishing
    assert turn.kinds[-2:] == ["result", "done"] and "error" not in turn.kinds, turn.events
    assert shutdown.committed_after[turn.thread_id] is not None


def test_a_turn_longer_than_the_drain_ends_with_shutting_down_and_is_not_kept(
    shutdown: Shutdown,
) -> None:
    turn = shutdown.cut
    assert turn.kinds[-2:] == ["error", "done"] and "result" not in turn.kinds, turn.events
    assert turn.events[-2]["data"]["code"] == "SHUTTING_DOWN"
    assert turn.events[-2]["data"]["message"]  # worded for a person
    # The thread still ends at its committed turn: nothing of the cut one was kept.
    assert shutdown.committed_after[turn.thread_id] == shutdown.committed_before is not None


def test_during_the_drain_readiness_fails_and_new_turns_are_refused(shutdown: Shutdown) -> None:
    assert shutdown.ready_during == 503
    refused = shutdown.refused
    assert refused.status_code == 503, refused.text
    assert refused.json()["code"] == "SHUTTING_DOWN"
    assert int(refused.headers["retry-after"]) > 0


def test_the_process_exits_cleanly_and_gives_its_leases_back(shutdown: Shutdown) -> None:
    assert shutdown.exit_code == 0
    assert shutdown.leases_left == 0
