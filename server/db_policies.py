"""`orquestra db policies --apply`: layer 3 put in place, in one transaction, with findings.

Which statements apply when (guards/rls_setup.py):
- a database Orquestra owns entirely — the embedded one (no `DATABASE_URL`), which
  `orquestra db init` fills with the demo — gets the owned-database hardening;
- a company's database (`DATABASE_URL`) gets the least-intrusive statements: the catalog's
  tables and the agent role only. What they cannot enforce without touching more of the
  company's database is reported as findings, each with a stable code.

Tenant tables' indexes that do not start with the tenant column are findings in either kind
of database, each with the `CREATE INDEX` that fixes it; neither `--apply` nor the printed
SQL builds them (guards/tenant_indexes.py says why).

All statements run in one transaction: a missing privilege stops everything with
`POLICY_PRIVILEGE_MISSING` naming what is needed, and nothing is half-applied.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

import asyncpg

from orquestra.core.errors import OrquestraError
from orquestra.core.settings import Settings
from orquestra.ddl_catalog import Catalog
from orquestra.guards.rls_setup import (
    DANGEROUS_FUNCTIONS,
    NOTICE_PREFIX,
    Statement,
    least_intrusive_statements,
    owned_database_statements,
)
from orquestra.guards.tenant_indexes import tenant_index_gaps

LAYER_1 = "guards/allowlist.py FUNCTIONS, checked by guards/validate.py _check_function"


class PolicyError(OrquestraError):
    """Layer 3 could not be applied; nothing was changed."""


@dataclass(frozen=True)
class Finding:
    """Something layer 3 leaves open in this database, and what covers it."""

    code: str
    message: str
    statement: str | None = None
    """The SQL that fixes it, for the owner to run, when there is one."""


@dataclass
class PolicyReport:
    changes: list[str] = field(default_factory=list)
    """What this run changed (empty when everything was already in place)."""
    findings: list[Finding] = field(default_factory=list)


LOCK_TIMEOUT = "5s"
DEADLOCK_ATTEMPTS = 3
"""Runs of the whole transaction when PostgreSQL breaks a deadlock with another (an apply
by another process on the same role, which every database shares): each run is all or
nothing."""
"""How long a statement waits for a table the company is using before everything stops."""
TENANT_READER = "pg_catalog.current_setting(text, boolean)"
"""What the least-intrusive policies read the tenant with (SET LOCAL writes it)."""


def owned(settings: Settings) -> bool:
    """Orquestra owns the database: the embedded one, or a `DATABASE_URL` declared its own."""
    return settings.database_url is None or settings.database_owned


def statements_for(catalog: Catalog, settings: Settings, database: str) -> list[Statement]:
    """The owned-database hardening for a database Orquestra owns, else the least intrusive."""
    if owned(settings):
        return owned_database_statements(catalog, role=settings.agent_role, database=database)
    return least_intrusive_statements(catalog, role=settings.agent_role)


async def apply_policies(
    conn: asyncpg.Connection,
    catalog: Catalog,
    statements: list[Statement],
    role: str,
    *,
    owned: bool = False,
) -> PolicyReport:
    """Run `statements` in one transaction; report what changed and the findings. `owned`:
    the statements are the owned-database ones (the tenant is read through a definer)."""
    await _require_tables(conn, catalog)
    notices: list[str] = []

    def listen(_: object, message: asyncpg.PostgresLogMessage) -> None:
        notices.append(message.message)

    conn.add_log_listener(listen)
    try:
        for attempt in range(1, DEADLOCK_ATTEMPTS + 1):
            notices.clear()
            try:
                async with conn.transaction():
                    await conn.execute(f"SET LOCAL lock_timeout = '{LOCK_TIMEOUT}'")
                    for statement in statements:
                        await _run(conn, statement)
                    if not owned and catalog.tenant_tables():
                        await _require_tenant_readable(conn, role)
                break
            except _Deadlock as deadlock:
                # PostgreSQL rolled the whole transaction back: nothing was changed, and the
                # other transaction (another apply, the server's own autovacuum) has gone on.
                if attempt == DEADLOCK_ATTEMPTS:
                    raise deadlock.error from None
        await asyncio.sleep(0)  # notices are delivered through the event loop
    finally:
        conn.remove_log_listener(listen)
    changes = [n.removeprefix(NOTICE_PREFIX) for n in notices if n.startswith(NOTICE_PREFIX)]
    return PolicyReport(changes, await findings(conn, catalog, role, owned=owned))


async def _run(conn: asyncpg.Connection, statement: Statement) -> None:
    try:
        await conn.execute(statement.sql)
    except asyncpg.InsufficientPrivilegeError as exc:
        raise PolicyError(
            "POLICY_PRIVILEGE_MISSING",
            f"need {statement.needs} (PostgreSQL said: {exc}); nothing was changed",
        ) from None
    except asyncpg.LockNotAvailableError:
        raise PolicyError(
            "POLICY_LOCK_TIMEOUT",
            f"{statement.comment}: the table is in use and its lock was not granted within"
            f" {LOCK_TIMEOUT}; nothing was changed. Try again when it is quieter.",
        ) from None
    except asyncpg.PostgresError as exc:
        failed = PolicyError(
            "POLICY_FAILED",
            f"{statement.comment}: PostgreSQL said: {exc}; nothing was changed",
        )
        if isinstance(exc, asyncpg.DeadlockDetectedError):
            raise _Deadlock(failed) from None
        raise failed from None


class _Deadlock(Exception):
    """PostgreSQL broke a deadlock by rolling this transaction back: run it again."""

    def __init__(self, error: PolicyError) -> None:
        super().__init__(str(error))
        self.error = error


async def _require_tenant_readable(conn: asyncpg.Connection, role: str) -> None:
    """The policies read the tenant with `current_setting`: an agent that may not execute it
    would have every query refused. Checked before committing, so nothing is half-applied."""
    if not await conn.fetchval(
        "SELECT has_function_privilege($1, $2, 'EXECUTE')", role, TENANT_READER
    ):
        raise PolicyError(
            "POLICY_TENANT_UNREADABLE",
            f"{role} may not execute {TENANT_READER}, which the row-level security policies"
            f" read the tenant with (EXECUTE was revoked from PUBLIC). Grant it: GRANT EXECUTE"
            f" ON FUNCTION {TENANT_READER} TO {role}; or, if this database is Orquestra's"
            " alone, set ORQUESTRA_DATABASE_OWNED=true for the owned-database policies."
            " Nothing was changed.",
        )


async def _require_tables(conn: asyncpg.Connection, catalog: Catalog) -> None:
    names = [f'"{t.db_schema}"."{t.name}"' for t in catalog.tables.values()]
    missing = await conn.fetch(
        "SELECT n FROM unnest($1::text[]) n WHERE to_regclass(n) IS NULL ORDER BY n", names
    )
    if missing:
        raise PolicyError(
            "POLICY_TABLE_MISSING",
            "the catalog's tables are not all in this database: "
            + ", ".join(r["n"] for r in missing)
            + " (run `orquestra catalog check`)",
        )


async def findings(
    conn: asyncpg.Connection, catalog: Catalog, role: str, *, owned: bool = False
) -> list[Finding]:
    """What the agent role (or PUBLIC, before it exists) can still do that layer 3 allows."""
    exists = await conn.fetchval("SELECT 1 FROM pg_roles WHERE rolname = $1", role)
    who = role if exists else "public"
    found = [
        # Without tenants there is no tenant to switch: nothing for layers 2 and 3 to filter.
        None if owned or not catalog.tenant_tables() else await _tenant_switchable(conn, who),
        await _relations_without_row_security(conn, catalog),
        await _dangerous_functions(conn, who),
        await _temp(conn, who),
        await _create_in_schemas(conn, catalog, who),
        await _writable_tables(conn, catalog, who),
        await _tables_outside_catalog(conn, catalog, who),
    ]
    return [f for f in found if f is not None] + await index_findings(conn, catalog)


INDEX_FINDING = "INDEX_NOT_STARTING_WITH_TENANT"


async def index_findings(conn: asyncpg.Connection, catalog: Catalog) -> list[Finding]:
    """A tenant table's index that does not start with the tenant column lets SQL time
    lookups of other tenants' keys; reported with the index that fixes it, never built."""
    return [
        Finding(INDEX_FINDING, gap.describe(), f"{gap.fix};")
        for gap in await tenant_index_gaps(conn, catalog)
    ]


