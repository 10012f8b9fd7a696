"""Benchmark `orquestra db init`: total seconds and rows per second, per scale.

Usage: python bench/db_init.py [--scales 1 20] [--repeat 3]
Runs against a throw-away embedded PostgreSQL, loading each run into its own database, and
prints one line per run (total, of which row generation in Python) and the median per scale.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
from pathlib import Path

import asyncpg

from orquestra.core.database import admin_url, stop_embedded, with_database
from orquestra.core.settings import Settings
from orquestra.server.db_init import InitReport, init_database


async def one_run(base_url: str, scale: float, run: int) -> InitReport:
    name = f"bench_scale_{str(scale).replace('.', '_')}_{run}"
    admin = await asyncpg.connect(with_database(base_url, "postgres"))
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        await admin.execute(f'CREATE DATABASE "{name}"')
        settings = Settings(database_url=with_database(base_url, name), demo_scale=scale)
        report = await init_database(settings)
        await admin.execute(f'DROP DATABASE "{name}"')
    finally:
        await admin.close()
    return report


async def bench(base_url: str, scales: list[float], repeat: int) -> None:
    print(f"{'scale':>6} {'run':>4} {'rows':>11} {'total s':>9} {'generate s':>11} {'rows/s':>10}")
    for scale in scales:
        totals = []
        for run in range(repeat):
            report = await one_run(base_url, scale, run)
            totals.append(report.seconds)
            rate = report.total_rows / report.seconds
            print(
                f"{scale:>6g} {run:>4} {report.total_rows:>11,} {report.seconds:>9.2f}"
                f" {report.generate_seconds:>11.2f} {rate:>10,.0f}"
            )
        median = statistics.median(totals)
        rate = report.total_rows / median
        rows = report.total_rows
        print(f"{scale:>6g} {'med':>4} {rows:>11,} {median:>9.2f} {'':>11} {rate:>10,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=float, nargs="+", default=[1.0, 20.0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="orq-bench-"))
    try:
        base_url = admin_url(Settings(data_dir=folder))
        asyncio.run(bench(base_url, args.scales, args.repeat))
    finally:
        stop_embedded(folder)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
