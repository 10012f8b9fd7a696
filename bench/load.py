"""Load test that looks like production: concurrent streams over several server processes.

Usage: python bench/load.py [--streams 200] [--servers 2] [--delay-ms 1000] [--rounds 2]
                            [--proxy auto|nginx|none] [--data-dir DIR]

The embedded PostgreSQL is started once (this process holds it; the demo data is loaded if
missing) and `--servers` processes of `orquestra serve` share it, each with a scripted model
that answers every call after `--delay-ms`. The client goes through nginx when one is
installed (`--proxy auto`; deploy/nginx.conf's settings, only the upstream made local), else
round robin over the servers. Phases: a warm-up, a light load, a burst of `--streams` at once,
and `--streams` users whose first turns are spread over one turn, asking `--rounds` times each
(about `--streams` streams open at any moment). Printed per phase: errors (any non-200, any
`error` event, any stream without `result` and `done`), time to the first SSE event, wall time
and throughput, memory per active stream per server process, checkpoint rows written per turn,
and the CPU each part used. On a small machine the client, the servers, PostgreSQL and the
proxy share the same cores; the last lines say what that bounds and estimate the rest.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path

import psutil
import yaml
from figures import quantile, wait_until_ready
from http_server import SCRIPT
from load_client import TENANTS, Client, Stream
from load_rig import (
    CHECKPOINT_TABLES,
    Server,
    checkpoint_rows,
    cpu_seconds,
    nginx_binary,
    nginx_config,
    nginx_version,
    postgres_processes,
    sample,
    start_nginx,
    start_server,
)

from orquestra.core.database import admin_url, embedded_server
from orquestra.core.settings import Settings

CALLS_PER_TURN = len(SCRIPT["repeat"])
FIRST_EVENT_TARGET_MS = 150
TIMEOUT_VARIABLE = "ORQUESTRA_LIMITS__DATABASE_TIMEOUT_S"


@dataclass
class Phase:
    """One phase: its streams, wall time, CPU seconds per part and checkpoint rows."""

    name: str
    streams: list[Stream] = field(default_factory=list)
    wall_s: float = 0.0
    cpu: dict[str, float] = field(default_factory=dict)
    rows: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def ok(self) -> int:
        return sum(s.error is None for s in self.streams)


class Rig:
    """The processes whose CPU is counted: servers, PostgreSQL, the proxy, this client."""

    def __init__(self, servers: list[Server], pgdata: Path, proxy: subprocess.Popen | None):
        self.servers, self.pgdata, self.proxy = servers, pgdata, proxy

    def parts(self) -> dict[str, list[psutil.Process]]:
        parts = {"servers": [p for s in self.servers for p in s.processes()]}
        parts["PostgreSQL"] = postgres_processes(self.pgdata)
        if self.proxy is not None:
            parent = psutil.Process(self.proxy.pid)
            parts["nginx"] = [parent, *parent.children(recursive=True)]
        parts["client"] = [psutil.Process()]
        return parts

    def cpu(self) -> dict[str, float]:
        """CPU seconds per part, and `machine`: every process's (the machine is shared)."""
        used = {name: cpu_seconds(processes) for name, processes in self.parts().items()}
        times = psutil.cpu_times()
        return used | {"machine": sum(times) - times.idle - getattr(times, "iowait", 0.0)}

    async def run(self, name: str, url: str, load: Awaitable[list[Stream]]) -> Phase:
        """Run `load`, sampling the servers, counting CPU and checkpoint rows around it."""
        for server in self.servers:
            server.reset()
        rows, cpu = await checkpoint_rows(url), self.cpu()
        sampler = asyncio.create_task(sample(self.servers))
        started = time.perf_counter()
        streams = await load
        phase = Phase(name, streams, time.perf_counter() - started)
        sampler.cancel()
        phase.cpu = {k: v - cpu[k] for k, v in self.cpu().items()}
        after = await checkpoint_rows(url)
        phase.rows = {t: (after[t][0] - rows[t][0], after[t][1] - rows[t][1]) for t in after}
        return phase


def ms(values: list[float]) -> str:
    if not values:
        return "n/a"
    return f"median {statistics.median(values):.0f} ms, p95 {quantile(values, 0.95):.0f} ms"