async def _tenant_switchable(conn: asyncpg.Connection, who: str) -> Finding | None:
    """Layer 3 alone: SQL that bypassed layers 1 and 2 could set its own tenant."""
    if not await conn.fetchval(
        "SELECT has_function_privilege($1, 'pg_catalog.set_config(text, text, boolean)',"
        " 'EXECUTE')",
        who,
    ):
        return None
    return Finding(
        "LAYER3_TENANT_SWITCHABLE",
        f"The database layer does not hold alone here: {who} may execute set_config (PUBLIC"
        " holds EXECUTE on it), so SQL that got past layers 1 and 2 could switch its own"
        " tenant. Layer 1 refuses set_config. To make this database hold by itself, revoke it"
        " from PUBLIC — REVOKE EXECUTE ON FUNCTION pg_catalog.set_config(text, text, boolean)"
        " FROM PUBLIC; — Orquestra sets the tenant with SET LOCAL, which does not need it."
        " If this database is Orquestra's alone, ORQUESTRA_DATABASE_OWNED=true applies the"
        " owned-database hardening instead.",
    )


async def _relations_without_row_security(
    conn: asyncpg.Connection, catalog: Catalog
) -> Finding | None:
    rows = await conn.fetch(
        "SELECT n FROM unnest($1::text[]) n JOIN pg_class c ON c.oid = to_regclass(n)"
        " WHERE c.relkind NOT IN ('r', 'p') ORDER BY n",
        [f'"{t.db_schema}"."{t.name}"' for t in catalog.tables.values() if t.tenancy != "shared"],
    )
    if not rows:
        return None
    return Finding(
        "RELATION_WITHOUT_ROW_SECURITY",
        f"{', '.join(r['n'] for r in rows)}: views or foreign tables, on which row-level"
        " security cannot hold; layer 2's rewrite is their tenant filter. Point the catalog at"
        " the tables beneath them where you can.",
    )


