"""The graph: stages as nodes, joined by small pure routers that enforce every cap.

Caps live in the run context, counters in the state, and the checks here. Transient model
and database errors are retried by LangGraph's `RetryPolicy` with an explicit `retry_on`,
three attempts at most.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol, TypeVar

import asyncpg
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy

from orquestra.core.settings import Settings
from orquestra.graph.context import RunContext
from orquestra.graph.resources import Resources, ResourceSource
from orquestra.graph.stage import Node, stage_name, stopped
from orquestra.graph.state import AgentState, InputState, OutputState
from orquestra.nodes.analyzer import analyzer
from orquestra.nodes.augmenter import augmenter
from orquestra.nodes.chat import chat_node
from orquestra.nodes.clarify import clarify
from orquestra.nodes.executor import executor
from orquestra.nodes.fixer import fixer
from orquestra.nodes.input_rails import input_rails
from orquestra.nodes.judge import answer_judge, judge
from orquestra.nodes.librarian import librarian
from orquestra.nodes.presenter import presenter
from orquestra.nodes.router import router
from orquestra.nodes.short_circuit import short_circuit
from orquestra.nodes.source_selection import select_sources
from orquestra.nodes.sql_writer import sql_writer
from orquestra.nodes.streamer import streamer
from orquestra.nodes.tenant_guard import tenant_guard
from orquestra.nodes.zero_row_retry import zero_row_retry

State = AgentState
Ctx = Runtime[RunContext]
_Next = TypeVar("_Next", bound=str)
FINISH: Literal["__end__"] = "__end__"
"""LangGraph's `END` (a plain `str` in its types) as the literal it is, so that the routers'
return types can say it; `tests/unit/graph/test_routers.py` checks the two are equal."""


class BoundStage(Protocol):
    """A stage as LangGraph calls it: the state, and the runtime by keyword."""

    def __call__(self, state: AgentState, *, runtime: Ctx) -> Awaitable[dict[str, Any]]: ...


def is_transient(error: Exception) -> bool:
    """Errors worth a retry: a dropped connection, a timeout, a rate limit, a 5xx."""
    if isinstance(
        error,
        (
            ConnectionError,
            TimeoutError,
            asyncpg.ConnectionDoesNotExistError,
            asyncpg.TooManyConnectionsError,
            asyncpg.CannotConnectNowError,
        ),
    ):
        return True
    try:
        import openai
    except ImportError:
        return False
    return isinstance(
        error,
        (
            openai.APIConnectionError,
            openai.APITimeoutError,
            openai.RateLimitError,
            openai.InternalServerError,
        ),
    )


RETRY = RetryPolicy(max_attempts=3, initial_interval=0.5, retry_on=is_transient)


def after_short_circuit(state: State) -> Literal["streamer", "input_rails"]:
    return "streamer" if state.get("answer") else "input_rails"


def after_input_rails(state: State) -> Literal["streamer", "augmenter"]:
    return "streamer" if state.get("answer") or state.get("stop_reason") else "augmenter"


def after_augmenter(state: State) -> Literal["streamer", "clarify", "router"]:
    if state.get("stop_reason"):
        return "streamer"
    return "clarify" if state.get("clarify_question") else "router"


def after_router(state: State) -> Literal["streamer", "chat", "librarian", "select_sources"]:
    if state.get("stop_reason"):
        return "streamer"
    route = state.get("route")
    if route == "CHAT":
        return "chat"
    if route == "KNOWLEDGE" or state.get("wants_knowledge"):
        return "librarian"
    return "select_sources"


def after_judge(state: State) -> Literal["librarian", "select_sources", "streamer"]:
    if state.get("stop_reason"):
        return "streamer"
    if state.get("judge_feedback"):
        return "librarian"
    return "select_sources" if state.get("route") in ("TRACKING", "ANALYTICS") else "streamer"


def after_streamer(state: State) -> Literal["answer_judge", "__end__"]:
    return "answer_judge" if state.get("judge_pending") and not state.get("stop_reason") else FINISH


def after_answer_judge(state: State) -> Literal["streamer", "__end__"]:
    """A rewrite the judges asked for, or the honest stop of an answer they refused."""
    refused = state.get("stop_reason") == "ANSWER_REFUSED"
    rewrite = state.get("judge_feedback") and not state.get("stop_reason")
    return "streamer" if refused or rewrite else FINISH


def after_writer(state: State) -> Literal["streamer", "tenant_guard"]:
    return "tenant_guard" if state.get("draft_sql") and not state.get("stop_reason") else "streamer"


def after_guard(state: State, runtime: Ctx) -> Literal["executor", "fixer", "cap_reached"]:
    if state.get("guarded_sql"):
        return "executor"
    return (
        "fixer"
        if state.get("fix_attempts", 0) < runtime.context.caps.max_fix_attempts
        else "cap_reached"
    )


def after_executor(
    state: State, runtime: Ctx
) -> Literal["analyzer", "fixer", "zero_row_retry", "cap_reached"]:
    result = state.get("result")
    if result is None:
        return (
            "fixer"
            if state.get("fix_attempts", 0) < runtime.context.caps.max_fix_attempts
            else "cap_reached"
        )
    if result["rows"]:
        return "analyzer"
    return (
        "zero_row_retry"
        if state.get("sql_attempt", 0) < runtime.context.caps.max_sql_attempts
        else "cap_reached"
    )


def after_fixer(state: State) -> Literal["streamer", "tenant_guard"]:
    return "streamer" if state.get("stop_reason") else "tenant_guard"


async def cap_reached(state: State, runtime: Ctx) -> dict[str, Any]:
    """Which cap ended the turn: repairs exhausted, or every SQL attempt came back empty."""
    failed = state.get("result") is None
    return stopped(state, "MAX_FIX_ATTEMPTS" if failed else "MAX_SQL_ATTEMPTS")


class Identity(Protocol):
    """Who a run reads as, decided by the server that authenticated its caller: the run
    context with its tenant and user replaced by those of `user` (LangGraph Server's
    authenticated user, `runtime.server_info.user`; `None` when there is none)."""

    def __call__(self, context: RunContext, user: Any, settings: Settings) -> RunContext: ...


def bind(
    node: Node[AgentState], resources: ResourceSource, identity: Identity | None = None
) -> BoundStage:
    """`node` as LangGraph calls it, `(state, runtime=…)`, with the resources handed in.
    With `identity` (LangGraph Server only), the one place a run's tenant and user are taken
    from its authenticated caller, whatever the client put in the context."""

    async def run(state: AgentState, *, runtime: Ctx) -> dict[str, Any]:
        opened = await resources()
        if identity is not None:
            runtime = _as_caller(runtime, identity, opened.settings)
        return await node(state, runtime, opened)

    return run


def bind_router(
    route: Callable[[State, Ctx], _Next], resources: ResourceSource, identity: Identity | None
) -> Callable[[State, Ctx], _Next] | Callable[[State, Ctx], Awaitable[_Next]]:
    """A router that reads the run context's caps, reading them as the stages do: with
    `identity` (LangGraph Server), from the caller's context, so that in production the
    server's caps bound the loops, not caps a client put in the run's context."""
    if identity is None:
        return route

    @functools.wraps(route)  # keeps the return type, from which LangGraph draws the edges
    async def routed(state: State, runtime: Ctx) -> _Next:
        opened = await resources()
        return route(state, _as_caller(runtime, identity, opened.settings))

    return routed


def _as_caller(runtime: Ctx, identity: Identity, settings: Settings) -> Ctx:
    user = runtime.server_info.user if runtime.server_info is not None else None
    return runtime.override(context=identity(runtime.context, user, settings))


def build_graph(
    resources: Resources | ResourceSource, *, identity: Identity | None = None
) -> StateGraph[AgentState, RunContext, InputState, OutputState]:
    """The orchestrated graph, not yet compiled (callers pick the checkpointer), its stages
    given `resources`: the open ones, or an opener (`OnFirstRun`, for LangGraph Server).
    `identity` takes each run's tenant and user from its authenticated caller (LangGraph
    Server, `agent.studio`); without it the context's are used, as the server that built
    the context from a verified token set them (`orquestra serve`, `ask`, the evals)."""
    source = _given(resources) if isinstance(resources, Resources) else resources
    graph = StateGraph(
        AgentState, context_schema=RunContext, input_schema=InputState, output_schema=OutputState
    )
    for node in (
        short_circuit,
        input_rails,
        clarify,
        select_sources,
        tenant_guard,
        zero_row_retry,
        analyzer,
        presenter,
    ):
        graph.add_node(stage_name(node), bind(node, source, identity))
    graph.add_node("cap_reached", cap_reached)  # a router's step, not a stage
    for node in (
        augmenter,
        router,
        chat_node,
        librarian,
        judge,
        answer_judge,
        sql_writer,
        executor,
        fixer,
        streamer,
    ):
        graph.add_node(stage_name(node), bind(node, source, identity), retry_policy=RETRY)
    graph.add_edge(START, "short_circuit")
    graph.add_conditional_edges("short_circuit", after_short_circuit)
    graph.add_conditional_edges("augmenter", after_augmenter)
    graph.add_conditional_edges("input_rails", after_input_rails)
    graph.add_edge("clarify", "input_rails")
    graph.add_conditional_edges("router", after_router)
    graph.add_edge("chat", "streamer")
    graph.add_edge("librarian", "judge")
    graph.add_conditional_edges("judge", after_judge)
    graph.add_edge("select_sources", "sql_writer")
    graph.add_conditional_edges("sql_writer", after_writer)
    graph.add_conditional_edges("tenant_guard", bind_router(after_guard, source, identity))
    graph.add_conditional_edges("executor", bind_router(after_executor, source, identity))
    graph.add_conditional_edges("fixer", after_fixer)
    graph.add_edge("zero_row_retry", "sql_writer")
    graph.add_edge("cap_reached", "streamer")
    graph.add_edge("analyzer", "presenter")
    graph.add_edge("presenter", "streamer")
    graph.add_conditional_edges("streamer", after_streamer)
    graph.add_conditional_edges("answer_judge", after_answer_judge)
    return graph


def _given(resources: Resources) -> ResourceSource:
    async def given() -> Resources:
        return resources

    return given
