"""Soak: thousands of mixed turns against one `orquestra serve`, for a bounded time; does
anything grow without bound?

Usage: python bench/soak.py [--minutes 3] [--users 8] [--data-dir DIR] [--port 8951]

The embedded PostgreSQL is started here (the demo data loaded if missing) and one
`orquestra serve` joins it, with the offline model for every role but `chat`, which asks a
local OpenAI-compatible provider that answers every call with 503 (`tests/fake_provider.py`):
small talk is the turn that meets a model error. `--users` clients ask in a loop
(bench/soak_users.py: data, knowledge, clarify and its answer, refusals, model errors, streams
the client leaves mid-way). At every tenth of the run one line: turns ended in it, those that
did not get what their kind should, the p50/p95 turn time, the server's resident memory (its
analysis workers apart), its open file descriptors, the database's client connections
(pg_stat_activity), lease rows, checkpoint rows (of committed threads, and orphaned: of turns
never committed) and threads. Then what grew: the second half of the run against the first.
Last, the server gets SIGTERM: it must drain, exit 0 and leave no lease behind.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import httpx
import psutil
from figures import quantile, wait_until_ready
from load_client import TENANTS
from load_rig import Server, start_server
from soak_users import Turn, User

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests' fake provider
from orquestra.core.database import admin_url, embedded_server
from orquestra.core.settings import Settings
from orquestra.server.auth import mint_token
from tests.fake_provider import FakeProvider

SESSIONS = "orquestra_sessions"
MEASURES = {
    "RSS MiB": 8.0,
    "fds": 8,
    "db conns": 4,
    "leases": 0,
    "checkpoints": 0,
    "orphaned": 0,
    "threads": 0,
}
"""What is sampled, and how much it may rise in the second half of the run and still be
called flat (memory settles slowly; the leases of the turns in flight are added below)."""


@dataclass
class Sample:
    """The server and its database at one moment."""

    values: dict[str, float]
    workers_mib: float
    turns: int


async def sample(server: Server, conn: asyncpg.Connection, turns: int) -> Sample:
    main = psutil.Process(server.process.pid)
    workers = sum(p.memory_info().rss for p in main.children(recursive=True))
    row = await conn.fetchrow(
        f"""SELECT
          (SELECT count(*) FROM pg_stat_activity
            WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()) AS conns,
          (SELECT count(*) FROM {SESSIONS}.run_leases) AS leases,
          (SELECT count(*) FROM {SESSIONS}.checkpoints) AS checkpoints,
          (SELECT count(*) FROM {SESSIONS}.checkpoints c WHERE NOT EXISTS
            (SELECT 1 FROM {SESSIONS}.threads t WHERE t.thread_id = c.thread_id)) AS orphaned,
          (SELECT count(*) FROM {SESSIONS}.threads) AS threads"""
    )
    values = {
        "RSS MiB": main.memory_info().rss / 2**20,
        "fds": main.num_fds(),
        "db conns": row["conns"],
        "leases": row["leases"],
        "checkpoints": row["checkpoints"],
        "orphaned": row["orphaned"],
        "threads": row["threads"],
    }
    return Sample(values, workers / 2**20, turns)


def tenth_line(k: int, turns: list[Turn], taken: Sample, wall_s: float) -> str:
    times = [t.ms for t in turns if t.kind != "left"]
    p50 = f"{quantile(times, 0.5):6.0f}" if times else "   n/a"
    p95 = f"{quantile(times, 0.95):6.0f}" if times else "   n/a"
    v = taken.values
    return (
        f"{k:>5} {len(turns):>6} {len(turns) / wall_s:>6.1f}"
        f" {sum(t.problem is not None for t in turns):>6}"
        f" {p50} {p95} {v['RSS MiB']:>7.1f} {taken.workers_mib:>7.1f} {v['fds']:>5.0f}"
        f" {v['db conns']:>5.0f} {v['leases']:>6.0f} {v['checkpoints']:>7.0f}"
        f" {v['orphaned']:>7.0f} {v['threads']:>7.0f}"
    )


HEADER = (
    "tenth  turns turn/s unexp. p50 ms p95 ms RSS MiB workers   fds conns leases"
    " checkpts orphans threads"
)


async def soak(url: str, state: str, server: Server, users: int, seconds: float) -> list[Sample]:
    settings = Settings()
    ended: list[Turn] = []
    limits = httpx.Limits(max_connections=users + 10, keepalive_expiry=3)
    conn = await asyncpg.connect(state)
    async with httpx.AsyncClient(timeout=httpx.Timeout(120, connect=30), limits=limits) as http:
        people = [
            User(
                i,
                mint_token(settings, TENANTS[i % len(TENANTS)], f"soak-{i}"),
                http,
                url,
                ended.append,
            )
            for i in range(users)
        ]
        started = time.monotonic()
        samples = [await sample(server, conn, 0)]
        print(HEADER)
        running = asyncio.gather(*(u.run(started + seconds) for u in people))
        for k in range(1, 11):
            await asyncio.sleep(max(0.0, started + seconds * k / 10 - time.monotonic()))
            low, high = started + seconds * (k - 1) / 10, started + seconds * k / 10
            tenth = [t for t in ended if low <= t.ended < high]
            samples.append(await sample(server, conn, len(ended)))
            print(tenth_line(k, tenth, samples[-1], seconds / 10), flush=True)
        await running
        await asyncio.sleep(2)  # the last streams' leases given back
        samples.append(await sample(server, conn, len(ended)))
    await conn.close()
    report_problems(ended)
    return samples


def report_problems(turns: list[Turn]) -> None:
    print(f"\n{len(turns)} turns; by kind: count, p50 / p95 ms")
    for kind in sorted({t.kind for t in turns}):
        times = [t.ms for t in turns if t.kind == kind]
        print(
            f"  {kind:<12} {len(times):>6}"
            f" {quantile(times, 0.5):6.0f} / {quantile(times, 0.95):.0f}"
        )
    problems = [t for t in turns if t.problem]
    print(f"{len(problems)} did not get what their kind should")
    seen: dict[str, int] = {}
    for turn in problems:
        key = f"{turn.kind}: {turn.problem[:160]}"
        seen[key] = seen.get(key, 0) + 1
    for key, count in sorted(seen.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {count} x {key}")


def verdicts(samples: list[Sample], users: int) -> None:
    """Each measure's second half against its first: flat, or its rise per 1000 turns."""
    first, middle, last, after = samples[1], samples[5], samples[10], samples[11]
    print("\nWhat grew (tenth 1 -> 5 -> 10; per 1000 turns in each half):")
    for name, tolerance in MEASURES.items():
        early = middle.values[name] - first.values[name]
        late = last.values[name] - middle.values[name]
        allowed = tolerance + (users if name == "leases" else 0)
        allowed += 0.05 * middle.values[name] if name == "RSS MiB" else 0
        trend = (
            f"{first.values[name]:.0f} -> {middle.values[name]:.0f} -> {last.values[name]:.0f}"
            f" (after the load: {after.values[name]:.0f})"
        )
        if late <= allowed:
            print(f"  {name}: flat in the second half: {trend}")
            continue
        print(
            f"  {name}: GROWS: {trend}; +{per_1000(early, first, middle):.0f} per 1000 turns in"
            f" the first half, +{per_1000(late, middle, last):.0f} in the second"
        )


