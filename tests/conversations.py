"""Conversations as the server keeps them, without a model: a two-stage LangGraph graph on the
real PostgreSQL checkpointer, whose turns commit to the threads table as `server.chat` does
(only a turn that ends well moves the thread on; the next forks from the committed one).

A message `fail` makes the second stage raise, so its turn leaves checkpoints and writes off
the committed chain — what a failed, refused or cancelled turn leaves.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

import asyncpg
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages

from orquestra.graph.checkpoints import SCHEMA, FailFastSaver, postgres_checkpointer
from orquestra.graph.events import thread_config
from orquestra.server.auth import Caller
from orquestra.server.run_leases import RunLeases
from orquestra.server.threads import ThreadStore

TABLES = ("checkpoints", "checkpoint_writes", "checkpoint_blobs")
FAIL = "fail"


class Talk(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    """The conversation."""
    draft: str
    """What the first stage made of the question."""


async def think(state: Talk) -> dict[str, Any]:
    return {"draft": f"about {state['messages'][-1].content}"}


async def answer(state: Talk) -> dict[str, Any]:
    if state["messages"][-1].content == FAIL:
        raise RuntimeError("the model was away")
    return {"messages": [AIMessage(f"answer {len(state['messages'])}: {state['draft']}")]}


def talk_graph(saver: FailFastSaver) -> Any:
    builder = StateGraph(Talk)
    builder.add_node("think", think)
    builder.add_node("answer", answer)
    builder.add_edge(START, "think")
    builder.add_edge("think", "answer")
    return builder.compile(checkpointer=saver)


@dataclass
class StateDatabase:
    """A state database's tables, as a server opens them, and a graph on its checkpointer."""

    pool: asyncpg.Pool
    saver: FailFastSaver
    graph: Any

    def store(self, scope: str) -> ThreadStore:
        return ThreadStore(self.pool, 10.0, scope)

    def leases(self, scope: str) -> RunLeases:
        return RunLeases(self.pool, ttl_s=30.0, timeout_s=10.0, scope=scope)


@asynccontextmanager
async def state_database(url: str) -> AsyncIterator[StateDatabase]:
    async with postgres_checkpointer(url, timeout_s=30.0) as saver:
        pool = await asyncpg.create_pool(url, min_size=1, max_size=4)
        try:
            await ThreadStore(pool, 10.0).ensure_table()
            await RunLeases(pool, ttl_s=30.0, timeout_s=10.0).ensure_table()
            yield StateDatabase(pool, saver, talk_graph(saver))
        finally:
            await pool.close()


async def turn(
    db: StateDatabase, store: ThreadStore, caller: Caller, thread: str, message: str
) -> bool:
    """One turn on `thread`, from its committed checkpoint; True when it ended well (and was
    committed)."""
    owned = await store.owned(caller, thread)
    committed = owned["checkpoint_id"] if owned else None
    try:
        await db.graph.ainvoke(
            {"messages": [HumanMessage(message)]}, thread_config(thread, committed)
        )
    except RuntimeError:
        return False
    newest = await db.graph.aget_state(thread_config(thread))
    checkpoint = newest.config["configurable"]["checkpoint_id"]
    return await store.commit(caller, thread, message, checkpoint, previous=committed)


async def conversation(
    db: StateDatabase, store: ThreadStore, caller: Caller, thread: str, messages: Sequence[str]
) -> None:
    for message in messages:
        await turn(db, store, caller, thread, message)


async def rows_of(pool: asyncpg.Pool, thread: str) -> dict[str, int]:
    """How many rows `thread` has in each checkpointer table, and its owner row (`threads`)."""
    async with pool.acquire() as conn:
        counts = {
            table: await conn.fetchval(
                f"SELECT count(*) FROM {SCHEMA}.{table} WHERE thread_id = $1", thread
            )
            for table in (*TABLES, "threads")
        }
    return counts


async def messages_of(db: StateDatabase, store: ThreadStore, caller: Caller, thread: str) -> list:
    """The thread's messages at its committed checkpoint (what `GET /v1/threads/{id}` shows)."""
    owned = await store.owned(caller, thread)
    assert owned is not None
    state = await db.graph.aget_state(thread_config(thread, owned["checkpoint_id"]))
    return [(m.type, m.content) for m in state.values.get("messages", [])]
