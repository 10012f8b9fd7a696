"""Layer 3: the database holds the line by itself, whatever SQL reaches it.

Two sets of statements, for two kinds of database:

- `least_intrusive_statements()` — a company's own database (`orquestra db policies`). It
  touches only the catalog's tables and the agent role: a least-privilege login role with
  SELECT on the catalog's tables, row-level security enabled and forced on every tenant table
  (tenant column, or through its parents), and a policy that leaves every other role reading
  exactly what it read before. Nothing database-wide, nothing revoked from PUBLIC, no schema,
  no function, no extension. What it cannot enforce without that is reported as findings
  (`server/db_policies.py`).
- `owned_database_statements()` (`policy_statements()`) — a database Orquestra owns entirely
  (the embedded demo, `orquestra db init`): the same, plus hardening of the whole database
  (CONNECT and TEMP taken from PUBLIC, no CREATE on the schemas, EXECUTE revoked from PUBLIC
  on the functions an attacker would reach for, the tenant read through a definer function).

Every statement is idempotent and acts only when the state differs; when it acts it raises a
NOTICE starting with `orquestra:` that `--apply` prints as "what changed".
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass

from ddl_catalog import Catalog
from ddl_catalog.model import Table

POLICY_NAME = "orquestra_tenant_isolation"
"""Restrictive: the agent reads a tenant table's rows of its tenant only."""
AGENT_READ_POLICY = "orquestra_agent_read"
"""Permissive for the agent (row-level security needs one); the restrictive one filters."""
OTHERS_POLICY = "orquestra_others_unchanged"
"""On a company's table that had no row-level security: every role reads and writes as before."""
INTERNAL_SCHEMA = "orquestra_internal"
TENANT_SETTING = "app.tenant_id"
NOTICE_PREFIX = "orquestra: "
ROLE_SETTINGS = (
    ("default_transaction_read_only", "on"),
    ("statement_timeout", "30s"),
    ("idle_in_transaction_session_timeout", "60s"),
)
ROLE_ATTRIBUTES = "LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOREPLICATION NOINHERIT"

DANGEROUS_FUNCTIONS = tuple(
    """set_config current_setting query_to_xml query_to_xml_and_xmlschema query_to_xmlschema
    cursor_to_xml cursor_to_xmlschema table_to_xml table_to_xml_and_xmlschema table_to_xmlschema
    schema_to_xml schema_to_xml_and_xmlschema schema_to_xmlschema database_to_xml
    database_to_xml_and_xmlschema database_to_xmlschema ts_stat pg_sleep pg_sleep_for
    pg_sleep_until pg_read_file pg_read_binary_file pg_ls_dir pg_stat_file nextval setval currval
    lastval pg_advisory_lock pg_advisory_lock_shared pg_try_advisory_lock pg_terminate_backend
    pg_cancel_backend dblink dblink_exec dblink_connect dblink_send_query""".split()  # noqa: SIM905 (a word list reads better)
)
"""Revoked from PUBLIC (all overloads, `lo_*` too) only in a database Orquestra owns; in a
company's database they are reported, and layer 1 rejects them (guards/allowlist.py)."""


@dataclass(frozen=True)
class Statement:
    """One reviewable step: its SQL, what it does, and the privilege it needs."""

    sql: str
    comment: str
    needs: str
    """Said when PostgreSQL refuses it for lack of privilege (`POLICY_PRIVILEGE_MISSING`)."""


def least_intrusive_statements(catalog: Catalog, *, role: str) -> list[Statement]:
    """A company's database: the agent role and the catalog's tables, nothing else."""
    tenant = f"current_setting({_literal(TENANT_SETTING)}, true)"
    return [
        *_role_statements(role),
        *_schema_statements(catalog, role),
        *_table_statements(catalog, role, tenant, owned=False),
    ]


def owned_database_statements(catalog: Catalog, *, role: str, database: str) -> list[Statement]:
    """A database Orquestra owns entirely (the demo): least privilege, then hardening."""
    tenant = f"{INTERNAL_SCHEMA}.current_tenant()"
    return [
        *_role_statements(role),
        *_owned_hardening(catalog, role, database),
        *_schema_statements(catalog, role),
        *_table_statements(catalog, role, tenant, owned=True),
        Statement(_revoke_functions_sql(), "EXECUTE revoked from PUBLIC", "superuser"),
    ]


