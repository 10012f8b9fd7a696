"""Benchmark the analyzer and presenter: 10,000 rows × 6 columns.

Usage: python bench/analyzer.py [--rounds 20]
Prints the analyzer's time per call including the sandboxed process round trip (median,
p95; warm workers), the presenter's time per call, and the size of what the answer writer
receives (analysis + a 20-row preview) versus sending every row.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from datetime import date, timedelta

from figures import quantile

from orquestra.nodes.presenter import cards_for, chart_for
from orquestra.nodes.streamer import preview
from orquestra.sandbox.pool import AnalysisPool

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


async def main(rounds: int) -> None:
    big = result(10_000)
    pool = await AnalysisPool(size=2, timeout_s=30).start()
    job = {"kind": "builtin", **big, "question": "valor por dia"}
    await pool.run(job)  # warm
    times, analysis = [], None
    for _ in range(rounds):
        started = time.perf_counter()
        analysis = await pool.run(job)
        times.append((time.perf_counter() - started) * 1000)
    await pool.close()
    print(
        f"analyzer, 10,000 rows x 6 columns, warm sandboxed worker: median "
        f"{statistics.median(times):.1f} ms, p95 {quantile(times, 0.95):.1f} ms"
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
