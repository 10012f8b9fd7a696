"""Layer 3 alone: layers 1 and 2 skipped (`orquestra sql --raw`), the database still holds.

On each deployment, every attack of its corpus runs raw as its tenant (101, or unit 201 of
clinics, whose tables scoped through parents carry no tenant column of their own): it must
fail, or return only what the tenant's own copy returns; and after all of them, no table has
changed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from orquestra.guards.tenant_query import ExecutionLimits, QueryError, run_as_tenant
from tests.deployment_cases import DeploymentUnderTest, chain_join_sql, only
from tests.integration.guards.conftest import (
    LIMITS,
    TenantCopy,
    for_each_deployment,
    multiset,
    run_on_copy,
)

TENANT = "101"
WRITES = {
    "logistics": [
        "INSERT INTO transportadoras VALUES (99, 'x', 'AEREO')",
        "UPDATE notas_fiscais SET status = 'AUTORIZADA'",
        "DELETE FROM titulos",
    ],
    "clinics": [
        "INSERT INTO tipos_exame VALUES (99, 'x', 'RX', 1, 24, 10)",
        "UPDATE laudos SET status = 'ASSINADO'",
        "DELETE FROM apontamentos_revisao",
        "UPDATE plantoes SET horas = 0",
    ],
}
"""Writes on each deployment's tables, shared and scoped through parents included."""


async def _fingerprints(conn: asyncpg.Connection, deployment: DeploymentUnderTest) -> dict:
    out = {}
    for name in deployment.catalog.tables:
        out[name] = await conn.fetchval(
            "SELECT count(*) || ':' || "
            f"coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') FROM public.{name} t"
        )
    return out


@pytest.fixture(scope="session")
async def unchanged_tables(deployment: DeploymentUnderTest) -> AsyncIterator[None]:
    """Fails if any raw attack managed to change a table of the deployment. Session scope, as
    its deployment: the attacks of this module and of test_attacks.py share their
    parameters, so pytest may interleave the two modules' items."""
    conn = await asyncpg.connect(deployment.owner_url)
    try:
        before = await _fingerprints(conn, deployment)
        yield
        assert await _fingerprints(conn, deployment) == before, "a raw attack changed data"
    finally:
        await conn.close()


@for_each_deployment("attacks", "attack", ids=lambda a: a["id"])
async def test_attack_with_only_the_database(
    attack: dict,
    deployment: DeploymentUnderTest,
    agent: asyncpg.Connection,
    owner: asyncpg.Connection,
    tenant_copy: TenantCopy,
    unchanged_tables: None,
) -> None:
    tenant = deployment.tenant
    try:
        result = await run_as_tenant(agent, attack["sql"], [], tenant=tenant, limits=LIMITS)
    except QueryError:
        return  # refused by the database: nothing read, nothing written
    raw = attack.get("raw", "copy")
    if raw == "empty":
        assert result.rows == []
    elif raw == "own-tenant":
        position = result.columns.index(deployment.tenant_column)
        assert result.rows and {row[position] for row in result.rows} == {int(tenant)}
    elif raw == "copy":
        try:
            expected = await run_on_copy(owner, attack["sql"], tenant_copy)
        except asyncpg.PostgresError:
            expected = []
        assert multiset(result.rows) == multiset(expected)
    # raw == "any": metadata the role may see (a plan, its own name), no other tenant's rows


async def test_no_tenant_set_means_no_rows(
    deployment: DeploymentUnderTest, agent: asyncpg.Connection
) -> None:
    for name in deployment.scoped_tables():
        assert await agent.fetchval(f"SELECT count(*) FROM {name}") == 0, name
    for name in (t.name for t in deployment.catalog.tables.values() if t.shared):
        assert await agent.fetchval(f"SELECT count(*) FROM {name}") > 0, name


async def test_rls_is_enabled_and_forced_on_every_scoped_table(
    deployment: DeploymentUnderTest, owner: asyncpg.Connection
) -> None:
    rows = await owner.fetch(
        "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class "
        "WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'"
    )
    flags = {r["relname"]: (r["relrowsecurity"], r["relforcerowsecurity"]) for r in rows}
    for name in deployment.scoped_tables():
        assert flags[name] == (True, True), name
    for name in (t.name for t in deployment.catalog.tables.values() if t.shared):
        assert flags[name] == (False, False), name


@only("clinics")
async def test_each_unit_reads_exactly_its_share_of_every_via_table(
    deployment: DeploymentUnderTest, agent: asyncpg.Connection, owner: asyncpg.Connection
) -> None:
    """Raw counts of each table scoped through parents, per unit, equal the owner's count
    joined up the parent chain by hand; the shares add up to the whole table."""
    catalog = deployment.catalog
    via = [n for n, t in catalog.tables.items() if t.tenancy == "via"]
    assert sorted(via) == [
        "apontamentos_revisao",
        "laudo_achados",
        "plantoes",
        "revisoes_qualidade",
    ]
    for name in via:
        truth = {r["tenant"]: r["n"] for r in await owner.fetch(chain_join_sql(catalog, name))}
        shares = {}
        for unit in deployment.tenants:
            result = await run_as_tenant(
                agent, f"SELECT count(*) FROM {name}", [], tenant=unit, limits=LIMITS
            )
            shares[unit] = result.rows[0][0]
        assert shares == {u: truth.get(u, 0) for u in deployment.tenants}, name
        assert len(set(shares.values())) > 1  # units of unequal size: a swap would show
        assert sum(shares.values()) == await owner.fetchval(f"SELECT count(*) FROM {name}")


