"""Benchmark what one turn costs the server's CPU with an instant model, against LangGraph's floor.

Usage: python bench/turn_cost.py [--turns 60] [--streams 100] [--rounds 3]
                                [--no-server | --server-only]
Prints, in one run:
(a) in-process CPU per turn (`time.process_time` of this process: the embedded PostgreSQL and
    the analysis workers are other processes, so database and sandbox time are excluded) for
    analytics, tracking and a greeting, median and p95, with the wall time and the checkpoint
    rows and bytes each turn leaves in the state database; then analytics turns whose question
    is new each time (its embedding is computed: the others reuse the cached one);
(b) the framework's floor: a minimal LangGraph graph with as many nodes as the agent's, a turn
    walking as many of them as an analytics turn did in (a), trivial async nodes, the same
    checkpointer (graph.checkpoints' PostgreSQL saver, then LangGraph's InMemorySaver) and the
    same stream modes, run the way `run_turn` runs a graph — its CPU per turn and the agent's
    ratio to it;
(c) one real `orquestra serve` process answering `--streams` concurrent SSE streams of
    analytics turns (instant model, spread over the demo tenants): answered turns/s, errors,
    and the server process's CPU per stream (psutil), per round.
Uses the embedded database in ORQUESTRA_DATA_DIR (loading the demo data if missing).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import operator
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any, TypedDict

import httpx
import psutil
import yaml
from agent_graph import REVENUE, STATUS, aug
from figures import quantile, wait_until_ready
from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Durability, StreamMode

from orquestra.agent.wiring import build_graph
from orquestra.core.database import state_url
from orquestra.core.settings import Settings
from orquestra.graph.checkpoints import SCHEMA, postgres_checkpointer
from orquestra.graph.context import ROLES, RunContext
from orquestra.graph.event_types import NodeEvent
from orquestra.graph.events import run_turn

try:  # how run_turn runs the graph (as it did before it said so: for a run at an older commit)
    from orquestra.graph.events import DURABILITY, STREAM_MODES
except ImportError:
    DURABILITY, STREAM_MODES = "async", ("updates", "custom")
from orquestra.graph.resources import Resources
from orquestra.server.auth import mint_token
from orquestra.server.db_init import init_database

ROLE_SCRIPTS = {
    "analytics": {
        "augmenter": [aug("faturamento por mês")],
        "router": [{"route": "ANALYTICS"}],
        "sql_writer": [{"thought_process": "t", "sql": REVENUE}],
        "answer": ["O faturamento por mês está na tabela."],
    },
    "tracking": {
        "augmenter": [aug("status da nota 40908")],
        "router": [{"route": "TRACKING"}],
        "sql_writer": [{"thought_process": "t", "sql": STATUS}],
        "answer": ["A nota 40908 está autorizada."],
    },
    "greeting": {},
}
"""Each route's instant answers; every role repeats its answer, so one script serves any
number of turns (delay 0: the model costs nothing)."""
MESSAGES = {"analytics": "faturamento por mês", "tracking": "status da nota 40908"}
MESSAGES["greeting"] = "bom dia"
MESSAGES["new question"] = MESSAGES["analytics"]
WARM = 5
"""Turns run before measuring (connections, caches)."""
STEPS: dict[str, list[str]] = {}
"""The stages each route's turn ran, in order (one super-step each), from its node events."""
TENANTS = ("101", "102", "103", "104", "105")


def write_script(folder: Path, route: str) -> str:
    """A `scripted:PATH` spec whose roles answer `route`'s turn for ever, at once."""
    roles = ROLE_SCRIPTS[route]
    path = folder / f"{route.replace(' ', '-')}.yaml"
    script = {"delay_ms": 0, "repeat": list(roles), "roles": roles}
    path.write_text(yaml.safe_dump(script, allow_unicode=True), encoding="utf-8")
    return f"scripted:{path}"


def cpu_figures(label: str, cpu_ms: list[float], wall_ms: list[float]) -> str:
    return (
        f"  {label:<24} CPU median {statistics.median(cpu_ms):6.1f} ms  "
        f"p95 {quantile(cpu_ms, 0.95):6.1f} ms   wall median {statistics.median(wall_ms):6.1f} ms"
    )


async def timed(turn: Callable[[], Any], turns: int, warm: int = WARM) -> tuple[list, list]:
    """CPU and wall milliseconds of `turns` calls of `turn` (after `warm` unmeasured ones)."""
    cpu, wall = [], []
    for i in range(warm + turns):
        started_cpu, started = time.process_time(), time.perf_counter()
        await turn()
        if i >= warm:
            cpu.append((time.process_time() - started_cpu) * 1000)
            wall.append((time.perf_counter() - started) * 1000)
    return cpu, wall


