"""The drain's parts alone: admission, the event relay a cut stops, and the hand-over.

The whole shutdown, over a real process and a signal, is `tests/e2e/test_graceful_shutdown.py`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from fastapi import HTTPException

from orquestra.server.shutdown import Drain


class Source:
    """Events that come one by one, then wait for ever; says whether it was closed."""

    def __init__(self, first: list[str]) -> None:
        self.first = first
        self.closed = False

    async def events(self) -> AsyncIterator[str]:
        try:
            for event in self.first:
                yield event
            await asyncio.Event().wait()  # a run still working
        finally:
            self.closed = True


async def test_once_draining_new_turns_are_refused_with_retry_after() -> None:
    drain = Drain(drain_s=5)
    drain.admit()
    drain.begin()
    with pytest.raises(HTTPException) as refused:
        drain.admit()
    assert refused.value.status_code == 503
    assert refused.value.detail["code"] == "SHUTTING_DOWN"
    assert int((refused.value.headers or {})["Retry-After"]) > 0
    drain.leave()


async def test_an_idle_server_hands_the_signal_over_at_once() -> None:
    drain = Drain(drain_s=3600)
    handed: list[int] = []
    drain.hand_over = handed.append
    await drain.begin(15)
    assert handed == [15]


async def test_a_cut_ends_the_relay_early_and_closes_the_run() -> None:
    drain = Drain(drain_s=0)
    handed: list[int] = []
    drain.hand_over = handed.append
    source = Source(["run", "node"])
    drain.admit()
    relayed: list[str] = []
    draining: list[asyncio.Task[None]] = []

    async def stream() -> None:
        async for event in drain.until_cut(source.events()):
            relayed.append(event)
            if len(relayed) == 2:  # the signal comes while the run still works
                draining.append(drain.begin(15))
        drain.leave()

    await asyncio.wait_for(stream(), 30)
    assert relayed == ["run", "node"] and source.closed
    await draining[0]
    assert handed == [15]


async def test_a_client_that_leaves_stops_the_run_it_was_reading() -> None:
    drain = Drain(drain_s=20)
    source = Source(["run"])
    relay = drain.until_cut(source.events())
    assert await anext(relay) == "run"
    await relay.aclose()
    assert source.closed


async def test_a_failure_of_the_run_reaches_the_stream() -> None:
    async def failing() -> AsyncIterator[str]:
        yield "run"
        raise RuntimeError("the run broke")

    relay = Drain(drain_s=20).until_cut(failing())
    assert await anext(relay) == "run"
    with pytest.raises(RuntimeError, match="the run broke"):
        await anext(relay)