async def test_agent_role_is_least_privilege(
    deployment: DeploymentUnderTest, owner: asyncpg.Connection
) -> None:
    table = next(iter(deployment.catalog.tenant_tables()))
    role = await owner.fetchrow(
        "SELECT rolsuper, rolbypassrls, rolcreatedb, rolcreaterole, rolcanlogin "
        "FROM pg_roles WHERE rolname = 'orquestra_agent'"
    )
    assert dict(role) == {
        "rolsuper": False,
        "rolbypassrls": False,
        "rolcreatedb": False,
        "rolcreaterole": False,
        "rolcanlogin": True,
    }
    privileges = await owner.fetchrow(
        "SELECT has_database_privilege('orquestra_agent', current_database(), 'TEMP') AS temp,"
        " has_table_privilege('orquestra_agent', $1, 'INSERT') AS ins,"
        " has_table_privilege('orquestra_agent', $1, 'SELECT') AS sel,"
        " has_table_privilege('orquestra_agent', 'orquestra_internal.demo_dataset', 'SELECT')"
        "   AS internal,"
        " has_function_privilege('orquestra_agent', 'set_config(text,text,boolean)', 'EXECUTE')"
        "   AS set_config,"
        " has_function_privilege('orquestra_agent', 'pg_sleep(double precision)', 'EXECUTE')"
        "   AS sleep",
        f"public.{table}",
    )
    assert dict(privileges) == {
        "temp": False,
        "ins": False,
        "sel": True,
        "internal": False,
        "set_config": False,
        "sleep": False,
    }


@pytest.mark.parametrize(
    ("deployment", "sql"),
    [
        *((name, sql) for name, writes in WRITES.items() for sql in writes),
        ("logistics", "CREATE TEMP TABLE t (a int)"),
        ("logistics", "SET TRANSACTION READ WRITE"),
    ],
    indirect=["deployment"],
    scope="session",
)
async def test_writes_fail_even_unguarded(
    sql: str, deployment: DeploymentUnderTest, agent: asyncpg.Connection
) -> None:
    try:
        await run_as_tenant(agent, sql, [], tenant=deployment.tenant, limits=LIMITS)
    except QueryError as failed:
        assert failed.code in {"READ_ONLY_VIOLATION", "PERMISSION_DENIED", "QUERY_ERROR"}
    else:
        assert sql.startswith("SET TRANSACTION")  # accepted, but it cannot change this one


async def test_write_fails_even_outside_the_executor(
    deployment: DeploymentUnderTest, agent: asyncpg.Connection
) -> None:
    """No read-only transaction, no SET LOCAL: privileges alone still refuse."""
    for sql in WRITES[deployment.name]:
        async with agent.transaction(readonly=False):
            with pytest.raises(asyncpg.PostgresError):
                await agent.execute(sql)


async def test_tenant_setting_does_not_outlive_the_query(
    deployment: DeploymentUnderTest, agent: asyncpg.Connection
) -> None:
    (table, *_), tenant = deployment.scoped_tables(), deployment.tenant
    seen = await run_as_tenant(
        agent, f"SELECT count(*) FROM {table}", [], tenant=tenant, limits=LIMITS
    )
    assert seen.rows[0][0] > 0
    assert await agent.fetchval("SHOW app.tenant_id") == ""
    assert await agent.fetchval(f"SELECT count(*) FROM {table}") == 0


@only("logistics")
async def test_timeout_cancels_and_the_connection_is_reusable(agent: asyncpg.Connection) -> None:
    limits = ExecutionLimits(row_cap=0, statement_timeout_ms=300, client_timeout_s=5)
    with pytest.raises(QueryError) as failed:
        await run_as_tenant(
            agent,
            "SELECT count(*) FROM eventos_rastreamento a, eventos_rastreamento b",
            [],
            tenant=TENANT,
            limits=limits,
        )
    assert failed.value.code == "QUERY_TIMEOUT"
    result = await run_as_tenant(
        agent, "SELECT count(*) FROM cargas", [], tenant="105", limits=LIMITS
    )
    assert result.rows[0][0] > 0


@only("logistics")
async def test_client_timeout_backs_the_server_timeout(agent: asyncpg.Connection) -> None:
    limits = ExecutionLimits(row_cap=0, statement_timeout_ms=60_000, client_timeout_s=0.3)
    with pytest.raises(QueryError) as failed:
        await run_as_tenant(
            agent,
            "SELECT count(*) FROM eventos_rastreamento a, eventos_rastreamento b",
            [],
            tenant=TENANT,
            limits=limits,
        )
    assert failed.value.code == "QUERY_TIMEOUT"
    assert await agent.fetchval("SELECT 1") == 1


@only("logistics")
async def test_row_cap_marks_truncation(agent: asyncpg.Connection) -> None:
    limits = ExecutionLimits(row_cap=10, statement_timeout_ms=3_000, client_timeout_s=5)
    result = await run_as_tenant(agent, "SELECT * FROM pedidos", [], tenant=TENANT, limits=limits)
    assert result.row_count == 10 and result.truncated
    small = await run_as_tenant(
        agent, "SELECT * FROM fornecedores", [], tenant=TENANT, limits=limits
    )
    assert small.row_count == 1 and not small.truncated


@only("logistics")
async def test_invalid_tenant_is_refused_before_the_database(agent: asyncpg.Connection) -> None:
    with pytest.raises(QueryError) as failed:
        await run_as_tenant(agent, "SELECT 1", [], tenant="101'; RESET ALL; --", limits=LIMITS)
    assert failed.value.code == "TENANT_INVALID"
