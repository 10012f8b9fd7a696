"""Faults on demand: a database that goes away, and clients that misbehave.

The session's embedded PostgreSQL listens on a Unix socket and is shared by every test, so a
test never stops it. Instead a server process is pointed at `PostgresProxy` (`DATABASE_URL`
from `url()`), and `cut()` makes the database vanish for that process alone: every live
connection is closed at once and new ones are refused, until `restore()`.

`push_request` is a raw-socket client for what a polite HTTP library will not send: bodies
of hundreds of megabytes, endless chunked uploads, oversized heads.
"""

from __future__ import annotations

import contextlib
import json
import re
import select
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

import psutil

BUFFER = 65536


def upstream_address(url: str) -> tuple[int, str | tuple[str, int]]:
    """(address family, address) of the PostgreSQL a libpq-style URL points at."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    host = query.get("host", [parts.hostname or ""])[0]
    port = parts.port or int(query.get("port", ["5432"])[0])
    if host.startswith("/"):
        return socket.AF_UNIX, f"{host}/.s.PGSQL.{port}"
    return socket.AF_INET, (host or "127.0.0.1", port)


class PostgresProxy:
    """Forwards 127.0.0.1:`port` to the PostgreSQL of `target_url`, byte for byte."""

    def __init__(self, target_url: str) -> None:
        self.family, self.address = upstream_address(target_url)
        self.port = 0
        self.cut_at: float | None = None
        """`time.monotonic()` of the last `cut()`."""
        self._lock = threading.Lock()
        self._live: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        self._closed = False

    def url(self, user: str, database: str) -> str:
        """A URL through the proxy (PostgreSQL trusts 127.0.0.1 in the embedded server)."""
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}"

    def start(self) -> PostgresProxy:
        self._listen()
        return self

    def cut(self) -> None:
        """The database goes away: live connections closed, new ones refused."""
        with self._lock:
            listener, self._listener = self._listener, None
            live, self._live = self._live, set()
            self.cut_at = time.monotonic()
        if listener is not None:
            _hard_close(listener)  # shutdown wakes the thread blocked in accept()
        for sock in live:
            _hard_close(sock)

    def restore(self) -> None:
        """The database is back on the same port."""
        with self._lock:
            if self._listener is not None or self._closed:
                return
        self._listen()

    def close(self) -> None:
        self._closed = True
        self.cut()

    @property
    def connections(self) -> int:
        """Client connections open through the proxy now."""
        with self._lock:
            return len(self._live) // 2

    def _listen(self) -> None:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        with self._lock:
            self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # the listener was closed by cut()
            try:
                upstream = socket.socket(self.family, socket.SOCK_STREAM)
                upstream.connect(self.address)
            except OSError:
                _hard_close(client)
                continue
            with self._lock:
                if self._listener is not listener:  # cut while connecting
                    _hard_close(client)
                    _hard_close(upstream)
                    return
                self._live.update((client, upstream))
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(BUFFER):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            with self._lock:
                self._live.discard(source)
                self._live.discard(sink)
            _hard_close(source)
            _hard_close(sink)


def _hard_close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()


@dataclass
class RawResponse:
    """What a misbehaving client got back."""

    status: int | None
    """Final status, or None if the connection ended without an answer."""
    headers: dict[str, str]
    body: bytes
    sent: int
    """Request bytes (after the head) sent before the answer came or the connection ended."""
    interim: list[int] = field(default_factory=list)
    """Informational statuses seen first (100 Continue)."""

    def json(self) -> dict:
        return json.loads(self.body)


def filler(total: int, chunk: int = BUFFER) -> Iterator[bytes]:
    """`total` bytes of body, a chunk at a time (generated, never held whole)."""
    block = b"x" * chunk
    while total > 0:
        yield block[: min(chunk, total)]
        total -= chunk


def chunked(parts: Iterable[bytes]) -> Iterator[bytes]:
    """The same parts in HTTP/1.1 chunked transfer coding."""
    for part in parts:
        yield b"%x\r\n%s\r\n" % (len(part), part)
    yield b"0\r\n\r\n"


def push_request(
    url: str, head: bytes, parts: Iterable[bytes] = (), *, timeout_s: float = 30.0
) -> RawResponse:
    """Send `head` and then `parts` over a raw socket, stopping the upload as soon as the
    server answers (a server that refuses a body may answer, and close, long before the
    upload ends). A reset after the answer's status line is tolerated."""
    parts = iter(parts)
    parsed = urlsplit(url)
    sock = socket.create_connection((parsed.hostname, parsed.port), timeout=timeout_s)
    deadline = time.monotonic() + timeout_s
    received, sent, interim = b"", 0, []
    pending: bytes | None = head
    counting = False
    try:
        sock.setblocking(False)
        while time.monotonic() < deadline:
            writers = [sock] if pending is not None else []
            readable, writable, _ = select.select([sock], writers, [], 0.2)
            if readable:
                try:
                    data = sock.recv(BUFFER)
                except OSError:
                    break
                if not data:
                    break
                received += data
                received = _drop_interim(received, interim)
                if b"\r\n\r\n" in received:
                    break
            if writable and pending is not None:
                try:
                    written = sock.send(pending)
                except OSError:
                    pending = None  # the server stopped listening; its answer may be queued
                    continue
                sent += written if counting else 0
                pending = pending[written:] or None
                if pending is None:
                    pending, counting = next(parts, None), True
        received += _read_rest(sock, received, deadline)
    finally:
        _hard_close(sock)
    return _parse(received, sent, interim)