def policy_statements(catalog: Catalog, *, role: str, database: str) -> list[str]:
    """The SQL of `owned_database_statements`, in order (what `db init` applies)."""
    return [s.sql for s in owned_database_statements(catalog, role=role, database=database)]


def render(statements: list[Statement]) -> str:
    """Reviewable SQL: each statement under a comment saying what it does."""
    return "\n".join(f"-- {s.comment}\n{s.sql};\n" for s in statements)


def tenant_predicate(catalog: Catalog, table: Table, tenant: str) -> str:
    """The row-level security condition of a tenant table, the parent chain spelled out.

    A `tenant_via` table's row is visible when a row of each ancestor matches on all the
    declared columns, up to the root whose tenant column equals the tenant; a NULL key
    matches nothing, so an orphan row belongs to nobody. The parents' own policies are not
    relied on, e.g. payment → rental → inventory:
    `EXISTS (SELECT 1 FROM public.rental AS orq_p1, public.inventory AS orq_p2 WHERE
    orq_p1.rental_id = payment.rental_id AND orq_p2.inventory_id = orq_p1.inventory_id AND
    orq_p2.store_id = NULLIF(current_setting('app.tenant_id', true), '')::integer)`.
    """
    chain = catalog.tenant_chain(table.name)
    root = chain[-1]
    column = root.column(root.tenant_column or "")
    value = f"NULLIF({tenant}, '')::{column.type_sql}"
    if len(chain) == 1:
        return f"{_ident(column.name)} = {value}"
    sources, conditions, previous = [], [], _ident(table.name)
    for depth, (child, parent) in enumerate(itertools.pairwise(chain), start=1):
        alias = f"orq_p{depth}"
        sources.append(f"{_qualified(parent)} AS {alias}")
        via = child.tenant_via
        assert via is not None  # every table but the root of a chain is tenant_via
        conditions += [
            f"{alias}.{_ident(p)} = {previous}.{_ident(c)}" for c, p in via.columns.items()
        ]
        previous = alias
    conditions.append(f"{previous}.{_ident(column.name)} = {value}")
    return f"EXISTS (SELECT 1 FROM {', '.join(sources)} WHERE {' AND '.join(conditions)})"


def _role_statements(role: str) -> list[Statement]:
    name, q = _literal(role), _ident(role)
    unsafe = (
        "NOT (rolcanlogin AND NOT rolsuper AND NOT rolbypassrls AND NOT rolcreatedb"
        " AND NOT rolcreaterole AND NOT rolreplication AND NOT rolinherit)"
    )
    admin = f"CREATEROLE with ADMIN OPTION on {role} (or superuser) to run: ALTER ROLE {q}"
    statements = [
        _step(
            f"NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {name})",
            f"CREATE ROLE {q} {ROLE_ATTRIBUTES}",
            f"created role {role}",
            f"the agent's login role {role}, created if missing",
            f"CREATEROLE to create role {role} (or have it created: CREATE ROLE {q} "
            f"{ROLE_ATTRIBUTES})",
        ),
        _step(
            f"EXISTS (SELECT FROM pg_roles WHERE rolname = {name} AND {unsafe})",
            f"ALTER ROLE {q} {ROLE_ATTRIBUTES}",
            f"role {role} made least-privilege ({ROLE_ATTRIBUTES})",
            f"{role} may not bypass row-level security, create anything or inherit roles",
            f"{admin} {ROLE_ATTRIBUTES}",
        ),
    ]
    for setting, value in ROLE_SETTINGS:
        assignment = f"SET {setting} = {_literal(value)}"
        statements.append(
            _step(
                f"NOT EXISTS (SELECT FROM pg_db_role_setting WHERE setrole = {name}::regrole"
                f" AND setdatabase = 0 AND {_literal(f'{setting}={value}')} = ANY (setconfig))",
                f"ALTER ROLE {q} {assignment}",
                f"role {role}: {setting} = {value}",
                f"{role}: {setting} = {value} in every session",
                f"{admin} {assignment}",
            )
        )
    return statements


