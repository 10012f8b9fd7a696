"""No blocking call on the event loop during a run, by a detector stricter than LangGraph
Server's: `langgraph dev` lets file reads, `os.stat` and directory listings through, this one
lets nothing through; and no module imported on the loop (an import reads files through the
import system, which no such detector sees: importing an SDK took 3.7 s in a first run).

The graph is built as LangGraph Server builds it (`agent.studio`: resources opened at
start-up, the caller's identity taken per run), the model is the default offline one, and
the process's caches start empty, so the first run's work is what is checked: data,
knowledge, chat and clarifying turns, and the clarification answered."""

from __future__ import annotations

import importlib
import sys
import threading
import traceback
from collections.abc import Iterator, Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import Any

import blockbuster.blockbuster as detector
import pytest
from blockbuster import BlockBuster, BlockingError
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

import orquestra.offline as offline
from orquestra.agent.studio import caller_context
from orquestra.agent.wiring import build_graph
from orquestra.core.settings import Settings
from orquestra.ddl_catalog.model import forget_catalogs
from orquestra.graph import models
from orquestra.graph.context import RunContext
from orquestra.graph.resources import Resources

KNOWN: list[tuple[str, str]] = []
"""Blocking calls reported and not yet moved to start-up: none. (The presenter's chart
machinery is read by a `warm_up`.)"""
FRAMEWORK_LAZY_IMPORTS = (
    "langchain_core.tracers.",
    "langchain_core.messages.block_translators.",
    "narwhals._interchange",
)
"""Small modules LangChain (its callback tracers, its message translators) and Altair (for
the first chart, see KNOWN) import on first use, in any graph: ~9 ms once per process."""


class ServerUser(dict):
    """The authenticated user LangGraph Server hands a run (`langgraph_auth_user`)."""

    @property
    def identity(self) -> str:
        return f"{self['tenant']}:{self['user']}"


@pytest.fixture
def blocked() -> Iterator[list[str]]:
    """Every blocking call the detector sees (raised, or swallowed by the code under test)."""
    seen: list[str] = []
    original = detector.BlockingError.__init__

    def record(self: BlockingError, func: str, *args: Any, **kwargs: Any) -> None:
        frames = [f"{f.filename}:{f.lineno} {f.name}" for f in traceback.extract_stack()[-12:-2]]
        seen.append(func + "\n  " + "\n  ".join(frames))
        original(self, func, *args, **kwargs)

    detector.BlockingError.__init__ = record  # type: ignore[method-assign]
    yield seen
    detector.BlockingError.__init__ = original  # type: ignore[method-assign]


class ImportsOnThisThread(MetaPathFinder):
    """Records every module imported on the thread that installed it (finds nothing)."""

    def __init__(self) -> None:
        self.thread = threading.get_ident()
        self.names: list[str] = []

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if threading.get_ident() == self.thread:
            self.names.append(name)
        return None

    def __enter__(self) -> ImportsOnThisThread:
        sys.meta_path.insert(0, self)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.meta_path.remove(self)


def strict() -> BlockBuster:
    watch = BlockBuster()
    for function in watch.functions.values():
        for filename, name in KNOWN:
            function.can_block_in(filename, name)
    return watch


async def test_the_detector_sees_a_blocking_call(blocked: list[str]) -> None:
    """The control: a file read on the loop is caught."""
    watch = strict()
    watch.activate()
    try:
        with pytest.raises(BlockingError), open(__file__, encoding="utf-8") as source:  # noqa: ASYNC230
            source.read()
    finally:
        watch.deactivate()
    assert blocked
    with ImportsOnThisThread() as imported:
        importlib.import_module("pydoc_data.topics")
    assert "pydoc_data.topics" in imported.names


async def test_a_runs_stages_never_block_the_event_loop(
    settings: Settings, demo_db: object, blocked: list[str]
) -> None:
    models._build.cache_clear()  # a fresh process: nothing built, no catalog read
    offline._catalogs.clear()
    offline._voices.clear()
    forget_catalogs()  # every per-catalog memo: lexicons, join graphs, words, units
    resources = await Resources.open(settings)
    graph = build_graph(resources, identity=caller_context).compile(checkpointer=InMemorySaver())
    caller = {"configurable": {"langgraph_auth_user": ServerUser(tenant="101", user="ana")}}

    async def ask(thread: str, message: Any) -> dict[str, Any]:
        config = {**caller, "recursion_limit": 60}
        config["configurable"] = {**caller["configurable"], "thread_id": thread}
        return await graph.ainvoke(message, config, context=RunContext())

    def said(text: str) -> dict[str, Any]:
        return {"messages": [{"role": "user", "content": text}]}

    watch = strict()
    try:
        with ImportsOnThisThread() as imported:
            watch.activate()
            data = await ask("data", said("faturamento por mês em 2026"))
            knowledge = await ask("knowledge", said("o que é nota bloqueada?"))
            chat = await ask("chat", said("oi, tudo bem?"))
            clarify = await ask("clarify", said("como está a produção?"))
            answered = await ask("clarify", Command(resume="faturamento de 2026"))
            watch.deactivate()
    finally:
        watch.deactivate()
        await resources.close()
    ours = [n for n in imported.names if not n.startswith(FRAMEWORK_LAZY_IMPORTS)]
    assert not ours, f"imported on the event loop during a run: {ours}"
    assert not blocked, "\n".join(blocked)
    assert data["route"] == "ANALYTICS" and data["result"]["row_count"] == 6
    assert knowledge["route"] == "KNOWLEDGE" and "BLOQUEADA" in knowledge["answer"]
    assert chat["route"] == "CHAT"
    assert clarify["__interrupt__"] and answered["route"] == "ANALYTICS"
