"""`orquestra db policies` on a company's database: least intrusive, idempotent, no superuser.

Each test gets its own database on the session's embedded server, filled with the rental
chain (tenant = store; payments through rentals through inventory; supply lines on a
composite key) by a NON-superuser owner, with a company application role that reads and
writes, and a table of its own whose key defaults to `nextval`. Policies are applied as that
owner, the way a managed PostgreSQL allows.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

import asyncpg
import pytest

from orquestra.core.database import Connection, admin_url, with_database, with_user
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import Catalog, load_catalog
from orquestra.guards.rls_setup import least_intrusive_statements
from orquestra.guards.tenant_query import QueryError, run_as_tenant
from orquestra.server.db_policies import PolicyError, apply_policies
from tests.integration.guards.via.conftest import CATALOG_DIR, LIMITS
from tests.integration.guards.via.rental_data import rental_chain_rows

APP_ROLE = "company_app"
"""The company's own application: reads and writes the tables, owns nothing."""


@dataclass
class CompanyDb:
    owner_url: str
    """As the tables' owner (not a superuser)."""
    super_url: str
    """As the embedded server's superuser, to observe and to stage ownership."""
    agent: str

    def url_as(self, role: str) -> str:
        return with_user(self.owner_url, role)


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog(CATALOG_DIR)


@pytest.fixture
async def company_db(
    settings: Settings, catalog: Catalog, request: pytest.FixtureRequest
) -> AsyncIterator[Callable]:
    """A factory: `await company_db(owner_attributes)` → a fresh company database."""
    server = admin_url(settings)
    made: list[str] = []

    async def make(owner_attributes: str = "CREATEROLE", agent: str = "") -> CompanyDb:
        name = f"company_{request.node.name[5:30].lower()}_{len(made)}"
        owner, agent = f"{name}_owner", agent or f"{name}_agent"
        root = await asyncpg.connect(with_database(server, "postgres"))
        try:
            await root.execute(f"CREATE ROLE {owner} LOGIN {owner_attributes}")
            await root.execute(
                f"DO $$ BEGIN CREATE ROLE {APP_ROLE} LOGIN; EXCEPTION WHEN duplicate_object"
                " THEN NULL; END $$"
            )
            await root.execute(f"CREATE DATABASE {name} OWNER {owner}")
        finally:
            await root.close()
        made.append(name)
        db = CompanyDb(
            with_user(with_database(server, name), owner), with_database(server, name), agent
        )
        await _load(db.owner_url, catalog)
        return db

    yield make
    root = await asyncpg.connect(with_database(server, "postgres"))
    try:
        for name in made:
            await root.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    finally:
        await root.close()


async def _load(url: str, catalog: Catalog) -> None:
    conn = await asyncpg.connect(url)
    try:
        rows = rental_chain_rows()
        for system in catalog.systems:
            for statement in system.table_ddl:
                await conn.execute(statement)
        for name, table in catalog.tables.items():
            await conn.copy_records_to_table(
                name, records=rows[name], columns=list(table.column_names)
            )
            await conn.execute(f"GRANT SELECT, INSERT ON public.{name} TO {APP_ROLE}")
        await conn.execute(
            "CREATE TABLE public.audit_log (id bigserial PRIMARY KEY, note text NOT NULL)"
        )
        await conn.execute(f"GRANT SELECT, INSERT ON public.audit_log TO {APP_ROLE}")
        await conn.execute(f"GRANT USAGE ON SEQUENCE public.audit_log_id_seq TO {APP_ROLE}")
    finally:
        await conn.close()


async def _apply(db: CompanyDb, catalog: Catalog):
    conn = await asyncpg.connect(db.owner_url, connection_class=Connection)  # as the CLI does
    try:
        return await apply_policies(
            conn, catalog, least_intrusive_statements(catalog, role=db.agent), db.agent
        )
    finally:
        await conn.close()


