"""The guard's driver: layer 1 then layer 2 passes, then a final check of the output.

`guard_sql(sql, policy, tenant, max_rows)` returns the SQL to send and its parameters, or
raises `GuardRejection` with a code. Any unexpected exception inside the guard is itself a
rejection (`GUARD_INTERNAL`): the guard fails closed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pglast.stream import RawStream

from orquestra.guards.errors import GuardRejection
from orquestra.guards.rewrite import cap_rows, filter_tenant_tables, verify_filters
from orquestra.guards.table_policy import GuardPolicy
from orquestra.guards.validate import parse_one, validate


@dataclass(frozen=True)
class GuardedSQL:
    """SQL safe to run for one tenant, with its bound parameters."""

    sql: str
    params: list[str]
    """`[tenant]` when the query reads a tenant table ($1), else empty."""
    timings_ms: dict[str, float] = field(default_factory=dict, compare=False)
    """Milliseconds per layer: parse, validate, rewrite, verify."""

    def as_dict(self) -> dict[str, object]:
        return {"sql": self.sql, "params": self.params}


def guard_sql(sql: str, policy: GuardPolicy, tenant: str, max_rows: int = 0) -> GuardedSQL:
    """Validate and rewrite `sql` for `tenant`; `max_rows` 0 means no row cap."""
    try:
        return _guard(sql, policy, tenant, max_rows)
    except GuardRejection:
        raise
    except Exception as exc:  # fail closed: a guard bug must never let a query through
        raise GuardRejection(
            "GUARD_INTERNAL", f"the guard could not check this query ({exc})"
        ) from exc


def _guard(sql: str, policy: GuardPolicy, tenant: str, max_rows: int) -> GuardedSQL:
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[name] = (now - clock) * 1000
        clock = now

    statement = parse_one(sql)
    lap("parse")
    validate(statement, policy)
    lap("validate")
    statement = filter_tenant_tables(statement, policy)
    statement = cap_rows(statement, max_rows)
    output = RawStream()(statement)
    lap("rewrite")
    final = parse_one(output)
    validate(final, policy, tenant_param=True)
    uses_tenant = verify_filters(final, policy)
    lap("verify")
    return GuardedSQL(output, [tenant] if uses_tenant else [], timings)
