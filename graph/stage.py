"""What every stage does around its own work: events, timing, logs, metrics, budget stops.

`@stage("name")` wraps `async def node(state, runtime) -> dict`: it writes `node` start/end
custom events (with duration and a one-line summary), logs one structured line, records the
latency histogram, and turns a budget or invalid-output stop into state the routers
understand — so a runaway turn ends with a clear message instead of an exception.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from langgraph.config import get_config
from langgraph.runtime import Runtime

from graph.context import RunContext
from graph.llm import BudgetExhausted, ModelOutputInvalid
from graph.metrics import CAP_HITS, NODE_SECONDS

log = logging.getLogger("orquestra.graph")
Node = Callable[[dict[str, Any], Runtime[RunContext]], Awaitable[dict[str, Any]]]


def stage(name: str, summary: Callable[[dict[str, Any]], str] | None = None):
    """Decorate a node function as the stage `name`."""

    def wrap(fn: Node) -> Node:
        @functools.wraps(fn)
        async def node(state: dict[str, Any], runtime: Runtime[RunContext]) -> dict[str, Any]:
            write = runtime.stream_writer
            write({"event": "node", "node": name, "status": "start"})
            started = time.perf_counter()
            try:
                update = await fn(state, runtime)
            except (BudgetExhausted, ModelOutputInvalid) as stop:
                update = stopped(state, stop.code, str(stop))
            seconds = time.perf_counter() - started
            NODE_SECONDS.labels(node=name).observe(seconds)
            text = summary(update) if summary else ""
            write(
                {
                    "event": "node",
                    "node": name,
                    "status": "end",
                    "ms": round(seconds * 1000, 1),
                    "summary": text,
                }
            )
            run = get_config()
            log.info(
                "node",
                extra={
                    "thread_id": run.get("configurable", {}).get("thread_id"),
                    "run_id": run.get("metadata", {}).get("run_id"),
                    "node": name,
                    "ms": round(seconds * 1000, 1),
                    "summary": text,
                    "tenant": runtime.context.tenant,
                    "stop_reason": update.get("stop_reason"),
                },
            )
            return update

        return node

    return wrap


def stopped(state: dict[str, Any], reason: str, detail: str = "") -> dict[str, Any]:
    """State update that ends the turn early because of `reason` (a cap or a failure)."""
    caps = list(state.get("caps_hit") or [])
    if reason.startswith("MAX_") or reason == "MODEL_BUDGET":
        CAP_HITS.labels(cap=reason).inc()
        caps.append(reason)
    return {
        "stop_reason": reason,
        "caps_hit": caps,
        "last_error": detail or state.get("last_error"),
    }