OUTSIDE_STATE = """
SELECT json_build_object(
  'database_acl', (SELECT datacl::text FROM pg_database WHERE datname = current_database()),
  'schemas', (SELECT json_agg(json_build_array(nspname, nspacl::text) ORDER BY nspname)
              FROM pg_namespace),
  'extensions', (SELECT json_agg(extname ORDER BY extname) FROM pg_extension),
  'function_acls', (SELECT json_agg(json_build_array(oid::regprocedure::text, proacl::text)
                    ORDER BY oid) FROM pg_proc WHERE proacl IS NOT NULL),
  'functions', (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                WHERE nspname NOT IN ('pg_catalog', 'information_schema')),
  'public_privileges', json_build_array(
      has_database_privilege('public', current_database(), 'TEMP'),
      has_database_privilege('public', current_database(), 'CONNECT'),
      has_function_privilege('public', 'nextval(regclass)', 'EXECUTE'),
      has_function_privilege('public', 'set_config(text,text,boolean)', 'EXECUTE')),
  'audit_log', (SELECT json_build_array(relacl::text, relrowsecurity) FROM pg_class
                WHERE oid = 'public.audit_log'::regclass)
)::text
"""
"""Everything outside the catalog's tables and the agent role that db policies must not touch."""

CATALOG_STATE = """
SELECT json_build_object(
  'tables', (SELECT json_agg(json_build_array(relname, relacl::text, relrowsecurity,
             relforcerowsecurity) ORDER BY relname) FROM pg_class
             WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'),
  'policies', (SELECT json_agg(json_build_array(tablename, policyname, permissive, roles::text,
               cmd, qual) ORDER BY tablename, policyname) FROM pg_policies),
  'role', (SELECT json_agg(json_build_array(rolname, rolsuper, rolbypassrls, rolinherit))
           FROM pg_roles WHERE rolname = $1),
  'settings', (SELECT json_agg(setconfig) FROM pg_db_role_setting WHERE setrole = $1::regrole)
)::text
"""


async def _state(url: str, sql: str, *args: object) -> str:
    conn = await asyncpg.connect(url)
    try:
        return await conn.fetchval(sql, *args)
    finally:
        await conn.close()


async def test_apply_touches_only_the_catalog_and_is_idempotent(
    company_db: Callable, catalog: Catalog
) -> None:
    db = await company_db()
    outside = await _state(db.super_url, OUTSIDE_STATE)
    first = await _apply(db, catalog)
    assert any("created role" in c for c in first.changes)
    assert any("public.payment: row-level security enabled" in c for c in first.changes)
    assert await _state(db.super_url, OUTSIDE_STATE) == outside
    applied = await _state(db.super_url, CATALOG_STATE, db.agent)
    second = await _apply(db, catalog)
    assert second.changes == []
    assert await _state(db.super_url, CATALOG_STATE, db.agent) == applied
    assert await _state(db.super_url, OUTSIDE_STATE) == outside
    codes = {f.code for f in second.findings}
    assert {"PUBLIC_EXECUTES_DANGEROUS_FUNCTIONS", "PUBLIC_HAS_TEMP"} <= codes
    assert "AGENT_READS_TABLES_OUTSIDE_CATALOG" not in codes  # audit_log is not PUBLIC's


async def test_the_company_keeps_its_rows_and_the_agent_gets_its_tenant(
    company_db: Callable, catalog: Catalog
) -> None:
    db = await company_db()
    await _apply(db, catalog)
    app = await asyncpg.connect(db.url_as(APP_ROLE))
    owner = await asyncpg.connect(db.owner_url)
    agent = await asyncpg.connect(db.url_as(db.agent))
    try:
        total = await owner.fetchval("SELECT count(*) FROM payment")
        assert await app.fetchval("SELECT count(*) FROM payment") == total  # as before
        assert await app.fetchval("INSERT INTO audit_log (note) VALUES ('x') RETURNING id") > 0
        await app.execute("INSERT INTO supply_order VALUES (9, 9001, '2026-01-01', 's', 'OPEN')")
        mine = await owner.fetchval(
            "SELECT count(*) FROM payment p JOIN rental r ON r.rental_id = p.rental_id"
            " JOIN inventory i ON i.inventory_id = r.inventory_id WHERE i.store_id = 2"
        )
        result = await run_as_tenant(
            agent, "SELECT count(*) FROM payment", [], tenant="2", limits=LIMITS
        )
        assert 0 < result.rows[0][0] == mine < total
        assert await agent.fetchval("SELECT count(*) FROM payment") == 0  # no tenant set
    finally:
        for conn in (app, owner, agent):
            await conn.close()


