"""Benchmark structured-output methods against one OpenAI-compatible provider.

Usage: python bench/providers.py [--turns 12]
Prints, per provider kind (a local fake OpenAI-compatible server whose answers come from the
offline model, reached by the real `ChatOpenAI` client over a socket): model calls and
provider requests per data turn, and wall time per turn (median, p95), for the first turn
(when `auto` finds the method the provider accepts) and for the turns after it (the method
remembered), with the ratio to strict JSON schema measured in the same process.
Uses the embedded database in ORQUESTRA_DATA_DIR (loading the demo data if missing).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import warnings
from pathlib import Path

from figures import DATA_QUESTIONS, quantile
from langgraph.checkpoint.memory import InMemorySaver

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from orquestra.agent.wiring import build_graph
from orquestra.core.settings import Settings
from orquestra.graph.context import ROLES, RunContext
from orquestra.graph.events import run_turn
from orquestra.graph.resources import Resources
from orquestra.graph.structured import forget_choices
from orquestra.server.db_init import init_database
from tests.fake_provider import FakeProvider

warnings.filterwarnings("ignore", "This model does not support OpenAI's structured output")
KINDS = {
    "json_schema (strict)": "fake",
    "function_calling (no json_schema)": "fake+no-json-schema",
    "function_calling (tools only)": "fake+tools-only",
    "json_mode (JSON mode only)": "fake+json-mode-only",
}


async def one_turn(graph, settings: Settings, model: str, question: str, n: int) -> tuple:
    context = RunContext.from_settings(settings, tenant="101", user="bench")
    context.models = {role: f"openai:{model}" for role in ROLES}
    started = time.perf_counter()
    thread = f"bench-{model}-{n}"
    async for _event in run_turn(graph, question, thread_id=thread, context=context):
        pass
    seconds = time.perf_counter() - started
    state = (await graph.aget_state({"configurable": {"thread_id": thread}})).values
    return seconds * 1000, state.get("model_calls", 0)


async def main(turns: int) -> None:
    settings = Settings()
    await init_database(settings)
    resources = await Resources.open(settings)
    graph = build_graph(resources).compile(checkpointer=InMemorySaver())
    baseline: float | None = None
    with FakeProvider() as fake:
        os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"] = fake.base_url, "sk-bench"
        await one_turn(graph, settings, "fake", DATA_QUESTIONS[0], -1)  # warm: models, caches
        print(f"structured-output methods: {turns} data turns each, one fake provider")
        for label, model in KINDS.items():
            forget_choices()
            fake.reset()
            times, calls, requests = [], [], []
            for n in range(turns):
                before = len(fake.requests)
                ms, made = await one_turn(graph, settings, model, DATA_QUESTIONS[n % 12], n)
                times.append(ms)
                calls.append(made)
                requests.append(len(fake.requests) - before)
            later = times[1:]
            median = statistics.median(later)
            baseline = baseline or median
            print(f"  {label}")
            print(
                f"    first turn   {times[0]:7.1f} ms   {calls[0]} model calls, "
                f"{requests[0]} provider requests (the fallback's cost)"
            )
            print(
                f"    later turns  median {median:7.1f} ms   p95 {quantile(later, 0.95):7.1f} ms"
                f"   {statistics.mean(calls[1:]):.1f} model calls, "
                f"{statistics.mean(requests[1:]):.1f} requests per turn"
                f"   ratio to json_schema {median / baseline:.2f}x"
            )
    await resources.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--turns", type=int, default=12)
    asyncio.run(main(parser.parse_args().turns))
