"""Benchmark the server's failure paths: rejected bodies and a database lost mid-turn.

Usage: python bench/hardening.py [--runs 10]
Starts real servers (uvicorn, the embedded database with the demo data: `make bench` loads it
first). Prints the server's memory before and after 50 MB and 200 MB bodies it refuses (by
`Content-Length` and chunked), and the time from a database failure (every connection cut
by a proxy, mid-answer) to the `error` event, against the time the same turn takes to finish
without the failure (the baseline, in the same process).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import httpx
import psutil
from figures import quantile

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' fault proxy

from orquestra.core.database import admin_url
from orquestra.core.settings import Settings
from tests.e2e.conftest import start_server, token
from tests.e2e.faults import PostgresProxy, push_request

MB = 2**20
QUESTION = "faturamento por mês em 2026"


def rss(pid: int) -> float:
    return psutil.Process(pid).memory_info().rss / MB


def refuse(url: str, size: int, chunked: bool) -> tuple[int | None, float, int]:
    """Send a `size`-byte body (with a valid token, so only its size can refuse it) until the
    server answers; its status, the seconds taken and the body bytes sent by then."""
    host = url.removeprefix("http://")
    head = (
        f"POST /v1/chat/stream HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {token('101', 'bench-bodies')}\r\n"
        + ("Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {size}\r\n\r\n")
    )
    piece = b"x" * MB
    framed = f"{len(piece):x}\r\n".encode() + piece + b"\r\n" if chunked else piece
    started = time.perf_counter()
    answer = push_request(url, head.encode(), (framed for _ in range(size // MB)))
    return answer.status, time.perf_counter() - started, answer.sent


def bodies(data_dir: Path) -> None:
    server = start_server(data_dir)
    try:
        pid = server.process.pid
        base = rss(pid)
        print(f"server memory at rest: {base:.0f} MiB")
        for size_mb in (50, 200):
            for chunked in (False, True):
                status, seconds, sent = refuse(server.url, size_mb * MB, chunked)
                kind = "chunked" if chunked else "Content-Length"
                print(
                    f"  {size_mb:>3} MB body ({kind:<14}): {status} after {sent / MB:.1f} MB sent,"
                    f" in {seconds * 1000:.0f} ms; memory {rss(pid):.0f} MiB"
                    f" (+{rss(pid) - base:.1f} MiB)"
                )
    finally:
        server.stop()


def turn_to(url: str, bearer: str, proxy: PostgresProxy | None) -> float:
    """Seconds from the first answer token to the turn's end (`error` with a cut, else `done`);
    with `proxy`, the database is cut at that token."""
    marked = None
    with httpx.stream(
        "POST",
        f"{url}/v1/chat/stream",
        json={"message": QUESTION},
        headers={"Authorization": f"Bearer {bearer}"},
        timeout=120,
    ) as response:
        for line in response.iter_lines():
            if marked is None and line == "event: token":
                marked = time.perf_counter()
                if proxy is not None:
                    proxy.cut()
            elif marked is not None and line == (
                "event: done" if proxy is None else "event: error"
            ):
                return time.perf_counter() - marked
    raise RuntimeError("the turn ended without the expected event")


def database_loss(data_dir: Path, runs: int) -> None:
    settings = Settings(data_dir=data_dir)
    url = admin_url(settings)
    proxy = PostgresProxy(url).start()
    user = (url.split("//", 1)[1].split("@", 1)[0]) or "postgres"
    server = start_server(data_dir, DATABASE_URL=proxy.url(user, settings.database_name))
    bearer = token("101", "bench-failure")
    try:
        baseline = [turn_to(server.url, bearer, None) * 1000 for _ in range(runs)]
        failed = []
        for _ in range(runs):
            failed.append(turn_to(server.url, bearer, proxy) * 1000)
            proxy.restore()
            while httpx.get(f"{server.url}/readyz", timeout=10).status_code != 200:
                time.sleep(0.1)
            time.sleep(1.2)  # past the checkpointer's breaker window
    finally:
        server.stop()
        proxy.close()
    print(
        f"database lost at the first answer token → error event ({runs} runs): "
        f"median {statistics.median(failed):.0f} ms, p95 {quantile(failed, 0.95):.0f} ms, "
        f"max {max(failed):.0f} ms"
    )
    print(
        f"  baseline, same turn without the failure, first token → done: median "
        f"{statistics.median(baseline):.0f} ms, p95 {quantile(baseline, 0.95):.0f} ms "
        f"(ratio of medians {statistics.median(failed) / statistics.median(baseline):.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    data_dir = Path(os.environ.get("ORQUESTRA_DATA_DIR", ".orquestra"))
    bodies(data_dir)
    database_loss(data_dir, args.runs)


if __name__ == "__main__":
    main()
