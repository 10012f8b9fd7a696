"""Graceful shutdown: on SIGTERM (or Ctrl-C) the server drains its turns before it stops.

Left to itself, uvicorn closes the listening socket at the first SIGTERM and waits, without a
bound, for open connections, while sse-starlette cancels every event stream at once: a client
saw its answer stop mid-sentence with no `error` and no `done`, and a load balancer could not
learn from `/readyz` that this process was leaving. Here the signal reaches the app first
(`Drain.on_signals`, in the lifespan) and the drain is ours:

1. at once, `/readyz` answers 503 and a new turn is refused with 503 `SHUTTING_DOWN` and
   `Retry-After`; the listener stays open, so those answers can be given;
2. running turns get up to `drain_s` (`ORQUESTRA_DRAIN_S`) to finish as usual;
3. a turn still running then is cancelled and its stream ends with an `error` event
   `SHUTTING_DOWN` and `done`: like any failed turn it is not committed to its thread, and its
   run lease is given back as its stream ends;
4. only then is the signal handed to uvicorn, which closes the listener and the idle
   connections and runs the lifespan's shutdown (the leases this process still holds are
   deleted there).

A second signal during the drain ends the running turns at once (still with `error` and
`done`). With `serve --workers N`, each worker drains by itself when the supervisor passes
the signal on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from types import FrameType
from typing import Any, TypeVar

import anyio
from fastapi import HTTPException

from orquestra.server.middleware import RETRY_AFTER_S

log = logging.getLogger("orquestra.server")
T = TypeVar("T")
SIGNALS = (signal.SIGTERM, signal.SIGINT)
CUT_WAIT_S = 15.0
"""How long cut turns may take to end their streams (a run's cancellation is bounded by
`graph.events.CANCEL_WAIT_S`) before the signal goes to uvicorn anyway."""
AFTER_DRAIN_S = 10
"""uvicorn's own graceful shutdown (`timeout_graceful_shutdown`), which begins once the drain
is over: a connection still open then (a client slow to read its last events) gets this long
before its task is cancelled, so a stop is bounded."""
REFUSED = "the server is shutting down; ask again in a moment"


class Drain:
    """This process's running turns, and the drain that ends them when a signal comes."""

    def __init__(self, drain_s: float) -> None:
        self.drain_s = drain_s
        self.draining = False
        """Set by the first signal: `/readyz` is 503 and new turns are refused from then on."""
        self.running = 0
        """Turns admitted and not yet ended (counted from their run lease to their last event)."""
        self._idle = asyncio.Event()
        self._idle.set()
        self._cut = False
        self._pumps: set[asyncio.Task[None]] = set()
        self._task: asyncio.Task[None] | None = None
        self.hand_over: Callable[[int], None] = lambda sig: None
        """What the signal does once the drain is over (`on_signals` sets it)."""

    def refuse_when_draining(self) -> None:
        """503 `SHUTTING_DOWN` with `Retry-After` once the drain has begun."""
        if self.draining:
            raise HTTPException(
                503,
                {"code": "SHUTTING_DOWN", "message": REFUSED},
                headers={"Retry-After": str(RETRY_AFTER_S)},
            )

    def admit(self) -> None:
        """Count a new turn in, or refuse it (`refuse_when_draining`)."""
        self.refuse_when_draining()
        self.running += 1
        self._idle.clear()

    def leave(self) -> None:
        """A turn admitted by `admit` has ended (exactly once per admission)."""
        self.running -= 1
        if self.running == 0:
            self._idle.set()

    async def until_cut(self, events: AsyncIterator[T]) -> AsyncGenerator[T, None]:
        """`events` as they come, until the drain cuts the running turns: `events` is then
        closed (its run cancelled) and this ends early, without the last events. Whoever
        reads it tells the two ends apart by whether the last event came."""
        if self._cut:
            return
        queue: asyncio.Queue[tuple[T] | None] = asyncio.Queue()
        pump = asyncio.create_task(_pump(events, queue), name="turn-events")
        self._pumps.add(pump)
        try:
            while (item := await queue.get()) is not None:
                yield item[0]
            await asyncio.wait([pump])
            failure = None if pump.cancelled() else pump.exception()
            if failure is not None:
                raise failure
        finally:
            self._pumps.discard(pump)
            if not pump.done():  # the client left: the run must stop, and be seen to stop
                pump.cancel()
                with anyio.CancelScope(shield=True):
                    await asyncio.wait([pump])

    def begin(self, sig: int = signal.SIGTERM) -> asyncio.Task[None]:
        """The first signal starts the drain; a second one cuts the running turns now. The
        drain's task (it ends once the signal is handed over)."""
        if self._task is not None:
            log.warning("second signal: ending the running turns now")
            self._cut_turns()
            return self._task
        self.draining = True
        log.warning(
            "shutting down: new turns refused, %d running given %g s to finish",
            self.running,
            self.drain_s,
            extra={"running": self.running, "drain_s": self.drain_s},
        )
        self._task = asyncio.create_task(self._drain(sig), name="drain")
        return self._task

    async def _drain(self, sig: int) -> None:
        if not await _set_within(self._idle, self.drain_s):
            log.warning("drain over: ending %d turns with SHUTTING_DOWN", self.running)
            self._cut_turns()
            if not await _set_within(self._idle, CUT_WAIT_S):
                log.error("%d turns did not end within %g s of the cut", self.running, CUT_WAIT_S)
        self.hand_over(sig)

    def _cut_turns(self) -> None:
        self._cut = True
        for pump in self._pumps:
            pump.cancel()

    @contextlib.contextmanager
    def on_signals(self) -> Iterator[None]:
        """While the app serves, SIGTERM and SIGINT start the drain; when it is over, the
        signal goes on to the handler that was there before (uvicorn's, which stops the
        server). Signals reach only the main thread: elsewhere (an in-process test client)
        there is nothing to take over."""
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        loop = asyncio.get_running_loop()
        previous: dict[int, Any] = {sig: signal.getsignal(sig) for sig in SIGNALS}

        def caught(sig: int, frame: FrameType | None) -> None:
            loop.call_soon_threadsafe(self.begin, sig)

        def hand_over(sig: int) -> None:
            handler = previous[sig]
            if callable(handler):
                handler(sig, None)
            else:  # no Python handler before ours: the signal does what it did by default
                signal.signal(sig, handler)
                signal.raise_signal(sig)

        self.hand_over = hand_over
        for sig in SIGNALS:
            signal.signal(sig, caught)
        try:
            yield
        finally:
            for number, handler in previous.items():
                if signal.getsignal(number) is caught:
                    signal.signal(number, handler)


async def _pump(events: AsyncIterator[T], queue: asyncio.Queue[tuple[T] | None]) -> None:
    """Move `events` into `queue` (each in a tuple), then `None`; in a task of its own, so
    that the drain can cancel the run it reads from while the stream waits."""
    try:
        async for event in events:
            queue.put_nowait((event,))
    finally:
        queue.put_nowait(None)


async def _set_within(event: asyncio.Event, seconds: float) -> bool:
    """Whether `event` is set now or within `seconds`."""
    if event.is_set():
        return True
    try:
        await asyncio.wait_for(event.wait(), seconds)
    except TimeoutError:
        return False
    return True
