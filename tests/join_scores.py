"""The joins `catalog import` proposes on a public schema whose foreign keys were dropped,
scored against the keys the schema declared (the answer key). Shared by
tests/integration/test_join_proposals.py and bench/join_proposals.py."""

from __future__ import annotations

import time
from dataclasses import dataclass

import asyncpg

from orquestra.ddl_catalog.importer import SchemaImport, import_schema
from tests.schemas import load_schema

Pair = tuple[str, str, str, str]
"""(child, column, parent, column)."""


@dataclass(frozen=True)
class JoinScore:
    """Proposals against the answer key."""

    schema: str
    declared: frozenset[Pair]
    written: frozenset[Pair]
    listed: frozenset[Pair]
    seconds: float
    """The whole import (reading, proposing, tenancy, text)."""
    proposing: float
    """Of which the join proposals."""

    @property
    def right(self) -> frozenset[Pair]:
        return self.written & self.declared

    @property
    def wrong(self) -> frozenset[Pair]:
        return self.written - self.declared

    @property
    def missed(self) -> frozenset[Pair]:
        return self.declared - self.written


async def score_schema(
    server_url: str, name: str, database: str, tenant_column: str | None = None
) -> tuple[JoinScore, SchemaImport, str]:
    """Load `name` without its foreign keys, import it, and score the joins written; the
    import and the database's URL too."""
    url, declared = await load_schema(server_url, name, database, foreign_keys=False)
    conn = await asyncpg.connect(url)
    try:
        started = time.perf_counter()
        imported = await import_schema(conn, "public", system=name, tenant_column=tenant_column)
        seconds = time.perf_counter() - started
    finally:
        await conn.close()

    def pairs(proposals: tuple) -> frozenset[Pair]:
        return frozenset(
            (p.candidate.table, p.candidate.column, p.candidate.parent, p.candidate.parent_column)
            for p in proposals
        )

    joins = imported.joins
    score = JoinScore(
        name,
        frozenset(declared),
        pairs(joins.written),
        pairs(joins.listed),
        seconds,
        joins.seconds,
    )
    return score, imported, url


def describe(pairs: frozenset[Pair]) -> str:
    return ", ".join(f"{a}.{b} → {c}.{d}" for a, b, c, d in sorted(pairs)) or "none"