def per_1000(rise: float, start: Sample, end: Sample) -> float:
    return rise / max(1, end.turns - start.turns) * 1000


def stop(server: Server, state: str) -> None:
    """SIGTERM: the server drains and exits; its exit code and the lease rows left."""
    server.process.terminate()
    code = server.process.wait(timeout=120)

    async def leases() -> int:
        conn = await asyncpg.connect(state)
        try:
            return int(await conn.fetchval(f"SELECT count(*) FROM {SESSIONS}.run_leases"))
        finally:
            await conn.close()

    print(f"\nSIGTERM: the server exited {code}; lease rows left: {asyncio.run(leases())}")


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=3.0, help="how long the load runs")
    parser.add_argument("--users", type=int, default=8, help="clients asking at once")
    parser.add_argument("--port", type=int, default=8951)
    parser.add_argument("--data-dir", type=Path, default=Path(".orquestra"))
    return parser.parse_args()


def main() -> None:
    args = arguments()
    data_dir = args.data_dir.resolve()
    logs = data_dir / "soak-logs"
    logs.mkdir(parents=True, exist_ok=True)
    embedded_server(data_dir)  # started once, here; the server joins it
    env = {**os.environ, "ORQUESTRA_DATA_DIR": str(data_dir)}
    orquestra = str(Path(sys.executable).parent / "orquestra")
    subprocess.run([orquestra, "db", "init"], env=env, check=True, stdout=subprocess.DEVNULL)
    state = admin_url(Settings(data_dir=data_dir))
    with FakeProvider() as failing:
        env |= {
            "ORQUESTRA_MODELS__DEFAULT": "offline",
            "ORQUESTRA_MODELS__CHAT": "openai:fake+503",
            "OPENAI_BASE_URL": failing.base_url,
            "OPENAI_API_KEY": "sk-soak",
            "ORQUESTRA_MAX_RUNS_PER_TENANT": str(args.users),
        }
        server = start_server(args.port, env, logs)
        try:
            wait_until_ready(server.url, server.process)
            print(
                f"one `orquestra serve` (offline model; small talk's model answers 503),"
                f" {args.users} users for {args.minutes:g} min; log: {logs}/serve-{args.port}.log\n"
            )
            samples = asyncio.run(soak(server.url, state, server, args.users, args.minutes * 60))
            verdicts(samples, args.users)
        finally:
            if server.process.poll() is None:
                stop(server, state)


if __name__ == "__main__":
    main()
