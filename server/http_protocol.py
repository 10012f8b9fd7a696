"""HTTP/1.1 for uvicorn with a bounded request head, in size and in time.

uvicorn's default parser (httptools) reads a request head of any size (a 50 MB header cost
the process 99 MB), and no uvicorn parser bounds the time a client takes to send its head,
so a client dripping one header line a second holds a connection forever. Here the head is
parsed by h11 with `h11_max_incomplete_event_size` (the server answers 400 past it), and a
connection whose head is not complete within `head_timeout_s` of its first byte (or of the
connection) is closed. Bodies are bounded separately (`server.middleware.BodyLimit`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

MAX_HEAD_BYTES = 32 * 1024
"""Largest request head (request line and headers); a bearer token is about 1 KiB."""
HEAD_TIMEOUT_S = 10.0
"""Longest time a client may take to send a request head."""


class BoundedH11Protocol(H11Protocol):
    """`H11Protocol` that closes a connection whose request head is too slow."""

    head_timeout_s = HEAD_TIMEOUT_S

    def connection_made(self, transport: Any) -> None:
        self._head_timer: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_arrived()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        previous = self.cycle
        if previous is None or previous.response_complete:
            self._await_head()  # the first byte of a new request head
        super().data_received(data)
        if self.cycle is not previous:
            self._head_arrived()

    def _await_head(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.head_timeout_s, self._too_slow)

    def _head_arrived(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_slow(self) -> None:
        self._head_timer = None
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()
