"""Do a table's possible tenant paths agree on its rows? Measured on the live data.

When a table reaches tenant data along several foreign keys (a payment through its customer,
or through its rental's inventory copy), the importer picks one path by rule. The paths can
name different tenants for the same row — a customer of one store renting a copy at another —
and then the choice decides which tenant sees that row. This counts, over a sample of the
table's rows, how often each path not chosen names another tenant than the chosen one, so the
person confirming the path knows whether the choice matters. Reads only, bounded in rows and
time; a path it cannot measure is reported as unknown, never as agreeing.
"""

from __future__ import annotations

from dataclasses import dataclass

import asyncpg

from orquestra.ddl_catalog.tenancy import Key, TenancyProposal
from orquestra.ddl_catalog.text import quoted

SAMPLE_ROWS = 10_000
TIMEOUT_MS = 5_000


@dataclass(frozen=True)
class PathAgreement:
    """One alternative path against the chosen one, over `compared` sampled rows."""

    alternative: tuple[str, ...]
    differing: int | None
    """Rows whose tenant differs between the two paths; `None`: could not be measured."""
    compared: int

    def describe(self) -> str:
        path = " → ".join(self.alternative)
        if self.differing is None:
            return f"{path}: agreement not measured"
        if self.compared == 0:
            return f"{path}: no rows yet to compare"
        if self.differing == 0:
            return f"{path}: same tenant on all {self.compared} sampled rows"
        return f"{path}: ANOTHER tenant on {self.differing} of {self.compared} sampled rows"


async def measure_agreement(
    conn: asyncpg.Connection, schema: str, proposal: TenancyProposal, tenant_column: str
) -> dict[str, list[PathAgreement]]:
    """For each `tenant_via` table with alternatives: how each alternative agrees."""
    out: dict[str, list[PathAgreement]] = {}
    for table, via in proposal.via.items():
        chosen = _chain(via.key, proposal)
        for path, first in zip(via.alternatives, via.alternative_keys, strict=True):
            sql = _agreement_sql(schema, table, chosen, _chain(first, proposal), tenant_column)
            out.setdefault(table, []).append(PathAgreement(path, *await _run(conn, sql)))
    return out


def _chain(first: Key, proposal: TenancyProposal) -> list[Key]:
    """`first`, then the chosen key of every table after it, up to a root."""
    keys = [first]
    while keys[-1].target in proposal.via:
        keys.append(proposal.via[keys[-1].target].key)
    return keys


def _agreement_sql(
    schema: str, table: str, chosen: list[Key], other: list[Key], tenant_column: str
) -> str:
    return (
        "SELECT count(*) FILTER (WHERE p.tenant IS DISTINCT FROM q.tenant), count(*)"
        f" FROM (SELECT * FROM {quoted(schema)}.{quoted(table)} LIMIT {SAMPLE_ROWS}) AS a0"
        f" LEFT JOIN LATERAL ({_tenant_of(schema, chosen, tenant_column)}) AS p ON true"
        f" LEFT JOIN LATERAL ({_tenant_of(schema, other, tenant_column)}) AS q ON true"
    )


def _tenant_of(schema: str, keys: list[Key], tenant_column: str) -> str:
    """The tenant a row `a0` reaches along `keys` (NULL when a key is NULL or dangling)."""
    joins, conditions = [], []
    for hop, key in enumerate(keys, start=1):
        joins.append(f"{quoted(schema)}.{quoted(key.target)} AS b{hop}")
        left = "a0" if hop == 1 else f"b{hop - 1}"
        conditions += [
            f"b{hop}.{quoted(remote)} = {left}.{quoted(local)}"
            for local, remote in zip(key.columns, key.target_columns, strict=True)
        ]
    last = f"b{len(keys)}.{quoted(tenant_column)}"
    return (
        f"SELECT {last} AS tenant FROM {', '.join(joins)} WHERE {' AND '.join(conditions)} LIMIT 1"
    )


async def _run(conn: asyncpg.Connection, sql: str) -> tuple[int | None, int]:
    try:
        async with conn.transaction(readonly=True):
            await conn.execute(f"SET LOCAL statement_timeout = {TIMEOUT_MS}")
            differing, compared = await conn.fetchrow(sql)
    except asyncpg.PostgresError:
        return None, 0  # a timeout or a privilege it lacks: unknown, never "agrees"
    return differing, compared