def report(phase: Phase, servers: list[Server], floor_s: float) -> None:
    """The phase's figures, one aspect a line."""
    turns = len(phase.streams)
    firsts = [s.first_ms for s in phase.streams if s.first_ms]
    errors = [s.error for s in phase.streams if s.error]
    print(f"\n{phase.name}")
    print(f"  errors: {len(errors)} of {turns} streams")
    for error in sorted(set(errors))[:5]:
        print(f"    {errors.count(error)} x {error[:200]}")
    verdict = "met" if firsts and quantile(firsts, 0.95) <= FIRST_EVENT_TARGET_MS else "NOT met"
    print(f"  time to first event: {ms(firsts)} (target p95 <= {FIRST_EVENT_TARGET_MS}: {verdict})")
    print(f"  turn time: {ms([s.total_ms for s in phase.streams])} (floor {floor_s:g} s)")
    print(f"  wall {phase.wall_s:.1f} s; throughput {phase.ok / phase.wall_s:.1f} turns/s answered")
    for i, server in enumerate(servers, 1):
        grown = server.peak_rss - server.idle_rss
        per = f"{grown / server.peak_active / 1024:.0f} KiB" if server.peak_active else "n/a"
        print(
            f"  server {i}: {server.peak_active} active streams at most; RSS idle"
            f" {server.idle_rss / 2**20:.0f} MiB, peak {server.peak_rss / 2**20:.0f} MiB:"
            f" {per} per active stream"
        )
    report_rows(phase, turns, bool(errors))
    report_cpu(phase, turns)


def report_rows(phase: Phase, turns: int, failed: bool) -> None:
    rows = {t: phase.rows[t][0] / turns for t in CHECKPOINT_TABLES}
    size = sum(phase.rows[t][1] for t in CHECKPOINT_TABLES) / turns / 1024
    listed = ", ".join(f"{t} {n:.1f}" for t, n in rows.items())
    caveat = " (failed turns included: they write part of a turn)" if failed else ""
    print(
        f"  checkpoint rows per turn: {sum(rows.values()):.1f} ({listed}), {size:.0f} KiB{caveat}"
    )


def report_cpu(phase: Phase, turns: int) -> None:
    """CPU per part; and the whole machine's, since other work may share it."""
    cores = psutil.cpu_count() or 1
    ours = {k: v for k, v in phase.cpu.items() if k != "machine"}
    parts = ", ".join(f"{k} {v:.1f} s" for k, v in ours.items())
    busy = phase.cpu["machine"] / phase.wall_s
    others = max(0.0, busy - sum(ours.values()) / phase.wall_s)
    bound = "CPU-bound" if busy >= 0.85 * cores else "not CPU-bound"
    print(
        f"  CPU: {parts}; the machine {busy:.2f} of {cores} cores busy ({bound}; other"
        f" processes {others:.2f}); servers {phase.cpu['servers'] / turns * 1000:.0f} ms per turn"
    )


def estimate(light: Phase, steady: Phase, servers: int, users: int, floor_s: float) -> None:
    """What this machine cannot show, estimated from what it did show: CPU per turn and the
    first events of the light phase, where no part waited for another."""
    cores = psutil.cpu_count() or 1
    per_turn = {k: v / len(light.streams) for k, v in light.cpu.items()}
    rate = users / floor_s  # turns/s that `users` streams ask for at the model's pace
    server_need = rate * per_turn["servers"]
    rest = [k for k in per_turn if k not in ("servers", "client", "machine")]
    rest_need = rate * sum(per_turn[k] for k in rest)
    light_busy = light.cpu["servers"] / light.wall_s / servers
    used = steady.cpu["machine"] / steady.wall_s
    print(f"\nWhat this {cores}-core machine cannot show, and the estimate:")
    print(
        f"  {users} streams at the model's pace ({floor_s:g} s a turn) ask for {rate:.0f}"
        f" turns/s: at {per_turn['servers'] * 1000:.0f} ms of server CPU a turn (light phase),"
        f" {server_need:.1f} cores of server processes and {rest_need:.1f} for PostgreSQL and"
        f" the proxy. Here the client, {servers} servers, PostgreSQL and the proxy share"
        f" {cores} cores with whatever else runs; in the steady phase {used:.2f} were busy."
    )
    needed = max(servers, math.ceil(server_need / 0.5))
    print(
        f"  A server process runs its streams on one event loop, about one core. At most 50 %"
        f" busy each (the light phase's servers: {light_busy:.0%}), {users} streams need"
        f" {needed} server processes on as many cores, plus {rest_need:.1f} cores for"
        f" PostgreSQL and the proxy. A request then waits a few ms at most for an event"
        f" loop, and the time to the first event stays near the light phase's"
        f" ({ms([s.first_ms for s in light.streams if s.first_ms])}), provided nothing else"
        f" queues: see the steady phase's errors and turn times for what does."
    )


