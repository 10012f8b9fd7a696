"""Benchmark the HTTP server with a scripted model that waits a fixed 200 ms per call.

Usage: python bench/server.py [--streams 100]
Starts a real server (uvicorn, embedded database), then: time to the first SSE event (median,
p95) over sequential requests; `--streams` concurrent streams (errors, wall time, throughput
versus the ideal given the fixed model latency); the server's memory per active stream.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import psutil
import yaml
from figures import quantile, wait_until_ready

from orquestra.core.settings import Settings
from orquestra.server.auth import mint_token

MODEL_DELAY_MS = 200
CALLS_PER_TURN = 4
SCRIPT = {
    "delay_ms": MODEL_DELAY_MS,
    "repeat": ["augmenter", "router", "sql_writer", "answer"],
    "roles": {
        "augmenter": [{"question": "quantos clientes tenho?", "is_data_question": True}],
        "router": [{"route": "ANALYTICS"}],
        "sql_writer": [{"thought_process": "count", "sql": "SELECT count(*) FROM clientes"}],
        "answer": ["Você tem estes clientes."],
    },
}


async def one_stream(client: httpx.AsyncClient, url: str, token: str) -> tuple[float, float, bool]:
    started = time.perf_counter()
    first, ok = None, False
    async with client.stream(
        "POST",
        f"{url}/v1/chat/stream",
        json={"message": "quantos clientes?"},
        headers={"Authorization": f"Bearer {token}"},
    ) as response:
        async for line in response.aiter_lines():
            if first is None and line.startswith("event:"):
                first = time.perf_counter() - started
            if line.startswith("event: result"):
                ok = True
            if line.startswith("event: error"):
                ok = False
    return (
        (first or 0.0) * 1000,
        (time.perf_counter() - started) * 1000,
        ok and response.status_code == 200,
    )


async def run(url: str, streams: int, pid: int) -> None:
    settings = Settings()
    tokens = [mint_token(settings, str(101 + i % 5), f"bench-{i}") for i in range(streams)]
    limits = httpx.Limits(max_connections=streams + 10)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        sequential = [await one_stream(client, url, tokens[0]) for _ in range(20)]
        firsts = [s[0] for s in sequential]
        single = statistics.median(s[1] for s in sequential)
        print(
            f"time to first event (20 sequential): median {statistics.median(firsts):.1f} ms, "
            f"p95 {quantile(firsts, 0.95):.1f} ms; one turn takes {single:.0f} ms "
            f"({CALLS_PER_TURN} model calls x {MODEL_DELAY_MS} ms)"
        )
        process = psutil.Process(pid)
        idle = sum(p.memory_info().rss for p in [process, *process.children(recursive=True)])
        peak = idle

        async def sample() -> None:
            nonlocal peak
            while True:
                peak = max(
                    peak, sum(p.memory_info().rss for p in [process, *process.children(True)])
                )
                await asyncio.sleep(0.05)

        sampler = asyncio.create_task(sample())
        started = time.perf_counter()
        results = await asyncio.gather(*(one_stream(client, url, t) for t in tokens))
        wall = time.perf_counter() - started
        sampler.cancel()
    errors = sum(not ok for _, _, ok in results)
    ideal = single / 1000  # all streams in parallel: ideally as long as one
    firsts = [r[0] for r in results]
    print(
        f"{streams} concurrent streams: {errors} errors, wall {wall:.2f} s, throughput "
        f"{streams / wall:.1f} turns/s vs ideal {streams / ideal:.1f} "
        f"({ideal / wall:.0%} of ideal); first event p95 {quantile(firsts, 0.95):.0f} ms under load"
    )
    print(
        f"memory: {(peak - idle) / streams / 1024:.0f} KiB per active stream "
        f"(idle {idle / 2**20:.0f} MiB, peak {peak / 2**20:.0f} MiB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--port", type=int, default=8911)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "script.yaml"
        script.write_text(yaml.safe_dump(SCRIPT, allow_unicode=True))
        env = {
            **os.environ,
            "ORQUESTRA_MODELS__DEFAULT": f"scripted:{script}",
            "ORQUESTRA_MAX_RUNS_PER_TENANT": str(args.streams),
        }
        command = [
            str(Path(sys.executable).parent / "orquestra"),
            "serve",
            "--port",
            str(args.port),
        ]
        server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
        url = f"http://127.0.0.1:{args.port}"
        try:
            wait_until_ready(url)
            asyncio.run(run(url, args.streams, server.pid))
        finally:
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    main()
