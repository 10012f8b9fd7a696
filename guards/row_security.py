"""Row-level security and grants on the catalog's tables, as reviewable idempotent steps.

Every step is a small PL/pgSQL block that acts only when the database differs from what it
wants, and then raises a NOTICE starting with `orquestra:` (what `db policies --apply` prints
as changed). A tenant table gets a restrictive SELECT policy for the agent — its own tenant
column, or the whole chain of `tenant_via` parents spelled out (`tenant_predicate`) — and a
permissive one (row-level security needs one); on a company's table that had no row-level
security, a permissive policy for everyone else keeps their access as it was.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from orquestra.ddl_catalog import Catalog
from orquestra.ddl_catalog.model import Table
from orquestra.ddl_catalog.text import literal

POLICY_NAME = "orquestra_tenant_isolation"
"""Restrictive: the agent reads a tenant table's rows of its tenant only."""
AGENT_READ_POLICY = "orquestra_agent_read"
"""Permissive for the agent (row-level security needs one); the restrictive one filters."""
OTHERS_POLICY = "orquestra_others_unchanged"
"""On a company's table that had no row-level security: every role reads and writes as before."""
NOTICE_PREFIX = "orquestra: "


@dataclass(frozen=True)
class Statement:
    """One reviewable step: its SQL, what it does, and the privilege it needs."""

    sql: str
    comment: str
    needs: str
    """Said when PostgreSQL refuses it for lack of privilege (`POLICY_PRIVILEGE_MISSING`)."""


def tenant_predicate(catalog: Catalog, table: Table, tenant: str) -> str:
    """The row-level security condition of a tenant table, the parent chain spelled out.

    A `tenant_via` table's row is visible when a row of each ancestor matches on all the
    declared columns, up to the root whose tenant column equals the tenant; a NULL key
    matches nothing, so an orphan row belongs to nobody. The parents' own policies are not
    relied on, e.g. payment → rental → inventory:
    `(payment.rental_id) IN (SELECT orq_p1.rental_id FROM public.rental AS orq_p1 WHERE
    (orq_p1.inventory_id) IN (SELECT orq_p2.inventory_id FROM public.inventory AS orq_p2
    WHERE orq_p2.store_id = NULLIF(current_setting('app.tenant_id', true), '')::integer))`.
    The subqueries do not refer to the row, so PostgreSQL runs each once per scan and probes
    a hash of its keys per row (a correlated EXISTS would run per row, and with layer 2's
    semi-join on top the planner then picked nested loops quadratic in the table's size).
    """
    chain = catalog.tenant_chain(table.name)
    root = chain[-1]
    column = root.column(root.tenant_column or "")
    value = f"NULLIF({tenant}, '')::{column.type_sql}"
    if len(chain) == 1:
        return f"{ident(column.name)} = {value}"
    condition = f"{ident('orq_p' + str(len(chain) - 1))}.{ident(column.name)} = {value}"
    for depth in range(len(chain) - 1, 0, -1):
        child, parent, alias = chain[depth - 1], chain[depth], f"orq_p{depth}"
        via = child.tenant_via
        assert via is not None  # every table but the root of a chain is tenant_via
        owner = ident(table.name) if depth == 1 else f"orq_p{depth - 1}"
        keys = ", ".join(f"{owner}.{ident(c)}" for c in via.columns)
        parent_keys = ", ".join(f"{alias}.{ident(p)}" for p in via.columns.values())
        condition = (
            f"({keys}) IN (SELECT {parent_keys} FROM {qualified(parent)} AS {alias} "
            f"WHERE {condition})"
        )
    return condition


def table_statements(catalog: Catalog, role: str, tenant: str, *, owned: bool) -> list[Statement]:
    statements: list[Statement] = []
    for table in catalog.tables.values():
        statements += _grants(table, role)
        if table.tenancy != "shared":
            statements += _row_security(catalog, table, role, tenant, owned=owned)
    return statements


