"""The queries profiling reads a table's sample with, and what one answers (`Sampled`).

One query per table: a sample of its rows (`LIMIT`, and `TABLESAMPLE SYSTEM` when the
planner's estimate says the table is much larger than the sample), each row's tenant
followed along the `tenant_via` chain to the root, and for each candidate column its values
with how many rows and how many distinct tenants hold each — only for a column with few
enough distinct values, so the answer stays small whatever the table holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from orquestra.ddl_catalog.tenancy import Key, TenancyProposal
from orquestra.ddl_catalog.text import quoted

__all__ = ["ESTIMATES_SQL", "Sampled", "sample_sql", "tenant_chain"]

ESTIMATES_SQL = """
SELECT c.relname AS table_name, c.reltuples::bigint AS estimate
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'm')
"""
"""The planner's row estimate per table (-1 or 0 when never analysed: then no TABLESAMPLE)."""
SAMPLE_MARGIN = 2
"""`TABLESAMPLE SYSTEM` picks whole pages, so it asks for this many times the rows wanted."""


def tenant_chain(table: str, proposal: TenancyProposal) -> tuple[Key, ...]:
    """The keys from a `tenant_via` table up to the root holding the tenant column."""
    keys = [proposal.via[table].key]
    while keys[-1].target in proposal.via and len(keys) <= len(proposal.via):
        keys.append(proposal.via[keys[-1].target].key)
    return tuple(keys)


def sample_sql(
    schema: str,
    table: str,
    columns: Sequence[str],
    chain: Sequence[Key],
    tenant_column: str | None,
    estimate: int | None,
    rows: int,
    most: int,
) -> str:
    """Values of `columns` in a sample of `rows` rows of `table`, for the columns with at most
    `most` of them; `tenant_column` None: a shared table (no tenant counted)."""
    first = list(chain[0].columns) if chain else []
    own = [tenant_column] if tenant_column and not chain else []
    read = ", ".join(quoted(c) for c in dict.fromkeys([*columns, *first, *own]))
    sampling = ""
    if estimate and estimate > SAMPLE_MARGIN * rows:
        sampling = f" TABLESAMPLE SYSTEM ({100 * SAMPLE_MARGIN * rows / estimate:.6f})"
    joins, tenant = _tenant_of(schema, chain, tenant_column)
    picked = ", ".join(f"a0.{quoted(c)}::text AS v{i}" for i, c in enumerate(columns))
    pairs = ", ".join(f"({i}, s.v{i})" for i in range(len(columns)))
    where = f" WHERE {tenant} IS NOT NULL" if tenant_column else ""
    return (
        f"WITH sample AS (SELECT {tenant} AS tenant, {picked}"
        f" FROM (SELECT {read} FROM {quoted(schema)}.{quoted(table)}{sampling} LIMIT {rows}) AS a0"
        f"{joins}{where}),"
        " seen AS (SELECT v.i, v.value, count(*) AS row_count,"
        " count(DISTINCT s.tenant) AS tenants"
        f" FROM sample s CROSS JOIN LATERAL (VALUES {pairs}) AS v(i, value)"
        " WHERE btrim(v.value) <> '' GROUP BY v.i, v.value),"
        " few AS (SELECT i FROM seen GROUP BY i"
        f" HAVING count(*) <= {most}),"
        " totals AS (SELECT count(*) AS sampled, count(DISTINCT tenant) AS all_tenants"
        " FROM sample)"
        " SELECT kept.i, kept.value, kept.row_count, kept.tenants, totals.sampled,"
        f" totals.all_tenants, {'true' if sampling else 'false'} AS tablesampled"
        " FROM totals LEFT JOIN (SELECT seen.* FROM seen JOIN few USING (i)) AS kept ON true"
        " ORDER BY kept.i, kept.row_count DESC, kept.value"
    )


def _tenant_of(schema: str, chain: Sequence[Key], tenant_column: str | None) -> tuple[str, str]:
    """The joins up the chain and the expression of each sampled row's tenant."""
    if tenant_column is None:
        return "", "NULL::text"
    if not chain:
        return "", f"a0.{quoted(tenant_column)}"
    joins = ""
    for hop, key in enumerate(chain, start=1):
        left = "a0" if hop == 1 else f"b{hop - 1}"
        on = " AND ".join(
            f"b{hop}.{quoted(remote)} = {left}.{quoted(local)}"
            for local, remote in zip(key.columns, key.target_columns, strict=True)
        )
        joins += f" JOIN {quoted(schema)}.{quoted(key.target)} AS b{hop} ON {on}"
    return joins, f"b{len(chain)}.{quoted(tenant_column)}"


@dataclass(frozen=True)
class Sampled:
    """What one table's sample held."""

    rows: int
    """Rows read (after following the tenant chain: a row of nobody's is not counted)."""
    tenants: int
    """Distinct tenants among them (0 for a shared table)."""
    limit: int
    tablesampled: bool
    columns: dict[str, list[tuple[str, int, int]]] = field(default_factory=dict)
    """Column → (value, rows, tenants), most rows first, for columns with few values."""

    @property
    def whole(self) -> bool:
        """Every row of the table was read."""
        return not self.tablesampled and self.rows < self.limit

    @property
    def partial(self) -> bool:
        return not self.whole

    @classmethod
    def of(cls, rows: Sequence[Any], columns: Sequence[str], limit: int) -> Sampled:
        found: dict[str, list[tuple[str, int, int]]] = {}
        for row in rows:
            if row["i"] is not None:
                found.setdefault(columns[row["i"]], []).append(
                    (row["value"], row["row_count"], row["tenants"])
                )
        first = rows[0]  # every row carries the totals (one row of them alone when no values)
        return cls(first["sampled"], first["all_tenants"], limit, first["tablesampled"], found)
