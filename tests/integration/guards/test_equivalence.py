"""Semantic equivalence: guarded on the full database == unguarded on the tenant's own copy."""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest
import yaml

from guards import GuardPolicy
from tests.integration.guards.conftest import multiset, run_guarded, run_on_copy

QUERIES: list[str] = yaml.safe_load(
    (Path(__file__).parent / "equivalence_queries.yaml").read_text(encoding="utf-8")
)


def test_corpus_is_large_enough() -> None:
    assert len(QUERIES) >= 30


@pytest.mark.parametrize("sql", QUERIES, ids=lambda q: q[:70])
async def test_guarded_query_equals_the_tenant_copy(
    sql: str,
    policy: GuardPolicy,
    agent: asyncpg.Connection,
    conn: asyncpg.Connection,
    tenant_copy: str,
) -> None:
    expected = multiset(await run_on_copy(conn, sql))
    guarded = await run_guarded(agent, sql, policy)
    assert multiset(guarded.rows) == expected
    assert sum(expected.values()) > 0  # an empty answer would prove nothing


async def test_the_check_can_fail_unguarded_queries_break_it(
    conn: asyncpg.Connection, tenant_copy: str
) -> None:
    """Run as the owner on the full database without the guard, most answers differ."""
    differing = 0
    for sql in QUERIES:
        async with conn.transaction():
            await conn.execute("SET LOCAL TimeZone = 'America/Sao_Paulo'")
            unguarded = [tuple(r) for r in await conn.fetch(sql)]
        if multiset(unguarded) != multiset(await run_on_copy(conn, sql)):
            differing += 1
    assert differing >= 0.8 * len(QUERIES)