def _grants(table: Table, role: str) -> list[Statement]:
    name, q, shown = qualified(table), ident(role), f"{table.db_schema}.{table.name}"
    granted = (
        f"SELECT FROM pg_class c, aclexplode(c.relacl) a WHERE c.oid = {regclass_of(table)}"
        f" AND a.grantee = {literal(role)}::regrole"
    )
    needs = f"ownership of {shown} to grant on it"
    return [
        step(
            f"NOT EXISTS ({granted} AND a.privilege_type = 'SELECT')",
            f"GRANT SELECT ON {name} TO {q}",
            f"granted SELECT on {shown} to {role}",
            f"{role} reads {shown}",
            needs,
        ),
        step(
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
    name, q, regclass = qualified(table), ident(role), regclass_of(table)
    shown = f"{table.db_schema}.{table.name}"
    needs = f"ownership of {shown} to enable row-level security and create its policies"
    # Only a table (plain or partitioned) takes row-level security: a view or a foreign table
    # in the catalog is left to layer 2's rewrite and reported as a finding.
    flags = f"SELECT FROM pg_class WHERE oid = {regclass} AND relkind IN ('r', 'p')"
    is_table = f"EXISTS ({flags})"
    ours = _has_policy(regclass, OTHERS_POLICY)
    statements = []
    if not owned:
        # Row-level security on would hide every row from the company's other (non-owner)
        # roles; this permissive policy keeps their reads and writes as they were.
        statements.append(
            step(
                f"EXISTS ({flags} AND NOT relrowsecurity) AND NOT {ours}",
                f"CREATE POLICY {OTHERS_POLICY} ON {name} AS PERMISSIVE FOR ALL TO PUBLIC"
                " USING (true) WITH CHECK (true)",
                f"{shown}: other roles keep reading and writing as before",
                f"{shown} had no row-level security: every other role keeps what it had",
                needs,
            )
        )
    tenant_policy = (
        f"CREATE POLICY {POLICY_NAME} ON {name} AS RESTRICTIVE FOR SELECT TO {q}"
        f" USING ({tenant_predicate(catalog, table, tenant)})"
    )
    signature = literal("orquestra " + hashlib.sha1(tenant_policy.encode()).hexdigest()[:16])
    return [
        *statements,
        step(
            f"EXISTS ({flags} AND NOT relrowsecurity)",
            f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY",
            f"{shown}: row-level security enabled",
            f"{shown}: row-level security on",
            needs,
        ),
        _forcing(name, shown, flags, ours, needs, owned=owned),
        step(
            f"{is_table} AND NOT {_has_policy(regclass, AGENT_READ_POLICY)}",
            f"CREATE POLICY {AGENT_READ_POLICY} ON {name} AS PERMISSIVE FOR SELECT TO {q}"
            " USING (true)",
            f"{shown}: {role} may read, filtered by {POLICY_NAME}",
            f"{shown}: {role} may read (the restrictive policy below filters)",
            needs,
        ),
        step(
            f"{is_table} AND NOT {_has_policy(regclass, POLICY_NAME, signature)}",
            f"DROP POLICY IF EXISTS {POLICY_NAME} ON {name}; {tenant_policy};"
            f" COMMENT ON POLICY {POLICY_NAME} ON {name} IS {signature}",
            f"{shown}: {role} reads only its tenant's rows ({table.tenancy})",
            f"{shown}: {role} sees its tenant's rows only, {_tenancy_words(catalog, table)}",
            needs,
        ),
    ]


def _forcing(name: str, shown: str, flags: str, ours: str, needs: str, *, owned: bool) -> Statement:
    """FORCE in a database Orquestra owns (its tables' owner is the server's own role). In a
    company's database the agent is never the owner, so forcing buys nothing and would cost
    the owner its COPY FROM and `pg_dump`: it is taken back where Orquestra had set it."""
    if owned:
        return step(
            f"EXISTS ({flags} AND NOT relforcerowsecurity)",
            f"ALTER TABLE {name} FORCE ROW LEVEL SECURITY",
            f"{shown}: row-level security forced (the owner too)",
            f"{shown}: row-level security forced",
            needs,
        )
    return step(
        f"EXISTS ({flags} AND relforcerowsecurity) AND {ours}",
        f"ALTER TABLE {name} NO FORCE ROW LEVEL SECURITY",
        f"{shown}: row-level security no longer forced on the owner",
        f"{shown}: the owner keeps COPY FROM and pg_dump (row-level security not forced)",
        needs,
    )


def step(condition: str, action: str, notice: str, comment: str, needs: str) -> Statement:
    """A statement that acts only when `condition` holds, and says so in a NOTICE."""
    return Statement(when(condition, action, notice), comment, needs)


def _tenancy_words(catalog: Catalog, table: Table) -> str:
    chain = catalog.tenant_chain(table.name)
    if len(chain) == 1:
        return f"tenant column {table.tenant_column}"
    return "through " + " → ".join(t.name for t in chain[1:]) + f".{chain[-1].tenant_column}"


def _has_policy(regclass: str, policy: str, signature: str | None = None) -> str:
    same = f" AND obj_description(oid, 'pg_policy') = {signature}" if signature else ""
    return (
        f"EXISTS (SELECT FROM pg_policy WHERE polrelid = {regclass}"
        f" AND polname = {literal(policy)}{same})"
    )


def when(condition: str, action: str, notice: str) -> str:
    """A PL/pgSQL block that acts only when `condition` holds, and says so in a NOTICE."""
    steps = action.replace("; ", ";\n    ")  # one statement a line, for the reviewer
    return (
        f"DO $orq$ BEGIN\n  IF {condition} THEN\n    {steps};\n"
        f"    RAISE NOTICE '%', {literal(NOTICE_PREFIX + notice)};\n  END IF;\nEND $orq$"
    )


def qualified(table: Table) -> str:
    return f"{ident(table.db_schema)}.{ident(table.name)}"


def regclass_of(table: Table) -> str:
    return f"{literal(qualified(table))}::regclass"


def ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