def _drop_interim(received: bytes, interim: list[int]) -> bytes:
    while received.startswith(b"HTTP/1.1 1") and b"\r\n\r\n" in received:
        line, received = received.split(b"\r\n\r\n", 1)
        interim.append(int(line.split()[1]))
    return received


def _read_rest(sock: socket.socket, received: bytes, deadline: float) -> bytes:
    """The rest of an answer whose head (or part of it) has arrived."""
    more = b""
    sock.setblocking(True)
    while time.monotonic() < deadline:
        head, _, body = (received + more).partition(b"\r\n\r\n")
        length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
        if _ and length and len(body) >= int(length.group(1)):
            break
        sock.settimeout(max(0.05, min(2.0, deadline - time.monotonic())))
        try:
            data = sock.recv(BUFFER)
        except OSError:
            break
        if not data:
            break
        more += data
    return more


def _parse(received: bytes, sent: int, interim: list[int]) -> RawResponse:
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status_line = lines[0].split()
    if len(status_line) < 2 or not status_line[1].isdigit():
        return RawResponse(None, {}, body, sent, interim)
    headers = {
        name.strip().lower(): value.strip()
        for name, _, value in (line.partition(":") for line in lines[1:])
    }
    return RawResponse(int(status_line[1]), headers, body, sent, interim)


class PeakMemory:
    """The highest resident memory of a process while the block runs (sampled every 5 ms),
    so a buffer the server fills and frees again is still seen."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.before = self.peak = self.after = 0
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> PeakMemory:
        self.before = self.peak = self.process.memory_info().rss
        self._sampler.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._sampler.join()
        self.after = self.process.memory_info().rss
        self.peak = max(self.peak, self.after)

    @property
    def growth_mb(self) -> float:
        return (self.peak - self.before) / 1e6

    def report(self) -> str:
        mb = 1e6
        return (
            f"RSS before {self.before / mb:.1f} MB, peak {self.peak / mb:.1f} MB,"
            f" after {self.after / mb:.1f} MB (growth {self.growth_mb:.1f} MB)"
        )

    def _sample(self) -> None:
        while not self._stop.wait(0.005):
            with contextlib.suppress(psutil.Error):
                self.peak = max(self.peak, self.process.memory_info().rss)
