"""Benchmark the analyzer and presenter: 10,000 rows × 6 columns.

Usage: python bench/analyzer.py [--rounds 20]
Prints the analyzer's time per call including the sandboxed process round trip (median,
p95; warm workers, each job in a fresh fork of a clean template, in its own folder), what
that isolation costs against a baseline run in the same process (one shared process that
runs every job itself, as before #34), the presenter's time per call, and the size of what
the answer writer receives (analysis + a 20-row preview) versus sending every row.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from datetime import date, timedelta

from figures import quantile

from orquestra.nodes.presenter import cards_for, chart_for
from orquestra.nodes.streamer import preview
from orquestra.sandbox.output import checked_analysis
from orquestra.sandbox.pool import AnalysisPool

SHARED = (
    "import json, sys\n"
    "from orquestra.sandbox.worker import answer_for\n"
    "for line in sys.stdin:\n"
    "    sys.stdout.write(json.dumps(answer_for(line), default=str) + '\\n')\n"
    "    sys.stdout.flush()\n"
)
"""The baseline: one process that runs every job itself (no fork, no folder per job)."""

COLUMNS = ["dia", "cliente", "canal", "pedidos", "valor_total", "frete"]


def result(rows: int) -> dict:
    rng = random.Random(1)
    start = date(2025, 1, 1)
    data = [
        [
            (start + timedelta(days=i % 540)).isoformat(),
            f"Cliente {rng.randint(1, 400)}",
            rng.choice(["EDI", "API", "PORTAL", "VENDEDOR"]),
            rng.randint(1, 40),
            round(rng.uniform(100, 90_000), 2),
            round(rng.uniform(10, 900), 2),
        ]
        for i in range(rows)
    ]
    return {"columns": COLUMNS, "rows": data, "row_count": rows, "truncated": False}


async def _shared_times(job: dict, rounds: int) -> list[float]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        "-c",
        SHARED,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=64 * 1024 * 1024,
    )
    assert process.stdin and process.stdout
    line = (json.dumps(job) + "\n").encode()
    times = []
    for _ in range(rounds + 1):  # the first warms it
        started = time.perf_counter()
        process.stdin.write(line)
        await process.stdin.drain()
        await process.stdout.readline()
        times.append((time.perf_counter() - started) * 1000)
    process.kill()
    await process.wait()
    return times[1:]


async def _isolated_times(pool: AnalysisPool, job: dict, rounds: int) -> list[float]:
    await pool.run(job)  # warm
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        await pool.run(job)
        times.append((time.perf_counter() - started) * 1000)
    return times


def _line(name: str, isolated: list[float], shared: list[float]) -> str:
    cost = statistics.median(isolated) - statistics.median(shared)
    return (
        f"analyzer, {name}: a fork per job median {statistics.median(isolated):.1f} ms, "
        f"p95 {quantile(isolated, 0.95):.1f} ms; one shared process median "
        f"{statistics.median(shared):.1f} ms, p95 {quantile(shared, 0.95):.1f} ms; "
        f"isolation costs {cost:+.1f} ms a turn "
        f"({statistics.median(isolated) / statistics.median(shared):.2f}x)"
    )


async def main(rounds: int) -> None:
    big = result(10_000)
    small = {"kind": "builtin", **result(12), "question": "valor por canal"}
    pool = await AnalysisPool(size=2, timeout_s=30).start()
    job = {"kind": "builtin", **big, "question": "valor por dia"}
    for name, each in (("12 rows (a typical turn)", small), ("10,000 rows x 6 columns", job)):
        isolated = await _isolated_times(pool, each, rounds)
        print(_line(name, isolated, await _shared_times(each, rounds)))
    analysis = await pool.run(job)
    await pool.close()
    started = time.perf_counter()
    checked_analysis(analysis, job)
    print(
        f"checking a 10,000-row analysis against its job: "
        f"{(time.perf_counter() - started) * 1000:.1f} ms"
    )
    spent = []
    for _ in range(rounds):
        started = time.perf_counter()
        cards_for(big, analysis)
        chart_for("valor por dia", {**big, "rows": big["rows"][:500]})
        spent.append((time.perf_counter() - started) * 1000)
    print(
        f"presenter (cards + validated Vega-Lite chart): median {statistics.median(spent):.1f} ms"
    )
    with_analysis = len(json.dumps(analysis)) + len(preview(big))
    every_row = len(json.dumps(big["rows"]))
    tokens = f"~{with_analysis // 4:,} tokens"
    print(
        f"answer writer's input: analysis + preview {with_analysis:,} chars ({tokens}) vs all "
        f"rows {every_row:,} chars (~{every_row // 4:,} tokens), {every_row / with_analysis:.0f}x"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    asyncio.run(main(parser.parse_args().rounds))
