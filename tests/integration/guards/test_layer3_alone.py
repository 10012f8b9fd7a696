"""Layer 3 alone: layers 1 and 2 skipped (`orquestra sql --raw`), the database still holds.

Every attack of the corpus runs raw as tenant 101: it must fail, or return only what 101's own
copy returns; and after all of them, no table has changed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from ddl_catalog import load_catalog
from guards.executor import ExecutionLimits, QueryError, run_as_tenant
from tests.integration.guards.conftest import LIMITS, TENANT, multiset, run_on_copy
from tests.integration.guards.test_attacks import ATTACKS


async def _fingerprints(conn: asyncpg.Connection) -> dict[str, str]:
    out = {}
    for name in load_catalog().tables:
        out[name] = await conn.fetchval(
            "SELECT count(*) || ':' || "
            f"coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') FROM public.{name} t"
        )
    return out


@pytest.fixture(scope="module")
async def unchanged_tables(db_url: str, demo_db) -> AsyncIterator[None]:
    """Fails the module if any raw attack managed to change a table."""
    conn = await asyncpg.connect(db_url)
    try:
        before = await _fingerprints(conn)
        yield
        assert await _fingerprints(conn) == before, "a raw attack changed data"
    finally:
        await conn.close()


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a["id"])
async def test_attack_with_only_the_database(
    attack: dict,
    agent: asyncpg.Connection,
    conn: asyncpg.Connection,
    tenant_copy: str,
    unchanged_tables: None,
) -> None:
    try:
        result = await run_as_tenant(agent, attack["sql"], [], tenant=TENANT, limits=LIMITS)
    except QueryError:
        return  # refused by the database: nothing read, nothing written
    raw = attack.get("raw", "copy")
    if raw == "empty":
        assert result.rows == []
    elif raw == "own-tenant":
        position = result.columns.index("cod_fornecedor")
        assert result.rows and {row[position] for row in result.rows} == {int(TENANT)}
    elif raw == "copy":
        try:
            expected = await run_on_copy(conn, attack["sql"])
        except asyncpg.PostgresError:
            expected = []
        assert multiset(result.rows) == multiset(expected)
    # raw == "any": metadata the role may see (a plan, its own name), no other tenant's rows


async def test_no_tenant_set_means_no_rows(agent: asyncpg.Connection) -> None:
    for name in load_catalog().tenant_tables():
        assert await agent.fetchval(f"SELECT count(*) FROM {name}") == 0, name
    assert await agent.fetchval("SELECT count(*) FROM transportadoras") == 12


async def test_rls_is_enabled_and_forced_on_every_tenant_table(conn: asyncpg.Connection) -> None:
    rows = await conn.fetch(
        "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class "
        "WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'"
    )
    flags = {r["relname"]: (r["relrowsecurity"], r["relforcerowsecurity"]) for r in rows}
    for name in load_catalog().tenant_tables():
        assert flags[name] == (True, True), name
    assert flags["transportadoras"] == (False, False)


async def test_agent_role_is_least_privilege(conn: asyncpg.Connection) -> None:
    role = await conn.fetchrow(
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
    privileges = await conn.fetchrow(
        "SELECT has_database_privilege('orquestra_agent', current_database(), 'TEMP') AS temp,"
        " has_table_privilege('orquestra_agent', 'public.pedidos', 'INSERT') AS ins,"
        " has_table_privilege('orquestra_agent', 'public.pedidos', 'SELECT') AS sel,"
        " has_table_privilege('orquestra_agent', 'orquestra_internal.demo_dataset', 'SELECT')"
        "   AS internal,"
        " has_function_privilege('orquestra_agent', 'set_config(text,text,boolean)', 'EXECUTE')"
        "   AS set_config,"
        " has_function_privilege('orquestra_agent', 'pg_sleep(double precision)', 'EXECUTE')"
        "   AS sleep"
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
    "sql",
    [
        "INSERT INTO transportadoras VALUES (99, 'x', 'AEREO')",
        "UPDATE notas_fiscais SET status = 'AUTORIZADA'",
        "DELETE FROM titulos",
        "CREATE TEMP TABLE t (a int)",
        "SET TRANSACTION READ WRITE",
    ],
)
async def test_writes_fail_even_unguarded(sql: str, agent: asyncpg.Connection) -> None:
    try:
        await run_as_tenant(agent, sql, [], tenant=TENANT, limits=LIMITS)
    except QueryError as failed:
        assert failed.code in {"READ_ONLY_VIOLATION", "PERMISSION_DENIED", "QUERY_ERROR"}
    else:
        assert sql.startswith("SET TRANSACTION")  # accepted, but it cannot change this one


async def test_write_fails_even_outside_the_executor(agent: asyncpg.Connection) -> None:
    """No read-only transaction, no SET LOCAL: privileges alone still refuse."""
    async with agent.transaction(readonly=False):
        with pytest.raises(asyncpg.PostgresError):
            await agent.execute("DELETE FROM titulos")


async def test_tenant_setting_does_not_outlive_the_query(agent: asyncpg.Connection) -> None:
    await run_as_tenant(agent, "SELECT 1", [], tenant=TENANT, limits=LIMITS)
    assert await agent.fetchval("SHOW app.tenant_id") == ""
    assert await agent.fetchval("SELECT count(*) FROM notas_fiscais") == 0


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


async def test_row_cap_marks_truncation(agent: asyncpg.Connection) -> None:
    limits = ExecutionLimits(row_cap=10, statement_timeout_ms=3_000, client_timeout_s=5)
    result = await run_as_tenant(agent, "SELECT * FROM pedidos", [], tenant=TENANT, limits=limits)
    assert result.row_count == 10 and result.truncated
    small = await run_as_tenant(
        agent, "SELECT * FROM fornecedores", [], tenant=TENANT, limits=limits
    )
    assert small.row_count == 1 and not small.truncated


async def test_invalid_tenant_is_refused_before_the_database(agent: asyncpg.Connection) -> None:
    with pytest.raises(QueryError) as failed:
        await run_as_tenant(agent, "SELECT 1", [], tenant="101'; RESET ALL; --", limits=LIMITS)
    assert failed.value.code == "TENANT_INVALID"
