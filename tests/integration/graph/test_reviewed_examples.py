"""Reviewed examples on the demo database, with two tenants: an approval from tenant A's turn
reaches A's prompts as approved, B's only with A's names as slots, and the offline model
answers B's question that means the same with B's own customer; SQL the guard or the database
refuses is never kept; a reversion takes effect on the next turn."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

from orquestra.graph.event_types import ResultData
from orquestra.graph.reviewed_examples import ReviewedExamples
from orquestra.guards.tokens import Caller
from orquestra.server.review import ReviewError, ReviewStore
from tests.integration.graph.conftest import Harness, ask_offline
from tests.integration.graph.scripts import data_turn

pytestmark = pytest.mark.parametrize("deployment", ["logistics"], indirect=True)

ORDERS = (
    "SELECT count(*) AS pedidos FROM pedidos p JOIN clientes c ON c.cod_cliente = p.cod_cliente"
    " WHERE c.nome = '{name}'"
)


async def two_customers(pool: asyncpg.Pool) -> tuple[str, str, str, str]:
    """A customer name found in one tenant's rows only, that tenant; and the same for another
    tenant."""
    rows = await pool.fetch(
        "SELECT DISTINCT ON (c.cod_fornecedor) c.nome, c.cod_fornecedor::text AS owner"
        " FROM clientes c WHERE NOT EXISTS (SELECT 1 FROM clientes o WHERE o.nome = c.nome"
        " AND o.cod_fornecedor <> c.cod_fornecedor) AND c.nome !~ '[.]'"
        " AND EXISTS (SELECT 1 FROM pedidos p WHERE p.cod_cliente = c.cod_cliente)"
        " ORDER BY c.cod_fornecedor, c.cod_cliente LIMIT 2"
    )
    (a, owner_a), (b, owner_b) = rows
    return a, owner_a, b, owner_b


@pytest.fixture
async def store(harness: Harness) -> AsyncIterator[ReviewStore]:
    """A review store and the resources' reviewed examples on a scope of this test alone."""
    resources = harness.resources
    scope = f"test-reviewed-{uuid.uuid4().hex[:8]}"
    kept = resources.reviewed
    opened = ReviewStore(resources.state, 5.0, scope)
    await opened.ensure_tables()
    resources.reviewed = ReviewedExamples(resources.state, scope, 5.0)
    try:
        yield opened
    finally:
        resources.reviewed = kept


async def queued(store: ReviewStore, tenant: str, question: str) -> int:
    """A turn of `tenant` that could not answer: in the queue by itself."""
    await store.record(
        Caller(user="ana", tenant=tenant),
        thread_id=str(uuid.uuid4()),
        run_id=str(uuid.uuid4()),
        message=question,
        rewritten=question,
        lang="pt",
        result=ResultData(answer="Não consegui.", route="ANALYTICS", attempts=[]),
    )
    turns = await store.listed("pending", tenant=tenant)
    return int(next(t["id"] for t in turns if t["question"] == question))


async def approve(harness: Harness, store: ReviewStore, turn: int, sql: str):
    r = harness.resources
    return await store.approve(
        turn,
        catalog=r.catalog,
        policy=r.policy,
        settings=r.settings,
        agent_pool=r.agent_pool,
        by="reviewer",
        sql=sql,
    )


async def test_another_tenants_prompt_never_holds_the_approving_tenants_names(
    harness: Harness, store: ReviewStore
) -> None:
    a, owner_a, b, owner_b = await two_customers(harness.resources.admin_pool)
    question = f"quantos pedidos o cliente {a} fez?"
    turn = await queued(store, owner_a, question)
    approval = await approve(harness, store, turn, ORDERS.format(name=a))
    assert approval.shareable and approval.result.rows[0][0] > 0

    asked_b = f"quantos pedidos o cliente {b} fez?"
    current = harness.use(data_turn(asked_b, "SELECT count(*) FROM pedidos"))
    await harness.ask(asked_b, thread="b-scripted", tenant=owner_b)
    prompts_b = "\n".join(p for _, p in current.seen)
    assert f"reviewed example {approval.example_id}" in prompts_b
    assert "{nome}" in prompts_b and a not in prompts_b
    augmenter_b = next(p for role, p in current.seen if role == "augmenter")
    assert "## Reviewed questions\n- quantos pedidos o cliente {nome} fez? → simple" in augmenter_b

    current = harness.use(data_turn(question, "SELECT count(*) FROM pedidos"))
    await harness.ask(question, thread="a-scripted", tenant=owner_a)
    writer_a = next(p for role, p in current.seen if role == "sql_writer")
    assert f"c.nome = '{a}'" in writer_a  # its own, as approved


async def test_the_offline_model_answers_the_same_question_with_its_own_customer(
    harness: Harness, store: ReviewStore
) -> None:
    a, owner_a, b, owner_b = await two_customers(harness.resources.admin_pool)
    turn = await queued(store, owner_a, f"quantos pedidos o cliente {a} fez?")
    approval = await approve(harness, store, turn, ORDERS.format(name=a))
    own_count = await harness.resources.admin_pool.fetchval(
        "SELECT count(*) FROM pedidos p JOIN clientes c ON c.cod_cliente = p.cod_cliente"
        " WHERE c.nome = $1 AND c.cod_fornecedor::text = $2",
        b,
        owner_b,
    )
    from dataclasses import replace

    harness.base = replace(
        harness.base, models=dict.fromkeys(harness.base.models, "offline"), tenant=owner_b
    )
    reply = await ask_offline(harness, f"quantos pedidos o cliente {b} fez?", thread="b-off")
    assert reply.result["rows"] == [[own_count]]
    assert f"c.nome = '{b}'" in reply.result["attempts"][-1]["sql"]
    assert "exemplo revisado" in reply.result["answer"] and approval.example_id

    await store.revert(turn, by="reviewer")  # from the next turn on, no longer used
    again = await ask_offline(harness, f"quantos pedidos o cliente {b} fez?", thread="b-off2")
    assert "exemplo revisado" not in again.result["answer"]


async def test_sql_the_guard_or_the_database_refuses_is_never_kept(
    harness: Harness, store: ReviewStore
) -> None:
    a, owner_a, _, _ = await two_customers(harness.resources.admin_pool)
    turn = await queued(store, owner_a, f"pedidos de {a}")
    for refused, code in (
        ("SELECT usename FROM pg_user", "GUARD_"),  # the guard's refusal
        ("DELETE FROM pedidos", "GUARD_"),
        ("SELECT nao_existe FROM pedidos", "QUERY_ERROR"),  # the database's, as the tenant
    ):
        with pytest.raises(ReviewError) as raised:
            await approve(harness, store, turn, refused)
        assert raised.value.code.startswith(code), raised.value.code
    shown = await store.shown(turn)
    assert shown["status"] == "pending" and shown["history"] == []
    assert await store.approved() == []
    with pytest.raises(ReviewError, match="REVIEW_NOT_FOUND"):
        await store.shown(turn, tenant="999")  # another tenant's reviewer: not found
