"""What every stage does around its own work: events, timing, logs, metrics, budget stops.

`@stage("name")` wraps `async def node(state, runtime, resources) -> dict`: it writes `node`
start/end custom events (with duration and a one-line summary), logs one structured line
(thread, run, tenant, duration, chosen sources, SQL attempts, caps hit), opens an
OpenTelemetry span, records the latency histogram, and turns a budget or invalid-output stop
into state the routers understand — so a runaway turn ends with a clear message instead of an
exception.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeVar

from langchain_core.runnables import RunnableConfig
from langgraph.config import get_config
from langgraph.runtime import Runtime
from opentelemetry import trace

from orquestra.core.database import Outage
from orquestra.graph.context import RunContext
from orquestra.graph.llm import BudgetExhausted, ModelOutputInvalid
from orquestra.graph.metrics import CAP_HITS, NODE_SECONDS
from orquestra.graph.resources import Resources

log = logging.getLogger("orquestra.graph")
TRACER = trace.get_tracer("orquestra.graph")
"""A no-op tracer until `graph.tracing` installs an OpenTelemetry provider."""
S = TypeVar("S", bound=Mapping[str, Any])
"""The state a node reads: the graph's `AgentState`, or a plain dict."""
S_contra = TypeVar("S_contra", bound=Mapping[str, Any], contravariant=True)


class Node(Protocol[S_contra]):
    """A stage's function: the state, the run and the live resources in, a partial state
    update out. The graph's builder binds the resources (`agent.wiring`); a test calls a
    stage with its own."""

    def __call__(
        self, state: S_contra, runtime: Runtime[RunContext], resources: Resources
    ) -> Awaitable[dict[str, Any]]: ...


_names: dict[object, str] = {}
"""Each decorated node function → its stage name, so the wiring never spells it again."""


def stage_name(node: object) -> str:
    """The name `@stage` gave `node` (a `KeyError` for a function that is not a stage)."""
    return _names[node]


def stage(
    name: str,
    summary: Callable[[dict[str, Any]], str] | None = None,
    details: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> Callable[[Node[S]], Node[S]]:
    """Decorate a node function as the stage `name`; `details` adds fields to its end event."""

    def wrap(fn: Node[S]) -> Node[S]:
        @functools.wraps(fn)
        async def node(
            state: S, runtime: Runtime[RunContext], resources: Resources
        ) -> dict[str, Any]:
            run = _run_config()
            ids = {
                "thread_id": run.get("configurable", {}).get("thread_id"),
                "run_id": run.get("metadata", {}).get("run_id"),
                "tenant": runtime.context.tenant,
            }
            write = runtime.stream_writer
            write({"event": "node", "node": name, "status": "start"})
            started = time.perf_counter()
            with TRACER.start_as_current_span(span_name) as span:
                if span.is_recording():  # no tracing configured: nothing to describe
                    span.set_attributes({k: str(v) for k, v in ids.items() if v is not None})
                try:
                    update = await fn(state, runtime, resources)
                except (BudgetExhausted, ModelOutputInvalid) as stop:
                    update = stopped(state, stop.code, str(stop))
                except Exception as error:
                    Outage.note(error)  # a lost database: the checkpointer need not wait
                    raise
                if update.get("stop_reason"):
                    span.set_attribute("orquestra.stop_reason", str(update["stop_reason"]))
            seconds = time.perf_counter() - started
            latency.observe(seconds)
            text = summary(update) if summary else ""
            extra = details(update) if details else {}
            ms = round(seconds * 1000, 1)
            write(
                {"event": "node", "node": name, "status": "end", "ms": ms, "summary": text, **extra}
            )
            if log.isEnabledFor(logging.INFO):  # the line is built only when it is written
                log.info(
                    "node",
                    extra={
                        **ids,
                        "node": name,
                        "ms": ms,
                        "summary": text,
                        **extra,
                        **_progress(state, update),
                    },
                )
            return update

        span_name = f"orquestra.{name}"
        latency = _Latency(name)
        _names[node] = name
        return node

    return wrap


class _Latency:
    """A stage's latency histogram, its labelled series looked up once (on first use, so
    that a stage that never ran shows no series)."""

    def __init__(self, node: str) -> None:
        self.node = node
        self.series: Any = None

    def observe(self, seconds: float) -> None:
        if self.series is None:
            self.series = NODE_SECONDS.labels(node=self.node)
        self.series.observe(seconds)


def _run_config() -> RunnableConfig:
    """The run's config, or an empty one for a stage called on its own (a test)."""
    try:
        return get_config()
    except RuntimeError:  # outside a LangGraph run: no thread, no run id
        return {}


def _progress(state: Mapping[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """Where the turn stands after a stage: chosen sources, SQL attempts, caps hit, stops."""

    def now(key: str) -> Any:
        return update[key] if key in update else state.get(key)

    return {
        "sources": now("sources") or {},
        "sql_attempts": len(now("attempts") or []),
        "caps_hit": now("caps_hit") or [],
        "stop_reason": now("stop_reason"),
    }


def stopped(state: Mapping[str, Any], reason: str, detail: str = "") -> dict[str, Any]:
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