async def agent_turns(settings: Settings, folder: Path, turns: int) -> tuple[float, int]:
    """(a): the agent's CPU per turn by route; returns the analytics median and the graph's
    number of nodes."""
    resources = await Resources.open(settings)
    base = RunContext.from_settings(settings, tenant="101")
    medians: dict[str, float] = {}
    async with postgres_checkpointer(state_url(settings)) as saver:
        builder = build_graph(resources)
        graph = builder.compile(checkpointer=saver)
        print(f"(a) the agent, in this process, PostgreSQL checkpointer, {turns} turns each:")
        ROLE_SCRIPTS["new question"] = {  # every turn's question unseen: its embedding runs
            **ROLE_SCRIPTS["analytics"],
            "augmenter": [aug(f"faturamento por mês, visão {i}") for i in range(turns + WARM)],
        }
        for route in ("analytics", "tracking", "greeting", "new question"):
            spec = write_script(folder, route)
            context = replace(base, models={role: spec for role in ROLES})
            threads: list[str] = []
            turn = functools.partial(agent_turn, graph, route, context, threads)
            cpu, wall = await timed(turn, turns)
            medians[route] = statistics.median(cpu)
            print(cpu_figures(route, cpu, wall))
            rows, size = await checkpoint_size(saver, threads[-turns:])
            print(f"  {'':<24} checkpoints: {rows:.0f} rows, {size / 1024:.1f} KiB per turn")
    await resources.close()
    return medians["analytics"], len(builder.nodes)


async def agent_turn(graph: Any, route: str, context: RunContext, threads: list[str]) -> None:
    """One turn of `route` on a new thread (appended to `threads`); it must end in a result."""
    threads.append(f"cost-{route}-{uuid.uuid4()}")
    message = MESSAGES[route]
    events = run_turn(graph, message, thread_id=threads[-1], context=context)
    seen = [event async for event in events]
    if "result" not in [event.event for event in seen]:
        raise RuntimeError(f"the {route} turn failed: {[event.event for event in seen]}")
    STEPS[route] = [
        e.data.node for e in seen if isinstance(e, NodeEvent) and e.data.status == "end"
    ]


async def checkpoint_size(saver: Any, threads: list[str]) -> tuple[float, float]:
    """Rows and bytes the checkpointer stored per thread (checkpoints, blobs, writes)."""
    tables = {
        "checkpoints": "octet_length(checkpoint::text) + octet_length(metadata::text)",
        "checkpoint_blobs": "coalesce(octet_length(blob), 0)",
        "checkpoint_writes": "octet_length(blob)",
    }
    rows = size = 0
    async with saver.pool.connection() as conn:
        for table, length in tables.items():
            cursor = await conn.execute(
                f"SELECT count(*) AS n, coalesce(sum({length}), 0) AS bytes"
                f" FROM {SCHEMA}.{table} WHERE thread_id = ANY(%s)",
                (threads,),
            )
            found = await cursor.fetchone()
            rows += found["n"]
            size += found["bytes"]
    return rows / len(threads), size / len(threads)


class FloorState(TypedDict, total=False):
    """The floor graph's state: the conversation and one field per step."""

    messages: Annotated[list[AnyMessage], add_messages]
    steps: Annotated[list[str], operator.add]


def floor_graph(nodes: int, path: list[str]) -> StateGraph:
    """`nodes` trivial async nodes; a turn walks `path` (as many steps as an analytics turn),
    the others hang off it behind conditional edges that are never taken."""

    def trivial(name: str) -> Callable[[FloorState], Any]:
        async def node(state: FloorState) -> dict[str, Any]:
            return {"steps": [name]}

        return node

    graph = StateGraph(FloorState)
    names = [*path, *(f"spare_{i}" for i in range(nodes - len(path)))]
    for name in names:
        graph.add_node(name, trivial(name))
    graph.add_edge(START, path[0])
    spares = iter(names[len(path) :])
    for here, after in zip(path, [*path[1:], END], strict=True):
        spare = next(spares, None)
        if spare is None:
            graph.add_edge(here, after)
            continue
        graph.add_conditional_edges(here, lambda _, after=after: after, [after, spare])
        graph.add_edge(spare, END)
    return graph