async def phases(rig: Rig, client: Client, state_url: str, args: argparse.Namespace) -> None:
    floor_s = CALLS_PER_TURN * args.delay_ms / 1000
    servers = rig.servers
    await rig.run("warm-up", state_url, client.burst(2 * len(servers)))
    light = await rig.run(
        f"light load ({args.light} users, first turns spread over {floor_s:g} s)",
        state_url,
        client.staggered(args.light, 1, floor_s),
    )
    report(light, servers, floor_s)
    burst = await rig.run(f"burst ({args.streams} at once)", state_url, client.burst(args.streams))
    report(burst, servers, floor_s)
    steady = await rig.run(
        f"steady ({args.streams} users x {args.rounds} turns, first turns spread over"
        f" {floor_s:g} s)",
        state_url,
        client.staggered(args.streams, args.rounds, floor_s),
    )
    report(steady, servers, floor_s)
    estimate(light, steady, len(servers), args.streams, floor_s)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--servers", type=int, default=2)
    parser.add_argument("--delay-ms", type=int, default=1000, help="model latency per call")
    parser.add_argument("--rounds", type=int, default=2, help="turns per user, steady phase")
    parser.add_argument("--light", type=int, default=20, help="users in the light phase")
    parser.add_argument("--proxy", choices=["auto", "nginx", "none"], default="auto")
    parser.add_argument("--port", type=int, default=8931, help="first server's port")
    parser.add_argument("--data-dir", type=Path, default=Path(".orquestra"))
    parser.add_argument(
        "--database-timeout-s",
        type=float,
        default=None,
        help="ORQUESTRA_LIMITS__DATABASE_TIMEOUT_S for the servers (default: the setting's)",
    )
    return parser.parse_args()


def environment(args: argparse.Namespace, data_dir: Path) -> dict[str, str]:
    """The servers' environment: this data folder, the scripted model, a run limit that is
    never the bound (each tenant has streams/5 at once, wherever the limit is kept)."""
    script = data_dir / "load-logs" / "script.yaml"
    script.write_text(yaml.safe_dump({**SCRIPT, "delay_ms": args.delay_ms}, allow_unicode=True))
    return {
        **os.environ,
        "ORQUESTRA_DATA_DIR": str(data_dir),
        "ORQUESTRA_MODELS__DEFAULT": f"scripted:{script}",
        "ORQUESTRA_MAX_RUNS_PER_TENANT": str(args.streams),
    } | ({TIMEOUT_VARIABLE: str(args.database_timeout_s)} if args.database_timeout_s else {})


def front(args: argparse.Namespace, servers: list[Server], folder: Path):
    """Where the client sends its streams: nginx in front of the servers when there is one
    (and `--proxy` allows it), else the servers themselves, round robin."""
    binary = nginx_binary() if args.proxy != "none" else None
    if args.proxy == "nginx" and binary is None:
        raise SystemExit("--proxy nginx: no nginx installed")
    if binary is None:
        return [s.url for s in servers], None, "round robin over the servers (httpx, asyncio)"
    port = args.port + len(servers)
    proxy = start_nginx(binary, nginx_config([s.port for s in servers], port, folder))
    wait_until_ready(f"http://127.0.0.1:{port}", proxy)
    return [f"http://127.0.0.1:{port}"], proxy, f"nginx {nginx_version(binary)} (deploy/nginx.conf)"


async def measure(args: argparse.Namespace, rig: Rig, targets: list[str], url: str) -> None:
    client = Client(Settings(data_dir=args.data_dir.resolve()), targets, args.streams)
    async with client.http:
        await phases(rig, client, url, args)


def main() -> None:
    args = arguments()
    data_dir = args.data_dir.resolve()
    (data_dir / "load-logs").mkdir(parents=True, exist_ok=True)
    env = environment(args, data_dir)
    embedded_server(data_dir)  # started once, here; the servers join it
    orquestra = str(Path(sys.executable).parent / "orquestra")
    subprocess.run([orquestra, "db", "init"], env=env, check=True, stdout=subprocess.DEVNULL)
    servers = [
        start_server(args.port + i, env, data_dir / "load-logs") for i in range(args.servers)
    ]
    proxy = None
    try:
        for server in servers:
            wait_until_ready(server.url, server.process)
        with tempfile.TemporaryDirectory() as folder:
            targets, proxy, described = front(args, servers, Path(folder))
            print(
                f"{args.servers} x `orquestra serve` on one embedded PostgreSQL; scripted model:"
                f" {CALLS_PER_TURN} calls a turn, {args.delay_ms} ms each; client: {described};"
                f" ORQUESTRA_MAX_RUNS_PER_TENANT={args.streams} over {len(TENANTS)} tenants;"
                f" ORQUESTRA_LIMITS__DATABASE_TIMEOUT_S={env.get(TIMEOUT_VARIABLE, 'default')}"
            )
            rig = Rig(servers, data_dir / "pgdata", proxy)
            asyncio.run(measure(args, rig, targets, admin_url(Settings(data_dir=data_dir))))
    finally:
        running = [p for p in [proxy, *(s.process for s in servers)] if p is not None]
        for process in running:
            process.terminate()
        for process in running:
            process.wait(timeout=60)


if __name__ == "__main__":
    main()