async def test_a_table_the_role_does_not_own_fails_clearly_and_nothing_is_applied(
    company_db: Callable, catalog: Catalog
) -> None:
    db = await company_db()
    root = await asyncpg.connect(db.super_url)
    try:
        await root.execute("CREATE ROLE someone_else_owner")
        await root.execute("ALTER TABLE public.payment OWNER TO someone_else_owner")
    finally:
        await root.close()
    with pytest.raises(PolicyError) as refused:
        await _apply(db, catalog)
    assert refused.value.code == "POLICY_PRIVILEGE_MISSING"
    assert "ownership of public.payment" in refused.value.message
    conn = await asyncpg.connect(db.super_url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM pg_policy") == 0
        assert not await conn.fetchval("SELECT bool_or(relrowsecurity) FROM pg_class")
        assert not await conn.fetchval("SELECT 1 FROM pg_roles WHERE rolname = $1", db.agent)
    finally:
        await conn.close()


async def test_without_createrole_the_missing_agent_role_is_named(
    company_db: Callable, catalog: Catalog
) -> None:
    db = await company_db(owner_attributes="NOCREATEROLE")
    with pytest.raises(PolicyError) as refused:
        await _apply(db, catalog)
    assert refused.value.code == "POLICY_PRIVILEGE_MISSING"
    assert f"CREATEROLE to create role {db.agent}" in refused.value.message


async def test_a_pre_created_agent_role_needs_no_createrole(
    company_db: Callable, catalog: Catalog, settings: Settings
) -> None:
    """The managed-PostgreSQL path: a DBA created the role as the README says, once."""
    agent = "company_precreated_agent"
    root = await asyncpg.connect(with_database(admin_url(settings), "postgres"))
    try:
        await root.execute(
            f"CREATE ROLE {agent} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE"
            " NOREPLICATION NOINHERIT"
        )
        for setting in (
            "default_transaction_read_only = on",
            "statement_timeout = '30s'",
            "idle_in_transaction_session_timeout = '60s'",
        ):
            await root.execute(f"ALTER ROLE {agent} SET {setting}")
    finally:
        await root.close()
    db = await company_db(owner_attributes="NOCREATEROLE", agent=agent)
    report = await _apply(db, catalog)
    assert not any("role" in c.split(":")[0] for c in report.changes)
    assert (await _apply(db, catalog)).changes == []


def test_the_printed_sql_stays_inside_the_catalog(catalog: Catalog) -> None:
    sql = "\n".join(s.sql for s in least_intrusive_statements(catalog, role="agent"))
    for intrusion in (
        "FROM PUBLIC",
        "CREATE SCHEMA",
        "CREATE EXTENSION",
        "FUNCTION",
        "REVOKE EXECUTE",
    ):
        assert intrusion not in sql
    assert "REVOKE ALL ON DATABASE" not in sql and "ON SCHEMA" not in sql.replace(
        "GRANT USAGE ON SCHEMA", ""
    )


async def test_cli_print_then_apply_twice(company_db: Callable, data_dir: Path) -> None:
    """`orquestra db policies` as a user runs it, in its own process."""
    from tests.integration.test_cli import run

    db = await company_db()
    env = {
        "DATABASE_URL": db.owner_url,
        "ORQUESTRA_CATALOG_DIR": str(CATALOG_DIR),
        "ORQUESTRA_AGENT_ROLE": db.agent,
    }

    def cli(action: str) -> str:
        done = run("db", "policies", action, data_dir=data_dir, **env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    printed = await asyncio.to_thread(cli, "--print")
    assert "least intrusive" in printed and "-- public.payment: " in printed
    first = await asyncio.to_thread(cli, "--apply")
    assert "changed (" in first and "[PUBLIC_EXECUTES_DANGEROUS_FUNCTIONS]" in first
    assert "already in place: no change" in await asyncio.to_thread(cli, "--apply")


async def test_a_table_with_row_security_of_its_own_keeps_it(
    company_db: Callable, catalog: Catalog
) -> None:
    """The company's own policy stays the only one for its roles; FORCE is left as it was."""
    db = await company_db()
    owner = await asyncpg.connect(db.owner_url)
    try:
        await owner.execute("ALTER TABLE public.rental ENABLE ROW LEVEL SECURITY")
        await owner.execute(
            f"CREATE POLICY company_recent ON public.rental FOR SELECT TO {APP_ROLE}"
            " USING (rental_date >= '2026-04-01')"
        )
        await _apply(db, catalog)
        policies = await owner.fetch(
            "SELECT policyname, permissive FROM pg_policies WHERE tablename = 'rental'"
            " ORDER BY policyname"
        )
        assert [tuple(p) for p in policies] == [
            ("company_recent", "PERMISSIVE"),
            ("orquestra_agent_read", "PERMISSIVE"),
            ("orquestra_tenant_isolation", "RESTRICTIVE"),
        ]
        assert not await owner.fetchval(
            "SELECT relforcerowsecurity FROM pg_class WHERE oid = 'public.rental'::regclass"
        )
        recent = await owner.fetchval(
            "SELECT count(*) FROM rental WHERE rental_date >= '2026-04-01'"
        )
        assert 0 < recent < await owner.fetchval("SELECT count(*) FROM rental")
    finally:
        await owner.close()
    app = await asyncpg.connect(db.url_as(APP_ROLE))
    try:
        assert await app.fetchval("SELECT count(*) FROM rental") == recent
    finally:
        await app.close()


SWITCH_TENANT = (
    "SELECT (SELECT set_config('app.tenant_id', '1', true)), (SELECT count(*) FROM payment)"
)
"""Raw SQL (past layers 1 and 2) trying to read another store's payments as store 2."""


async def test_the_findings_say_when_the_database_does_not_hold_alone(
    company_db: Callable, catalog: Catalog
) -> None:
    db = await company_db()
    report = await _apply(db, catalog)
    switchable = [f for f in report.findings if f.code == "LAYER3_TENANT_SWITCHABLE"]
    assert switchable and "REVOKE EXECUTE ON FUNCTION pg_catalog.set_config" in (
        switchable[0].message
    )
    dangerous = next(f for f in report.findings if f.code == "PUBLIC_EXECUTES_DANGEROUS_FUNCTIONS")
    assert "current_setting" not in dangerous.message  # what the policies read the tenant with
    agent = await asyncpg.connect(db.url_as(db.agent), connection_class=Connection)
    try:
        mine = await run_as_tenant(
            agent, "SELECT count(*) FROM payment", [], tenant="2", limits=LIMITS
        )
        switched = await run_as_tenant(agent, SWITCH_TENANT, [], tenant="2", limits=LIMITS)
        assert switched.rows[0][1] != mine.rows[0][0]  # the finding is true: it leaks
    finally:
        await agent.close()
    # The operator follows the finding's advice (as a superuser, in this database only) ...
    root = await asyncpg.connect(db.super_url)
    try:
        await root.execute(
            "REVOKE EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean) FROM PUBLIC"
        )
    finally:
        await root.close()
    again = await _apply(db, catalog)
    assert "LAYER3_TENANT_SWITCHABLE" not in {f.code for f in again.findings}
    agent = await asyncpg.connect(db.url_as(db.agent), connection_class=Connection)
    try:  # ... and the database holds alone: the switch is refused, SET LOCAL still works
        assert (
            await run_as_tenant(
                agent, "SELECT count(*) FROM payment", [], tenant="2", limits=LIMITS
            )
        ).rows
        with pytest.raises(QueryError) as refused:
            await run_as_tenant(agent, SWITCH_TENANT, [], tenant="2", limits=LIMITS)
        assert refused.value.code == "PERMISSION_DENIED"
    finally:
        await agent.close()


async def test_an_agent_that_cannot_read_the_tenant_stops_everything(
    company_db: Callable, catalog: Catalog
) -> None:
    db = await company_db()
    root = await asyncpg.connect(db.super_url)
    try:  # as a DBA might after reading a hardening guide
        await root.execute(
            "REVOKE EXECUTE ON FUNCTION pg_catalog.current_setting(text, boolean) FROM PUBLIC"
        )
    finally:
        await root.close()
    with pytest.raises(PolicyError) as refused:
        await _apply(db, catalog)
    assert refused.value.code == "POLICY_TENANT_UNREADABLE"
    assert f"TO {db.agent}" in refused.value.message and "Nothing was changed" in (
        refused.value.message
    )
    conn = await asyncpg.connect(db.super_url)
    try:
        assert await conn.fetchval("SELECT count(*) FROM pg_policy") == 0
        assert not await conn.fetchval("SELECT bool_or(relrowsecurity) FROM pg_class")
    finally:
        await conn.close()


async def test_the_owner_keeps_copy_and_dump(company_db: Callable, catalog: Catalog) -> None:
    """Row-level security is not forced on a company's tables: the agent is never the owner,
    and forcing would cost the owner COPY FROM and `pg_dump` (row_security = off)."""
    db = await company_db()
    await _apply(db, catalog)
    owner = await asyncpg.connect(db.owner_url)
    try:
        assert not await owner.fetchval(
            "SELECT bool_or(relforcerowsecurity) FROM pg_class WHERE relnamespace ="
            " 'public'::regnamespace"
        )
        await owner.copy_records_to_table(
            "audit_log", records=[(900001, "copied")], columns=["id", "note"]
        )
        await owner.copy_records_to_table(
            "supply_order",
            records=[(9, 9002, __import__("datetime").date(2026, 1, 2), "s", "OPEN")],
        )
        async with owner.transaction():
            await owner.execute("SET LOCAL row_security = off")  # what pg_dump does
            assert await owner.fetchval("SELECT count(*) FROM payment") > 0
    finally:
        await owner.close()


async def test_a_view_in_the_catalog_is_reported_and_the_tables_still_secured(
    company_db: Callable, catalog: Catalog
) -> None:
    db = await company_db()
    owner = await asyncpg.connect(db.owner_url)
    try:  # the catalog names rental_note; this company has it as a view
        await owner.execute("ALTER TABLE rental_note RENAME TO rental_note_data")
        await owner.execute("CREATE VIEW rental_note AS SELECT * FROM rental_note_data")
    finally:
        await owner.close()
    report = await _apply(db, catalog)
    view = [f for f in report.findings if f.code == "RELATION_WITHOUT_ROW_SECURITY"]
    assert view and '"public"."rental_note"' in view[0].message
    assert any("public.payment: row-level security enabled" in c for c in report.changes)
    assert (await _apply(db, catalog)).changes == []


def test_a_database_declared_orquestras_own_gets_the_owned_hardening(catalog: Catalog) -> None:
    from orquestra.server.db_policies import statements_for

    company = Settings(database_url="postgresql://u@h/d")
    dedicated = Settings(database_url="postgresql://u@h/d", database_owned=True)
    assert "REVOKE ALL ON DATABASE" not in " ".join(
        s.sql for s in statements_for(catalog, company, "d")
    )
    assert "REVOKE ALL ON DATABASE" in " ".join(
        s.sql for s in statements_for(catalog, dedicated, "d")
    )


async def test_apply_refuses_a_database_other_than_its_own(demo_db, data_dir: Path) -> None:
    from tests.integration.test_cli import run

    done = await asyncio.to_thread(
        run, "db", "policies", "--apply", "--database", "someone_elses", data_dir=data_dir
    )
    assert done.returncode != 0 and "POLICY_DATABASE_MISMATCH" in done.stderr
    assert "Traceback" not in done.stderr


INDEX_FINDING = "[INDEX_NOT_STARTING_WITH_TENANT]"
LOOKUP = "SELECT film_id FROM inventory WHERE inventory_id = 7"
"""A key lookup the agent could time for another store's copies."""


def _index_findings(printed: str) -> list[tuple[str, str]]:
    """(finding, statement) pairs of `--print`'s index section, comment markers taken off."""
    lines = [line.removeprefix("-- ") for line in printed.splitlines()]
    return [(line, lines[n + 1]) for n, line in enumerate(lines) if line.startswith(INDEX_FINDING)]


async def _guarded_plan(db: CompanyDb, catalog: Catalog) -> str:
    """The plan of LOOKUP as the agent runs it: guarded for store 2, under row-level security,
    index scans only (the sample is too small for the planner to want one otherwise)."""
    from orquestra.guards import GuardPolicy, guard_sql

    guarded = guard_sql(LOOKUP, GuardPolicy.from_catalog(catalog), "2", 0)
    index_scans_only = {"enable_seqscan": "off", "enable_bitmapscan": "off"}
    agent = await asyncpg.connect(
        db.url_as(db.agent), connection_class=Connection, server_settings=index_scans_only
    )
    try:
        plan = await run_as_tenant(
            agent, f"EXPLAIN {guarded.sql}", guarded.params, tenant="2", limits=LIMITS
        )
    finally:
        await agent.close()
    return "\n".join(row[0] for row in plan.rows)


async def test_indexes_not_starting_with_the_tenant_column_are_reported_with_their_fix(
    company_db: Callable, catalog: Catalog, data_dir: Path
) -> None:
    """inventory's primary key (inventory_id) is reported with the index that fixes it; an
    index that starts with store_id, and supply_order's key (store_id, order_no), are not.
    The owner runs the printed statement, the finding goes, and the agent's lookup then finds
    its rows through the new index, never reaching another store's."""
    from tests.integration.test_cli import run

    db = await company_db()
    await _apply(db, catalog)
    owner = await asyncpg.connect(db.owner_url)
    try:
        await owner.execute(
            "CREATE INDEX inventory_store_film_idx ON inventory (store_id, film_id)"
        )
        await owner.execute(
            "CREATE INDEX customer_email_idx ON customer (lower(email)) WHERE active"
        )
    finally:
        await owner.close()
    env = {
        "DATABASE_URL": db.owner_url,
        "ORQUESTRA_CATALOG_DIR": str(CATALOG_DIR),
        "ORQUESTRA_AGENT_ROLE": db.agent,
    }

    def printed() -> str:
        done = run("db", "policies", "--print", data_dir=data_dir, **env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    before = dict(_index_findings(await asyncio.to_thread(printed)))
    pkey = next(f for f in before if "public.inventory: primary key inventory_pkey" in f)
    assert "(inventory_id) does not start with the tenant column store_id" in pkey
    assert "the primary key stays" in pkey
    fix = before[pkey]
    assert fix == "CREATE INDEX CONCURRENTLY ON public.inventory (store_id, inventory_id);"
    email = next(f for f in before if "customer_email_idx" in f)
    assert before[email] == (
        "CREATE INDEX CONCURRENTLY ON public.customer (store_id, (lower(email))) WHERE active;"
    )
    assert not any("inventory_store_film_idx" in f or "supply_order" in f for f in before)
    assert "inventory_pkey" in await _guarded_plan(db, catalog)

    owner = await asyncpg.connect(db.owner_url)
    try:  # the owner follows the finding, outside a transaction as CONCURRENTLY needs
        await owner.execute(fix)
        await owner.execute("ANALYZE inventory")
    finally:
        await owner.close()
    after = dict(_index_findings(await asyncio.to_thread(printed)))
    assert not any("inventory_pkey" in f for f in after)
    assert set(after) == set(before) - {pkey}
    assert "inventory_store_id_inventory_id_idx" in await _guarded_plan(db, catalog)
    report = await _apply(db, catalog)  # --apply reports the same, and builds none
    reported = {f.statement for f in report.findings if f.code == INDEX_FINDING[1:-1]}
    assert reported == set(after.values())


async def test_print_for_another_database_does_not_check_the_indexes(data_dir: Path) -> None:
    from tests.integration.test_cli import run

    done = await asyncio.to_thread(
        run,
        "db",
        "policies",
        "--print",
        "--database",
        "elsewhere",
        data_dir=data_dir,
        DATABASE_URL="postgresql://nobody@127.0.0.1:1/nothing",
        ORQUESTRA_CATALOG_DIR=str(CATALOG_DIR),
    )
    assert done.returncode == 0, done.stderr
    assert "-- Indexes of the tenant tables: not checked (--database elsewhere" in done.stdout


async def test_the_shipped_deployments_pass_their_own_index_check(deployment) -> None:
    """The samples are what a company copies: every index of a tenant table starts with its
    tenant column (a primary key that does not has one that does beside it)."""
    from orquestra.server.db_policies import index_findings

    catalog = await asyncio.to_thread(load_catalog, deployment.settings.catalog_folder)
    conn = await asyncpg.connect(admin_url(deployment.settings))
    try:
        found = await index_findings(conn, catalog)
    finally:
        await conn.close()
    assert not found, [finding.message for finding in found]