async def floor_turns(settings: Settings, nodes: int, turns: int) -> dict[str, float]:
    """(b): CPU per turn of the floor graph, with each checkpointer."""
    modes: list[StreamMode] = list(STREAM_MODES)
    medians: dict[str, float] = {}

    async def measure(label: str, saver: Any, durability: Durability = DURABILITY) -> None:
        graph = floor_graph(nodes, STEPS["analytics"]).compile(checkpointer=saver)

        async def turn() -> None:  # as run_turn drives the graph
            config: Any = {"configurable": {"thread_id": str(uuid.uuid4())}}
            config["recursion_limit"] = 60
            await graph.aget_state(config)
            payload = {"messages": [HumanMessage(content="faturamento por mês")]}
            parts = graph.astream(payload, config, stream_mode=modes, durability=durability)
            async for _ in parts:
                pass
            await graph.aget_state(config)

        cpu, wall = await timed(turn, turns)
        medians[label] = statistics.median(cpu)
        print(cpu_figures(label, cpu, wall))

    print(
        f"(b) the floor: {nodes} trivial nodes, {len(STEPS['analytics'])} steps a turn,"
        f" same stream modes {modes} and durability {DURABILITY!r} as run_turn, {turns} turns each:"
    )
    async with postgres_checkpointer(state_url(settings)) as saver:
        await measure("PostgreSQL checkpointer", saver)
        if DURABILITY != "async":  # LangGraph's default, for reference: a write per step
            await measure("PostgreSQL, 'async'", saver, "async")
    await measure("InMemorySaver", InMemorySaver())
    return medians


async def one_stream(client: httpx.AsyncClient, url: str, token: str) -> bool:
    """One analytics turn over SSE: whether it ended with a result (a refused or broken
    stream counts as an error, not as the end of the benchmark)."""
    try:
        return await _stream_ok(client, url, token)
    except httpx.HTTPError:
        return False


async def _stream_ok(client: httpx.AsyncClient, url: str, token: str) -> bool:
    ok = False
    async with client.stream(
        "POST",
        f"{url}/v1/chat/stream",
        json={"message": MESSAGES["analytics"]},
        headers={"Authorization": f"Bearer {token}"},
    ) as response:
        async for line in response.aiter_lines():
            if line.startswith("event: result"):
                ok = True
            elif line.startswith("event: error"):
                ok = False
    return ok and response.status_code == 200


async def load(url: str, streams: int, rounds: int, pid: int) -> None:
    """(c): `rounds` bursts of `streams` concurrent analytics turns against one server."""
    settings = Settings()
    tokens = [mint_token(settings, TENANTS[i % len(TENANTS)], f"cost-{i}") for i in range(streams)]
    server = psutil.Process(pid)
    limits = httpx.Limits(max_connections=streams + 10)
    async with httpx.AsyncClient(timeout=120, limits=limits) as client:
        for token in tokens[:10]:  # warm: first turns per tenant, caches, connections
            await one_stream(client, url, token)
        print(f"(c) one `orquestra serve` process, {streams} concurrent SSE analytics streams:")
        rates = []
        for i in range(rounds):
            cpu = server.cpu_times()
            started = time.perf_counter()
            results = await asyncio.gather(*(one_stream(client, url, t) for t in tokens))
            wall = time.perf_counter() - started
            after = server.cpu_times()
            used = (after.user - cpu.user) + (after.system - cpu.system)
            answered = sum(results)
            rates.append(answered / wall)
            print(
                f"  round {i + 1}: {streams - answered} errors, wall {wall:.2f} s,"
                f" {answered / wall:5.1f} answered turns/s, server CPU"
                f" {used / streams * 1000:5.1f} ms per stream"
            )
    print(f"  median {statistics.median(rates):.1f} answered turns/s over {rounds} rounds")


def serve_and_load(folder: Path, streams: int, rounds: int, port: int) -> None:
    env = {
        **os.environ,
        "ORQUESTRA_MODELS__DEFAULT": write_script(folder, "analytics"),
        "ORQUESTRA_MAX_RUNS_PER_TENANT": str(streams * 10),
    }
    command = [str(Path(sys.executable).parent / "orquestra"), "serve", "--port", str(port)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_ready(url)
        asyncio.run(load(url, streams, rounds, server.pid))
    finally:
        server.terminate()
        server.wait(timeout=30)


async def in_process(folder: Path, turns: int) -> None:
    settings = Settings()
    await init_database(settings)
    agent, nodes = await agent_turns(settings, folder, turns)
    floor = await floor_turns(settings, nodes, turns)
    for label, cpu in floor.items():
        if "'" in label:
            continue  # a reference line, not the floor
        print(f"  ratio, agent analytics turn / floor ({label}): {agent / cpu:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--streams", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--port", type=int, default=8913)
    parser.add_argument("--no-server", action="store_true", help="skip (c)")
    parser.add_argument("--server-only", action="store_true", help="only (c)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        if not args.server_only:
            asyncio.run(in_process(Path(folder), args.turns))
        if not args.no_server:
            serve_and_load(Path(folder), args.streams, args.rounds, args.port)


if __name__ == "__main__":
    main()
