"""The guard's driver: the passes of `PASSES`, run in order on one statement.

`guard_sql(sql, policy, tenant, max_rows)` returns the SQL to send and its parameters, or
raises `GuardRejection` with a code. Any unexpected exception inside the guard is itself a
rejection (`GUARD_INTERNAL`): the guard fails closed.

The list is the guard. Each pass is `pass(statement, run) -> statement`: it returns the
statement (the same tree, changed in place, or a new one) or raises `GuardRejection`; `run`
(a `GuardRun`, one per call) holds what a pass needs beyond the tree. Its time is added to
`GuardedSQL.timings_ms` under the pass's phase.

>>> for step in PASSES:
...     print(f"{step.layer:<12} {step.name:<21} {step.phase}")
layer 1      parse                 parse
layer 1      validate              validate
layer 2      filter_tenant_tables  rewrite
layer 2      cap_rows              rewrite
layer 2      deparse               rewrite
final check  reparse               verify
final check  revalidate            verify
final check  verify_filters        verify

- `parse` (`validate.parse_one`): the caller's text becomes exactly one SELECT, read by
  PostgreSQL's own parser.
- `validate` (`validate.validate`): every node, function, operator, cast and table is on an
  allowlist.
- `filter_tenant_tables`, `cap_rows` (`rewrite`): every tenant table is read through a filter
  on `$1`; the outermost query gets `LIMIT max_rows`.
- `deparse`: the tree becomes the text that will be sent (comments and spelling of the
  caller's text are gone).
- `reparse`, `revalidate`, `verify_filters`: that text, parsed again, passes layer 1 again
  (now with the rewrite's `$1`) and reads every tenant table only through its filter.

The tenant itself never enters the tree: it is bound as `$1` by whoever runs the SQL.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pglast import ast
from pglast.stream import RawStream

from orquestra.guards.errors import GuardRejection
from orquestra.guards.rewrite import cap_rows, filter_tenant_tables, verify_filters
from orquestra.guards.table_policy import GuardPolicy
from orquestra.guards.validate import parse_one, validate

Layer = Literal["layer 1", "layer 2", "final check"]
Phase = Literal["parse", "validate", "rewrite", "verify"]


@dataclass(frozen=True)
class GuardedSQL:
    """SQL safe to run for one tenant, with its bound parameters."""

    sql: str
    params: list[str]
    """`[tenant]` when the query reads a tenant table ($1), else empty."""
    timings_ms: dict[str, float] = field(default_factory=dict, compare=False)
    """Milliseconds per phase of `PASSES`: parse, validate, rewrite, verify."""

    def as_dict(self) -> dict[str, object]:
        return {"sql": self.sql, "params": self.params}


@dataclass(slots=True)
class GuardRun:
    """One call of the guard: what its passes read besides the tree, and what they leave."""

    policy: GuardPolicy
    max_rows: int
    """The row cap `cap_rows` applies; 0 means none."""
    sql: str
    """The caller's SQL text until `deparse` replaces it with the text to send, which
    `reparse` reads back: the check is made on exactly what will run."""
    uses_tenant: bool = False
    """Set by `verify_filters`: whether the text to send reads `$1`."""


PassFunction = Callable[[ast.SelectStmt, GuardRun], ast.SelectStmt]

_NOTHING_PARSED = ast.SelectStmt()
"""What the first pass is given: no tree yet. `PASSES` starts with `parse`, which reads
`run.sql` and ignores it (one empty tree for all calls: building a node costs microseconds)."""


@dataclass(frozen=True)
class GuardPass:
    """One step of the guard, as the driver runs it."""

    name: str
    layer: Layer
    phase: Phase
    """The `GuardedSQL.timings_ms` key this pass's time is added to."""
    run: PassFunction


def guard_sql(sql: str, policy: GuardPolicy, tenant: str, max_rows: int = 0) -> GuardedSQL:
    """Validate and rewrite `sql` for `tenant`; `max_rows` 0 means no row cap.

    >>> from orquestra.guards import GuardPolicy, TablePolicy, guard_sql
    >>> policy = GuardPolicy({"orders": TablePolicy("orders", "public", "tenant_id")})
    >>> guarded = guard_sql("SELECT o.id FROM orders o -- mine", policy, "7", max_rows=50)
    >>> print(guarded.sql)
    SELECT o.id FROM (SELECT * FROM public.orders WHERE orders.tenant_id = $1) AS o LIMIT 50
    >>> guarded.params
    ['7']
    >>> try:
    ...     guard_sql("DELETE FROM orders", policy, "7")
    ... except GuardRejection as refused:
    ...     print(refused.code)
    GUARD_NOT_SELECT
    """
    return _run_passes(PASSES, sql, policy, tenant, max_rows)


def _run_passes(
    passes: Sequence[GuardPass], sql: str, policy: GuardPolicy, tenant: str, max_rows: int
) -> GuardedSQL:
    """`guard_sql` with its list of passes given (the tests run lists of their own)."""
    try:
        return _run(passes, GuardRun(policy, max_rows, sql), tenant)
    except GuardRejection:
        raise
    except Exception as exc:  # fail closed: a guard bug must never let a query through
        raise GuardRejection(
            "GUARD_INTERNAL", f"the guard could not check this query ({exc})"
        ) from exc


def _run(passes: Sequence[GuardPass], run: GuardRun, tenant: str) -> GuardedSQL:
    timings: dict[str, float] = {}
    statement = _NOTHING_PARSED
    clock = time.perf_counter()
    for step in passes:
        statement = step.run(statement, run)
        now = time.perf_counter()
        timings[step.phase] = timings.get(step.phase, 0.0) + (now - clock) * 1000
        clock = now
    return GuardedSQL(run.sql, [tenant] if run.uses_tenant else [], timings)


def _parse(_: ast.SelectStmt, run: GuardRun) -> ast.SelectStmt:
    return parse_one(run.sql)


def _validate(statement: ast.SelectStmt, run: GuardRun) -> ast.SelectStmt:
    validate(statement, run.policy)
    return statement


def _filter_tenant_tables(statement: ast.SelectStmt, run: GuardRun) -> ast.SelectStmt:
    return filter_tenant_tables(statement, run.policy)


def _cap_rows(statement: ast.SelectStmt, run: GuardRun) -> ast.SelectStmt:
    return cap_rows(statement, run.max_rows)


def _deparse(statement: ast.SelectStmt, run: GuardRun) -> ast.SelectStmt:
    run.sql = RawStream()(statement)
    return statement


def _revalidate(statement: ast.SelectStmt, run: GuardRun) -> ast.SelectStmt:
    validate(statement, run.policy, tenant_param=True)
    return statement


def _verify_filters(statement: ast.SelectStmt, run: GuardRun) -> ast.SelectStmt:
    run.uses_tenant = verify_filters(statement, run.policy)
    return statement


PASSES: tuple[GuardPass, ...] = (
    GuardPass("parse", "layer 1", "parse", _parse),
    GuardPass("validate", "layer 1", "validate", _validate),
    GuardPass("filter_tenant_tables", "layer 2", "rewrite", _filter_tenant_tables),
    GuardPass("cap_rows", "layer 2", "rewrite", _cap_rows),
    GuardPass("deparse", "layer 2", "rewrite", _deparse),
    GuardPass("reparse", "final check", "verify", _parse),
    GuardPass("revalidate", "final check", "verify", _revalidate),
    GuardPass("verify_filters", "final check", "verify", _verify_filters),
)
"""The guard, in order (the module's docstring shows it)."""
