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

from orquestra.ddl_catalog import Catalog
from orquestra.ddl_catalog.text import literal
from orquestra.guards.row_security import (
    NOTICE_PREFIX,
    POLICY_NAME,
    Statement,
    ident,
    qualified,
    step,
    table_statements,
    tenant_predicate,
)

__all__ = [
    "DANGEROUS_FUNCTIONS",
    "NOTICE_PREFIX",
    "POLICY_NAME",
    "Statement",
    "least_intrusive_statements",
    "owned_database_statements",
    "policy_statements",
    "render",
    "tenant_predicate",
]

INTERNAL_SCHEMA = "orquestra_internal"
TENANT_SETTING = "app.tenant_id"
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


def least_intrusive_statements(catalog: Catalog, *, role: str) -> list[Statement]:
    """A company's database: the agent role and the catalog's tables, nothing else."""
    tenant = f"current_setting({literal(TENANT_SETTING)}, true)"
    return [
        *_role_statements(role),
        *_schema_statements(catalog, role),
        *table_statements(catalog, role, tenant, owned=False),
    ]


def owned_database_statements(catalog: Catalog, *, role: str, database: str) -> list[Statement]:
    """A database Orquestra owns entirely (the demo): least privilege, then hardening."""
    tenant = f"{INTERNAL_SCHEMA}.current_tenant()"
    return [
        *_role_statements(role),
        *_owned_hardening(catalog, role, database),
        *_schema_statements(catalog, role),
        *table_statements(catalog, role, tenant, owned=True),
        Statement(_revoke_functions_sql(), "EXECUTE revoked from PUBLIC", "superuser"),
    ]


def policy_statements(catalog: Catalog, *, role: str, database: str) -> list[str]:
    """The SQL of `owned_database_statements`, in order (what `db init` applies)."""
    return [s.sql for s in owned_database_statements(catalog, role=role, database=database)]


def render(statements: list[Statement]) -> str:
    """Reviewable SQL: each statement under a comment saying what it does."""
    return "\n".join(f"-- {s.comment}\n{s.sql};\n" for s in statements)


def _role_statements(role: str) -> list[Statement]:
    name, q = literal(role), ident(role)
    unsafe = (
        "NOT (rolcanlogin AND NOT rolsuper AND NOT rolbypassrls AND NOT rolcreatedb"
        " AND NOT rolcreaterole AND NOT rolreplication AND NOT rolinherit)"
    )
    admin = f"CREATEROLE with ADMIN OPTION on {role} (or superuser) to run: ALTER ROLE {q}"
    statements = [
        step(
            f"NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {name})",
            f"CREATE ROLE {q} {ROLE_ATTRIBUTES}",
            f"created role {role}",
            f"the agent's login role {role}, created if missing",
            f"CREATEROLE to create role {role} (or have it created: CREATE ROLE {q} "
            f"{ROLE_ATTRIBUTES})",
        ),
        step(
            f"EXISTS (SELECT FROM pg_roles WHERE rolname = {name} AND {unsafe})",
            f"ALTER ROLE {q} {ROLE_ATTRIBUTES}",
            f"role {role} made least-privilege ({ROLE_ATTRIBUTES})",
            f"{role} may not bypass row-level security, create anything or inherit roles",
            f"{admin} {ROLE_ATTRIBUTES}",
        ),
    ]
    for setting, value in ROLE_SETTINGS:
        assignment = f"SET {setting} = {literal(value)}"
        statements.append(
            step(
                f"NOT EXISTS (SELECT FROM pg_db_role_setting WHERE setrole = {name}::regrole"
                f" AND setdatabase = 0 AND {literal(f'{setting}={value}')} = ANY (setconfig))",
                f"ALTER ROLE {q} {assignment}",
                f"role {role}: {setting} = {value}",
                f"{role}: {setting} = {value} in every session",
                f"{admin} {assignment}",
            )
        )
    return statements


def _owned_hardening(catalog: Catalog, role: str, database: str) -> list[Statement]:
    """Database-wide hardening, only for a database Orquestra owns entirely."""
    q, db = ident(role), ident(database)
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
        f"AS $$ SELECT current_setting({literal(TENANT_SETTING)}, true) $$",
        f"REVOKE ALL ON FUNCTION {INTERNAL_SCHEMA}.current_tenant() FROM PUBLIC",
        f"GRANT USAGE ON SCHEMA {INTERNAL_SCHEMA} TO {q}",
        f"GRANT EXECUTE ON FUNCTION {INTERNAL_SCHEMA}.current_tenant() TO {q}",
    ]
    sql += [f"REVOKE CREATE ON SCHEMA {ident(s)} FROM PUBLIC" for s in _schemas(catalog)]
    sql += [f"REVOKE ALL ON {qualified(t)} FROM PUBLIC" for t in catalog.tables.values()]
    return [Statement(s, "hardening of a database Orquestra owns", "ownership") for s in sql]


def _schema_statements(catalog: Catalog, role: str) -> list[Statement]:
    name, q = literal(role), ident(role)
    statements = [
        step(
            f"NOT has_database_privilege({name}, current_database(), 'CONNECT')",
            f"EXECUTE format('GRANT CONNECT ON DATABASE %I TO {q}', current_database())",
            f"granted CONNECT on this database to {role}",
            f"{role} may connect (PUBLIC usually may already)",
            f"CONNECT WITH GRANT OPTION on the database to grant it to {role}",
        )
    ]
    for schema in _schemas(catalog):
        statements.append(
            step(
                f"NOT has_schema_privilege({name}, {literal(schema)}, 'USAGE')",
                f"GRANT USAGE ON SCHEMA {ident(schema)} TO {q}",
                f"granted USAGE on schema {schema} to {role}",
                f"{role} may look up the catalog's tables in schema {schema}",
                f"ownership of schema {schema} (or USAGE WITH GRANT OPTION) to grant USAGE",
            )
        )
    return statements


def _revoke_functions_sql() -> str:
    names = ", ".join(literal(n) for n in DANGEROUS_FUNCTIONS)
    return (
        "DO $$ DECLARE f regprocedure; BEGIN "
        "FOR f IN SELECT p.oid::regprocedure FROM pg_proc p "
        f"WHERE p.proname IN ({names}) OR p.proname LIKE 'lo\\_%' "
        "LOOP EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f); END LOOP; END $$"
    )


def _schemas(catalog: Catalog) -> list[str]:
    return sorted({t.db_schema for t in catalog.tables.values()})
