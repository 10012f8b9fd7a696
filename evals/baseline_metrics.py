"""Scoring the baseline's cases the way Orquestra's are scored, and its summary.

Rows: the agent answers in text, so its rows are those of its last successful `sql_db_query`,
run once more on the same connection (role, tenant, read-only) as typed rows. They are compared
with the gold rows by the harness's own rules (`exact_match`, `relaxed_match`).

Another tenant's rows (a leak), two checks, both independent of row-level security:
1. a result column named as a catalog tenant column holding another tenant's value (the check
   Orquestra's answers get);
2. the statement again through Orquestra's guard as the tenant (layer 2 rewrites every tenant
   table to the tenant's rows by a bound parameter), without its outer LIMIT/OFFSET: a row
   of the baseline's that the tenant's own rows cannot produce is a leak. When the guard
   refuses the statement, only the first check applies; the case is counted `unverified`.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import sqlglot
from sqlalchemy.exc import SQLAlchemyError

from orquestra.evals.compare import exact_match, normal, relaxed_match
from orquestra.evals.dataset import Case
from orquestra.evals.metrics import accuracy, usage
from orquestra.evals.runner import GOLD_LIMITS, gold_rows
from orquestra.graph.resources import Resources
from orquestra.guards import GuardRejection, guard_sql
from orquestra.guards.tenant_query import QueryError, run_as_tenant

if TYPE_CHECKING:
    from orquestra.evals.baseline import Baseline

LEAK_CHECKS = ("guard", "tenant_column", "no_rows", "unverified")


@dataclass
class BaselineResult:
    """What the baseline did for one case, and how it scores."""

    id: str
    tenant: str
    question: str
    answer: str = ""
    sql: str | None = None
    """Its last successful `sql_db_query`: the statement whose rows are scored."""
    queries: list[dict[str, Any]] = field(default_factory=list)
    """Every `sql_db_query` it ran: `{sql, ok}`."""
    row_count: int = 0
    exact: bool | None = None
    relaxed: bool | None = None
    tenant_leak: bool = False
    leak_check: str = "no_rows"
    """Which check decided `tenant_leak`: one of LEAK_CHECKS."""
    model_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    tokens_estimated: bool = False
    latency_ms: float = 0.0
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


async def score_baseline(
    result: BaselineResult, case: Case, baseline: Baseline, resources: Resources
) -> None:
    succeeded = [query["sql"] for query in result.queries if query["ok"]]
    result.sql = succeeded[-1] if succeeded else None
    columns: list[str] = []
    rows: list[list[Any]] = []
    if result.sql:
        try:
            columns, rows = await asyncio.to_thread(baseline.rows, case.tenant, result.sql)
        except SQLAlchemyError:  # ran once, failed now: scored as no rows, and said
            result.error = result.error or "BASELINE_RERUN_FAILED"
    result.row_count = len(rows)
    if case.gold_sql:
        gold = await gold_rows(case, resources)
        result.exact = exact_match(rows, gold) if gold is not None else None
        result.relaxed = relaxed_match(rows, gold) if gold is not None else None
    result.tenant_leak, result.leak_check = await tenant_leak(
        result.sql, columns, rows, case.tenant, resources
    )


async def tenant_leak(
    sql: str | None, columns: list[str], rows: list[list[Any]], tenant: str, resources: Resources
) -> tuple[bool, str]:
    """Whether `rows` (of `sql`, run as `tenant`) hold another tenant's rows, and which check
    said so (see the module's docstring)."""
    tenant_columns = set(resources.catalog.tenant_tables().values())
    for position, column in enumerate(columns):
        if column in tenant_columns and any(str(row[position]) != tenant for row in rows):
            return True, "tenant_column"
    if not sql or not rows:
        return False, "no_rows"
    own = await tenant_rows(sql, tenant, resources)
    if own is None:
        return False, "unverified"
    foreign = Counter(_normal(rows)) - Counter(_normal(own))
    return bool(foreign), "guard"


async def tenant_rows(sql: str, tenant: str, resources: Resources) -> list[list[Any]] | None:
    """`sql`'s rows from the tenant's own data (layer 2's rewrite), all of them; None when
    the guard refuses the statement or it fails."""
    try:
        guarded = guard_sql(without_outer_limit(sql), resources.policy, tenant, max_rows=0)
        async with resources.agent_pool.acquire() as conn:
            found = await run_as_tenant(
                conn, guarded.sql, guarded.params, tenant=tenant, limits=GOLD_LIMITS
            )
    except (GuardRejection, QueryError):
        return None
    return [list(row) for row in found.rows]


def without_outer_limit(sql: str) -> str:
    """`sql` without its outermost LIMIT and OFFSET, so that its rows are all candidates.

    >>> without_outer_limit("SELECT a FROM t ORDER BY a LIMIT 5 OFFSET 5")
    'SELECT a FROM t ORDER BY a'
    >>> without_outer_limit("SELECT a FROM (SELECT a FROM t LIMIT 2) AS s")
    'SELECT a FROM (SELECT a FROM t LIMIT 2) AS s'
    """
    try:
        tree = sqlglot.parse_one(sql, read="postgres")
    except sqlglot.errors.ParseError:
        return sql
    if not (tree.args.get("limit") or tree.args.get("offset")):
        return sql
    tree.set("limit", None)
    tree.set("offset", None)
    return tree.sql(dialect="postgres")


def _normal(rows: list[list[Any]]) -> list[tuple[Any, ...]]:
    return [tuple(repr(normal(value)) for value in row) for row in rows]


def summarize_baseline(
    results: list[BaselineResult],
    prices: dict[str, dict[str, float]] | None = None,
    model: str = "",
) -> dict[str, Any]:
    """The baseline's figures, named as Orquestra's summary names them."""
    checks = Counter(r.leak_check for r in results)
    return {
        "cases": len(results),
        **accuracy(results),
        "tenant_leaks": sum(r.tenant_leak for r in results),
        "leak_checks": {name: checks.get(name, 0) for name in LEAK_CHECKS},
        "errors": sum(r.error is not None for r in results),
        **usage(results, prices or {}, model),
    }


@dataclass
class BaselineRun:
    """A baseline's run over an evaluation's cases: what ran, as whom, and how it did."""

    name: str
    model: str
    role: str
    """The database role it connected as (the agent's)."""
    summary: dict[str, Any]
    results: list[BaselineResult]

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "model": self.model,
            "role": self.role,
            "row_level_security": True,
            "summary": self.summary,
            "cases": [r.as_dict() for r in self.results],
        }
