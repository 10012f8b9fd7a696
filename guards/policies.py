"""Layer 3: the database holds the line by itself, whatever SQL reaches it.

`policy_statements()` is the SQL `orquestra db init` applies to the demo database and
`orquestra db policies --print` prints for a DBA: a least-privilege login role with SELECT on
the catalog's tables only, row-level security enabled and forced on every tenant table (no
tenant set → no rows), no TEMP, read-only by default, and EXECUTE revoked from PUBLIC on the
functions an attacker would reach for.
"""

from __future__ import annotations

from ddl_catalog import Catalog

POLICY_NAME = "orquestra_tenant_isolation"
INTERNAL_SCHEMA = "orquestra_internal"
TENANT_SETTING = "app.tenant_id"

DANGEROUS_FUNCTIONS = (
    "set_config",
    "current_setting",
    "query_to_xml",
    "query_to_xml_and_xmlschema",
    "query_to_xmlschema",
    "cursor_to_xml",
    "cursor_to_xmlschema",
    "table_to_xml",
    "table_to_xml_and_xmlschema",
    "table_to_xmlschema",
    "schema_to_xml",
    "schema_to_xml_and_xmlschema",
    "schema_to_xmlschema",
    "database_to_xml",
    "database_to_xml_and_xmlschema",
    "database_to_xmlschema",
    "ts_stat",
    "pg_sleep",
    "pg_sleep_for",
    "pg_sleep_until",
    "pg_read_file",
    "pg_read_binary_file",
    "pg_ls_dir",
    "pg_stat_file",
    "nextval",
    "setval",
    "currval",
    "lastval",
    "pg_advisory_lock",
    "pg_advisory_lock_shared",
    "pg_try_advisory_lock",
    "pg_terminate_backend",
    "pg_cancel_backend",
    "dblink",
    "dblink_exec",
    "dblink_connect",
    "dblink_send_query",
)
"""Revoked from PUBLIC (all overloads); large-object functions (`lo_*`) too."""


def policy_statements(catalog: Catalog, *, role: str, database: str) -> list[str]:
    """Every statement, in order, that puts layer 3 in place. Idempotent."""
    role_q, db_q = _ident(role), _ident(database)
    statements = [
        f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {_literal(role)}) "
        f"THEN CREATE ROLE {role_q} LOGIN; END IF; END $$",
        f"ALTER ROLE {role_q} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE "
        "NOREPLICATION NOINHERIT",
        f"ALTER ROLE {role_q} SET default_transaction_read_only = on",
        f"ALTER ROLE {role_q} SET statement_timeout = '30s'",
        f"ALTER ROLE {role_q} SET idle_in_transaction_session_timeout = '60s'",
        # TEMP and CONNECT are granted to PUBLIC by default; take them back, give CONNECT only.
        f"REVOKE ALL ON DATABASE {db_q} FROM PUBLIC",
        f"GRANT CONNECT ON DATABASE {db_q} TO {role_q}",
        f"CREATE SCHEMA IF NOT EXISTS {INTERNAL_SCHEMA}",
        f"REVOKE ALL ON SCHEMA {INTERNAL_SCHEMA} FROM PUBLIC",
        # The policy reads the tenant through a definer function, because current_setting
        # itself is revoked from the agent below.
        f"CREATE OR REPLACE FUNCTION {INTERNAL_SCHEMA}.current_tenant() RETURNS text "
        "LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog "
        f"AS $$ SELECT current_setting({_literal(TENANT_SETTING)}, true) $$",
        f"REVOKE ALL ON FUNCTION {INTERNAL_SCHEMA}.current_tenant() FROM PUBLIC",
        f"GRANT USAGE ON SCHEMA {INTERNAL_SCHEMA} TO {role_q}",
        f"GRANT EXECUTE ON FUNCTION {INTERNAL_SCHEMA}.current_tenant() TO {role_q}",
    ]
    for schema in sorted({t.db_schema for t in catalog.tables.values()}):
        statements.append(f"REVOKE CREATE ON SCHEMA {_ident(schema)} FROM PUBLIC")
        statements.append(f"GRANT USAGE ON SCHEMA {_ident(schema)} TO {role_q}")
    for table in catalog.tables.values():
        statements += _table_statements(table, role_q)
    statements.append(_revoke_functions_statement())
    return statements


def _table_statements(table, role_q: str) -> list[str]:
    name = f"{_ident(table.db_schema)}.{_ident(table.name)}"
    statements = [f"REVOKE ALL ON {name} FROM PUBLIC", f"GRANT SELECT ON {name} TO {role_q}"]
    if table.tenant_column is None:
        return statements
    column = table.column(table.tenant_column)
    return [
        *statements,
        f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY",
        f"ALTER TABLE {name} FORCE ROW LEVEL SECURITY",
        f"DROP POLICY IF EXISTS {POLICY_NAME} ON {name}",
        f"CREATE POLICY {POLICY_NAME} ON {name} FOR SELECT TO {role_q} USING "
        f"({_ident(column.name)} = NULLIF({INTERNAL_SCHEMA}.current_tenant(), '')::"
        f"{column.type_sql})",
    ]


def _revoke_functions_statement() -> str:
    names = ", ".join(_literal(n) for n in DANGEROUS_FUNCTIONS)
    return (
        "DO $$ DECLARE f regprocedure; BEGIN "
        "FOR f IN SELECT p.oid::regprocedure FROM pg_proc p "
        f"WHERE p.proname IN ({names}) OR p.proname LIKE 'lo\\_%' "
        "LOOP EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM PUBLIC', f); END LOOP; END $$"
    )


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