async def _dangerous_functions(conn: asyncpg.Connection, who: str) -> Finding | None:
    # set_config has its own finding; current_setting is what the policies read the tenant with.
    names = await conn.fetchval(
        "SELECT array_agg(DISTINCT proname ORDER BY proname) FROM pg_proc"
        " WHERE (proname = ANY($1::text[]) OR proname LIKE 'lo\\_%')"
        " AND has_function_privilege($2, oid, 'EXECUTE')",
        [f for f in DANGEROUS_FUNCTIONS if f not in ("set_config", "current_setting")],
        who,
    )
    if not names:
        return None
    defaults = await conn.fetchval(
        "SELECT count(*) FROM pg_attrdef WHERE pg_get_expr(adbin, adrelid) LIKE 'nextval(%'"
    )
    return Finding(
        "PUBLIC_EXECUTES_DANGEROUS_FUNCTIONS",
        f"{who} may execute {len(names)} risky functions PUBLIC holds ({', '.join(names[:8])}"
        f"{', …' if len(names) > 8 else ''}); revoking them from PUBLIC would be database-wide"
        f" ({defaults} column defaults here call nextval). Layer 1 rejects every function"
        f" not allowlisted ({LAYER_1}), so only raw SQL could reach them; revoke EXECUTE on"
        " them FROM PUBLIC yourself if nothing of yours needs it.",
    )


async def _temp(conn: asyncpg.Connection, who: str) -> Finding | None:
    if not await conn.fetchval(
        "SELECT has_database_privilege($1, current_database(), 'TEMP')", who
    ):
        return None
    return Finding(
        "PUBLIC_HAS_TEMP",
        f"{who} may create temporary tables (TEMP is granted to PUBLIC on this database). The"
        " agent's transactions are read-only (role setting and executor), which refuses"
        " CREATE, and layer 1 accepts a single SELECT only.",
    )


async def _create_in_schemas(
    conn: asyncpg.Connection, catalog: Catalog, who: str
) -> Finding | None:
    schemas = sorted({t.db_schema for t in catalog.tables.values()} | {"public"})
    rows = await conn.fetch(
        "SELECT s FROM unnest($1::text[]) s WHERE EXISTS (SELECT FROM pg_namespace"
        " WHERE nspname = s) AND has_schema_privilege($2, s, 'CREATE') ORDER BY s",
        schemas,
        who,
    )
    if not rows:
        return None
    names = ", ".join(r["s"] for r in rows)
    return Finding(
        "PUBLIC_CAN_CREATE_IN_SCHEMA",
        f"{who} may CREATE in schema {names} (granted to PUBLIC). Read-only transactions"
        " refuse it, and layer 1 accepts a single SELECT only.",
    )


async def _writable_tables(conn: asyncpg.Connection, catalog: Catalog, who: str) -> Finding | None:
    rows = await conn.fetch(
        "SELECT n FROM unnest($1::text[]) n"
        " WHERE has_table_privilege($2, n, 'INSERT, UPDATE, DELETE, TRUNCATE') ORDER BY n",
        [f'"{t.db_schema}"."{t.name}"' for t in catalog.tables.values()],
        who,
    )
    if not rows:
        return None
    return Finding(
        "AGENT_CAN_WRITE_TABLES",
        f"{who} may write {', '.join(r['n'] for r in rows)} through privileges PUBLIC holds."
        " Its transactions are read-only and layer 1 accepts SELECT only; revoke them from"
        " PUBLIC if no role of yours relies on them.",
    )


async def _tables_outside_catalog(
    conn: asyncpg.Connection, catalog: Catalog, who: str
) -> Finding | None:
    rows = await conn.fetch(
        "SELECT format('%I.%I', n.nspname, c.relname) AS name, n.nspname AS s, c.relname AS t"
        " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND n.nspname <> 'information_schema'"
        " AND n.nspname NOT LIKE 'pg\\_%' AND has_table_privilege($1, c.oid, 'SELECT')"
        " ORDER BY 1",
        who,
    )
    ours = {(t.db_schema, t.name) for t in catalog.tables.values()}
    outside = [r["name"] for r in rows if (r["s"], r["t"]) not in ours]
    if not outside:
        return None
    return Finding(
        "AGENT_READS_TABLES_OUTSIDE_CATALOG",
        f"{who} may read {len(outside)} tables outside the catalog ({', '.join(outside[:8])}"
        f"{', …' if len(outside) > 8 else ''}) through privileges PUBLIC holds. Layer 2"
        " rejects every table the catalog does not list (GUARD_TABLE_NOT_ALLOWED).",
    )