def _owned_hardening(catalog: Catalog, role: str, database: str) -> list[Statement]:
    """Database-wide hardening, only for a database Orquestra owns entirely."""
    q, db = _ident(role), _ident(database)
    sql = [
        # TEMP and CONNECT are granted to PUBLIC by default; take them back, give CONNECT only.
        f"REVOKE ALL ON DATABASE {db} FROM PUBLIC",
        f"GRANT CONNECT ON DATABASE {db} TO {q}",
        f"CREATE SCHEMA IF NOT EXISTS {INTERNAL_SCHEMA}",
        f"REVOKE ALL ON SCHEMA {INTERNAL_SCHEMA} FROM PUBLIC",
        # The policies read the tenant through a definer function, because current_setting
        # itself is revoked from PUBLIC below.
        f"CREATE OR REPLACE FUNCTION {INTERNAL_SCHEMA}.current_tenant() RETURNS text "
        "LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog "
        f"AS $$ SELECT current_setting({_literal(TENANT_SETTING)}, true) $$",
        f"REVOKE ALL ON FUNCTION {INTERNAL_SCHEMA}.current_tenant() FROM PUBLIC",
        f"GRANT USAGE ON SCHEMA {INTERNAL_SCHEMA} TO {q}",
        f"GRANT EXECUTE ON FUNCTION {INTERNAL_SCHEMA}.current_tenant() TO {q}",
    ]
    sql += [f"REVOKE CREATE ON SCHEMA {_ident(s)} FROM PUBLIC" for s in _schemas(catalog)]
    sql += [f"REVOKE ALL ON {_qualified(t)} FROM PUBLIC" for t in catalog.tables.values()]
    return [Statement(s, "hardening of a database Orquestra owns", "ownership") for s in sql]


def _schema_statements(catalog: Catalog, role: str) -> list[Statement]:
    name, q = _literal(role), _ident(role)
    statements = [
        _step(
            f"NOT has_database_privilege({name}, current_database(), 'CONNECT')",
            f"EXECUTE format('GRANT CONNECT ON DATABASE %I TO {q}', current_database())",
            f"granted CONNECT on this database to {role}",
            f"{role} may connect (PUBLIC usually may already)",
            f"CONNECT WITH GRANT OPTION on the database to grant it to {role}",
        )
    ]
    for schema in _schemas(catalog):
        statements.append(
            _step(
                f"NOT has_schema_privilege({name}, {_literal(schema)}, 'USAGE')",
                f"GRANT USAGE ON SCHEMA {_ident(schema)} TO {q}",
                f"granted USAGE on schema {schema} to {role}",
                f"{role} may look up the catalog's tables in schema {schema}",
                f"ownership of schema {schema} (or USAGE WITH GRANT OPTION) to grant USAGE",
            )
        )
    return statements


def _table_statements(catalog: Catalog, role: str, tenant: str, *, owned: bool) -> list[Statement]:
    statements: list[Statement] = []
    for table in catalog.tables.values():
        statements += _grants(table, role)
        if table.tenancy != "shared":
            statements += _row_security(catalog, table, role, tenant, owned=owned)
    return statements


def _grants(table: Table, role: str) -> list[Statement]:
    name, q, shown = _qualified(table), _ident(role), f"{table.db_schema}.{table.name}"
    granted = (
        f"SELECT FROM pg_class c, aclexplode(c.relacl) a WHERE c.oid = {_regclass(table)}"
        f" AND a.grantee = {_literal(role)}::regrole"
    )
    needs = f"ownership of {shown} to grant on it"
    return [
        _step(
            f"NOT EXISTS ({granted} AND a.privilege_type = 'SELECT')",
            f"GRANT SELECT ON {name} TO {q}",
            f"granted SELECT on {shown} to {role}",
            f"{role} reads {shown}",
            needs,
        ),
        _step(
            f"EXISTS ({granted} AND a.privilege_type <> 'SELECT')",
            f"REVOKE ALL ON {name} FROM {q}; GRANT SELECT ON {name} TO {q}",
            f"took every privilege but SELECT on {shown} from {role}",
            f"{role} may only read {shown}",
            needs,
        ),
    ]


