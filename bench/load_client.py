"""The load test's client (bench/load.py): users with a token each, streams spread over
the targets, and what each stream saw."""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass, field

import httpx
from figures import DATA_QUESTIONS

from orquestra.core.settings import Settings
from orquestra.server.auth import mint_token

TENANTS = ["101", "102", "103", "104", "105"]
"""The demo's tenants; the users take them in turn."""


@dataclass
class Stream:
    """What the client saw of one streamed turn."""

    first_ms: float = 0.0
    total_ms: float = 0.0
    error: str | None = None
    status: int = 0
    kinds: list[str] = field(default_factory=list)
    """The events' kinds, in order."""
    thread_id: str | None = None
    code: str | None = None
    """The `error` event's code, if one came."""
    left: bool = False
    """The client went away mid-stream (`leave_after`)."""


async def one_stream(
    client: httpx.AsyncClient,
    url: str,
    token: str,
    question: str,
    *,
    thread: str | None = None,
    leave_after: str | None = None,
) -> Stream:
    """One streamed turn; a status but 200, an `error` event or no `result`/`done` is an error.
    `leave_after`: the client goes away once an event of that kind has come."""
    stream, started = Stream(), time.perf_counter()
    try:
        async with client.stream(
            "POST",
            f"{url}/v1/chat/stream",
            json={"message": question, "thread_id": thread},
            headers={"Authorization": f"Bearer {token}"},
        ) as response:
            stream.status = response.status_code
            if response.status_code != 200:
                stream.error = f"HTTP {response.status_code}: {(await response.aread())[:160]!r}"
                return stream
            await _read(response, stream, started, leave_after)
    except httpx.HTTPError as exc:
        stream.error = f"{type(exc).__name__}: {exc}"
    stream.total_ms = (time.perf_counter() - started) * 1000
    if stream.error is None and not stream.left and not {"result", "done"} <= set(stream.kinds):
        stream.error = f"the stream ended without result and done (saw {sorted(stream.kinds)})"
    return stream


async def _read(
    response: httpx.Response, stream: Stream, started: float, leave_after: str | None
) -> None:
    kind = ""
    async for line in response.aiter_lines():
        if line.startswith("event:"):
            kind = line[6:].strip()
            stream.kinds.append(kind)
            stream.first_ms = stream.first_ms or (time.perf_counter() - started) * 1000
        elif line.startswith("data:") and kind == "run":
            stream.thread_id = json.loads(line[5:])["thread_id"]
        elif line.startswith("data:") and kind == "error":
            data = json.loads(line[5:])
            stream.code = data.get("code")
            stream.error = f"error event {data.get('code')}: {data.get('message')}"
        if kind == leave_after and line.startswith("data:"):
            stream.left = True  # leaving the block closes the connection mid-stream
            return


class Client:
    """The users: one token each (tenants in turn), streams spread over the targets."""

    def __init__(self, settings: Settings, targets: list[str], users: int) -> None:
        self.targets = targets
        self.tokens = [
            mint_token(settings, TENANTS[i % len(TENANTS)], f"load-{i}") for i in range(users)
        ]
        # Idle connections are let go before the servers' own keep-alive limit (uvicorn: 5 s),
        # so a request never goes out on a connection the server is closing.
        limits = httpx.Limits(
            max_connections=users + 20, max_keepalive_connections=users, keepalive_expiry=3
        )
        self.http = httpx.AsyncClient(timeout=httpx.Timeout(300, connect=60), limits=limits)

    async def turn(self, i: int) -> Stream:
        url = self.targets[i % len(self.targets)]
        question = DATA_QUESTIONS[i % len(DATA_QUESTIONS)]
        return await one_stream(self.http, url, self.tokens[i % len(self.tokens)], question)

    async def burst(self, count: int) -> list[Stream]:
        """`count` streams started at the same moment."""
        return list(await asyncio.gather(*(self.turn(i) for i in range(count))))

    async def staggered(self, users: int, rounds: int, spread_s: float) -> list[Stream]:
        """`users` each asking `rounds` times in a row, first turns spread over `spread_s`."""

        async def user(i: int) -> list[Stream]:
            await asyncio.sleep(spread_s * i / users)
            return [await self.turn(i + r * users) for r in range(rounds)]

        done = await asyncio.gather(*(user(i) for i in range(users)))
        return [s for streams in done for s in streams]
