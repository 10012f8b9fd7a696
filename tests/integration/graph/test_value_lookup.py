"""Names looked up in the data (`graph.data_values`) on the demo database, as the agent's
role: each tenant finds its own rows' names and never another's — through the guard with
the database's row-level security, and through row-level security alone."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from orquestra.core.database import agent_url
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import load_catalog
from orquestra.ddl_catalog.selection import SourceIndex
from orquestra.graph.data_values import LookedUp, look_up
from orquestra.guards import GuardPolicy, TablePolicy
from orquestra.guards.tenant_names import TenantNames

CATALOG = load_catalog()


@pytest.fixture(scope="module")
def index() -> SourceIndex:
    import numpy as np

    vectors = {name: np.ones(4) for name in CATALOG.tables}
    return SourceIndex(CATALOG, vectors)


@pytest.fixture
async def pool(settings: Settings, demo_db: object) -> AsyncIterator[asyncpg.Pool]:
    opened = await asyncpg.create_pool(agent_url(settings), min_size=1, max_size=2)
    try:
        yield opened
    finally:
        await opened.close()


async def one_tenants_name(conn: asyncpg.Connection) -> tuple[str, str, str]:
    """A customer's name found in one tenant's rows only, that tenant, and another."""
    row = await conn.fetchrow(
        "SELECT c.nome, c.cod_fornecedor::text AS owner FROM clientes c "
        "WHERE NOT EXISTS (SELECT 1 FROM clientes o WHERE o.nome = c.nome "
        "AND o.cod_fornecedor <> c.cod_fornecedor) ORDER BY c.cod_cliente LIMIT 1"
    )
    other = await conn.fetchval(
        "SELECT cod_fornecedor::text FROM fornecedores WHERE cod_fornecedor::text <> $1 "
        "ORDER BY cod_fornecedor LIMIT 1",
        row["owner"],
    )
    return row["nome"], row["owner"], other


def unscoped(policy: GuardPolicy) -> GuardPolicy:
    """The same allowlist with no tenant filter of the guard's: row-level security alone."""
    tables = {n: TablePolicy(t.name, t.schema, None) for n, t in policy.tables.items()}
    return GuardPolicy(tables, policy.types)


@pytest.mark.parametrize("layers", ["guard and row security", "row security alone"])
async def test_a_tenant_finds_its_own_names_and_never_anothers(
    layers: str,
    index: SourceIndex,
    pool: asyncpg.Pool,
    conn: asyncpg.Connection,
    settings: Settings,
) -> None:
    name, owner, other = await one_tenants_name(conn)
    policy = GuardPolicy.from_catalog(CATALOG)
    if layers == "row security alone":
        policy = unscoped(policy)
    question = f"quantos pedidos o cliente {name} fez em 2025?"
    limits = settings.limits.execution()
    found = (await look_up(question, index, pool, policy, tenant=owner, limits=limits)).found
    assert [(f.table, f.column, f.value, f.level) for f in found] == [
        ("clientes", "nome", name, "exact")
    ]
    theirs = (await look_up(question, index, pool, policy, tenant=other, limits=limits)).found
    assert all(name not in (f.value, *(v for _, v in f.rest)) for f in theirs)
    assert all(f.level != "exact" for f in theirs)


async def test_the_own_company_is_not_looked_up_and_another_is_found_nowhere(
    index: SourceIndex, pool: asyncpg.Pool, conn: asyncpg.Connection, settings: Settings
) -> None:
    """The asker's own name says whose data this is; another tenant's is searched like a
    made-up name (the same statement, the same time) and found in none of the asker's rows."""
    rows = await conn.fetch(
        "SELECT cod_fornecedor::text AS code, razao_social FROM fornecedores ORDER BY 1"
    )
    names = TenantNames({r["code"]: r["razao_social"] for r in rows})
    own, other = rows[0], rows[1]
    looked = {}
    for said in (own["razao_social"], other["razao_social"], "Xavante Comercial Ltda"):
        looked[said] = await look_up(
            f"pedidos da {said} em 2025",
            index,
            pool,
            GuardPolicy.from_catalog(CATALOG),
            tenant=own["code"],
            limits=settings.limits.execution(),
            names=names,
        )
    assert looked[own["razao_social"]] == LookedUp()
    for said in (other["razao_social"], "Xavante Comercial Ltda"):
        assert looked[said].searched and not looked[said].found, looked[said]


async def test_quotes_and_wildcards_are_text_and_a_failed_lookup_finds_nothing(
    index: SourceIndex, pool: asyncpg.Pool, conn: asyncpg.Connection, settings: Settings
) -> None:
    owner = await conn.fetchval("SELECT min(cod_fornecedor)::text FROM fornecedores")
    limits = settings.limits.execution()
    policy = GuardPolicy.from_catalog(CATALOG)
    for question in ("pedidos do Zé D'Ávila 100%", 'pedidos de "%_%"', "vendas de X'; DROP"):
        assert (
            await look_up(question, index, pool, policy, tenant=owner, limits=limits)
        ).found == ()
    # a table the allowlist lacks: the guard refuses the lookup, and the turn goes on
    empty = GuardPolicy({}, policy.types)
    name, owner, _ = await one_tenants_name(conn)
    question = f"pedidos do cliente {name}"
    assert (await look_up(question, index, pool, empty, tenant=owner, limits=limits)) == LookedUp()
