"""The names a question writes, looked up in the asker's own rows (`ddl_catalog.data_values`
says what is looked for, where, and how it is read).

The lookup is a query like the SQL writer's: through the guard (the asker's rows only), then
inside layer 3's read-only transaction as the asker's tenant, under `TIMEOUT_MS`. Nothing it
finds is kept beyond the turn. The asker's own company's name is not looked up (it says whose
data this is). Another tenant's name is looked up like any name — the same statement, the
same time — and found in none of the asker's rows, so nothing tells it from a made-up name.
A lookup that fails or runs out of time searched nothing, and the turn goes on without it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, replace

import asyncpg

from orquestra.core.limits import ExecutionLimits
from orquestra.ddl_catalog.data_values import (
    FoundValue,
    found_values,
    lookup_sql,
    searchable_columns,
    value_spans,
)
from orquestra.ddl_catalog.selection import SourceIndex
from orquestra.guards import GuardPolicy, GuardRejection, guard_sql
from orquestra.guards.tenant_names import TenantNames
from orquestra.guards.tenant_query import QueryError, run_as_tenant

log = logging.getLogger("orquestra.values")

TIMEOUT_MS = 800
"""How long the lookup may take in the database; then the turn goes on without it."""


@dataclass(frozen=True)
class LookedUp:
    """What a lookup searched (the question's names, as written) and what it found; nothing
    searched when it could not run."""

    searched: tuple[str, ...] = ()
    found: tuple[FoundValue, ...] = ()


async def look_up(
    question: str,
    index: SourceIndex,
    pool: asyncpg.Pool,
    policy: GuardPolicy,
    *,
    tenant: str,
    limits: ExecutionLimits,
    names: TenantNames | None = None,
) -> LookedUp:
    """The values of the asker's rows that `question` names and where they are, with the
    names it searched: one searched and not found is no row's name in the asker's data."""
    spans = [
        s
        for s in value_spans(question, index.vocabulary)
        if names is None or not names.own_names(s.text, tenant)
    ]
    columns = await asyncio.to_thread(searchable_columns, index.catalog) if spans else []
    if not columns:
        return LookedUp()
    started = time.perf_counter()
    try:
        guarded = guard_sql(lookup_sql(columns, spans), policy, tenant, max_rows=0)
        bounded = replace(limits, row_cap=0, statement_timeout_ms=TIMEOUT_MS)
        async with pool.acquire() as conn:
            result = await run_as_tenant(
                conn, guarded.sql, guarded.params, tenant=tenant, limits=bounded
            )
    except (GuardRejection, QueryError) as failed:
        log.warning(
            "values not looked up",
            extra={"code": getattr(failed, "code", ""), "spans": len(spans)},
        )
        return LookedUp()
    found = found_values(result.rows, columns, spans)
    log.info(
        "values looked up",
        extra={
            "spans": len(spans),
            "columns": len(columns),
            "found": len(found),
            "ms": round((time.perf_counter() - started) * 1000, 1),
        },
    )
    return LookedUp(tuple(s.text for s in spans), tuple(found))