def _row_security(
    catalog: Catalog, table: Table, role: str, tenant: str, *, owned: bool
) -> list[Statement]:
    name, q, regclass = _qualified(table), _ident(role), _regclass(table)
    shown = f"{table.db_schema}.{table.name}"
    needs = f"ownership of {shown} to enable row-level security and create its policies"
    flags = f"SELECT FROM pg_class WHERE oid = {regclass}"
    ours = _has_policy(regclass, OTHERS_POLICY)
    statements = []
    if not owned:
        # Row-level security on would hide every row from the company's other (non-owner)
        # roles; this permissive policy keeps their reads and writes as they were.
        statements.append(
            _step(
                f"EXISTS ({flags} AND NOT relrowsecurity) AND NOT {ours}",
                f"CREATE POLICY {OTHERS_POLICY} ON {name} AS PERMISSIVE FOR ALL TO PUBLIC"
                " USING (true) WITH CHECK (true)",
                f"{shown}: other roles keep reading and writing as before",
                f"{shown} had no row-level security: every other role keeps what it had",
                needs,
            )
        )
    # On a company's table whose row-level security was already theirs, forcing it would
    # change what the owner reads; the agent is never the owner, so force only where we enable.
    forced_by_us = "" if owned else f" AND {ours}"
    tenant_policy = (
        f"CREATE POLICY {POLICY_NAME} ON {name} AS RESTRICTIVE FOR SELECT TO {q}"
        f" USING ({tenant_predicate(catalog, table, tenant)})"
    )
    signature = _literal("orquestra " + hashlib.sha1(tenant_policy.encode()).hexdigest()[:16])
    return [
        *statements,
        _step(
            f"EXISTS ({flags} AND NOT relrowsecurity)",
            f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY",
            f"{shown}: row-level security enabled",
            f"{shown}: row-level security on",
            needs,
        ),
        _step(
            f"EXISTS ({flags} AND NOT relforcerowsecurity){forced_by_us}",
            f"ALTER TABLE {name} FORCE ROW LEVEL SECURITY",
            f"{shown}: row-level security forced (the owner too)",
            f"{shown}: row-level security forced",
            needs,
        ),
        _step(
            f"NOT {_has_policy(regclass, AGENT_READ_POLICY)}",
            f"CREATE POLICY {AGENT_READ_POLICY} ON {name} AS PERMISSIVE FOR SELECT TO {q}"
            " USING (true)",
            f"{shown}: {role} may read, filtered by {POLICY_NAME}",
            f"{shown}: {role} may read (the restrictive policy below filters)",
            needs,
        ),
        _step(
            f"NOT {_has_policy(regclass, POLICY_NAME, signature)}",
            f"DROP POLICY IF EXISTS {POLICY_NAME} ON {name}; {tenant_policy};"
            f" COMMENT ON POLICY {POLICY_NAME} ON {name} IS {signature}",
            f"{shown}: {role} reads only its tenant's rows ({table.tenancy})",
            f"{shown}: {role} sees its tenant's rows only, {_tenancy_words(catalog, table)}",
            needs,
        ),
    ]


def _step(condition: str, action: str, notice: str, comment: str, needs: str) -> Statement:
    """A statement that acts only when `condition` holds, and says so in a NOTICE."""
    return Statement(_when(condition, action, notice), comment, needs)


def _tenancy_words(catalog: Catalog, table: Table) -> str:
    chain = catalog.tenant_chain(table.name)
    if len(chain) == 1:
        return f"tenant column {table.tenant_column}"
    return "through " + " → ".join(t.name for t in chain[1:]) + f".{chain[-1].tenant_column}"


def _has_policy(regclass: str, policy: str, signature: str | None = None) -> str:
    same = f" AND obj_description(oid, 'pg_policy') = {signature}" if signature else ""
    return (
        f"EXISTS (SELECT FROM pg_policy WHERE polrelid = {regclass}"
        f" AND polname = {_literal(policy)}{same})"
    )


def _when(condition: str, action: str, notice: str) -> str:
    """A PL/pgSQL block that acts only when `condition` holds, and says so in a NOTICE."""
    steps = action.replace("; ", ";\n    ")  # one statement a line, for the reviewer
    return (
        f"DO $orq$ BEGIN\n  IF {condition} THEN\n    {steps};\n"
        f"    RAISE NOTICE '%', {_literal(NOTICE_PREFIX + notice)};\n  END IF;\nEND $orq$"
    )


def _revoke_functions_sql() -> str:
    names = ", ".join(_literal(n) for n in DANGEROUS_FUNCTIONS)
    return (
        "DO $$ DECLARE f regprocedure; BEGIN "
        "FOR f IN SELECT p.oid::regprocedure FROM pg_proc p "
        f"WHERE p.proname IN ({names}) OR p.proname LIKE 'lo\\_%' "
        "LOOP EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f); END LOOP; END $$"
    )


def _schemas(catalog: Catalog) -> list[str]:
    return sorted({t.db_schema for t in catalog.tables.values()})


def _qualified(table: Table) -> str:
    return f"{_ident(table.db_schema)}.{_ident(table.name)}"


def _regclass(table: Table) -> str:
    return f"{_literal(_qualified(table))}::regclass"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
